{#- Rule identity, computed once (issue 8 item 3): each rule's name (declared, or derived by
    rule_name_for / scan_rule_name), whether the name was given, and the rule normalized as the
    DataQualityRule its metrics row carries (rule_spec, metrics.sql rule_proto_dict, plus its
    attributes as a string map).

    When dbt parses the project it renders every generic test with `execute` false to capture its
    config() calls. Then, and only then, the dataplex_dq tests compute the identity of the rules they
    declare and record it in the test node's config, `meta.dataplex_dq_rules`
    (metrics_test_config): a list of {rule_index, name_given, rule}. The post-hook reads it there
    (python/dataplex_dq/record/declared.py) for the rules that leave no metrics row (a test that errored or
    was skipped never compiles), for the rule names each data source declares, for export-spec and
    for diff. It never re-derives a name.

    Best effort, never raising: a declaration's problems are raised when dbt compiles the test, not
    here. A scan records every rule that has one rule type and a mapping of its fields; a rule or a
    scan that cannot be read records nothing, and compile raises the same error as before.

    The declaration read once (issue 32 item 1): the same parse reads and checks what needs neither
    the warehouse nor the other nodes (the arguments, each rule normalized and validated, a scan's
    own rule names and count) and, when it finds no problem, records the result under
    `meta.dataplex_dq_declaration`. Compiling the test starts from it: a valid declaration is not
    read, normalized or validated again in every process that compiles it (dbt compiles each macro it
    calls into a template once per process). What depends on the data source, the other tests or
    the warehouse (settings, rule names and count across the data source, column types, bounds
    converted to them) is still checked at compile. dbt parses a test again when its YAML, the
    package's macros, vars or the target change, so the record follows the declaration. A declaration
    with a problem records none, and compile reads it as before and raises every problem. -#}

{#- The config.meta key the identity is recorded under (python/dataplex_dq/record/declared.py IDENTITY_KEY). -#}
{% macro identity_meta_key() %}{{ return('dataplex_dq_rules') }}{% endmacro %}

{#- One recorded rule: a normalized rule (normalize_rule's dict) as a DataQualityRule. -#}
{% macro recorded_rule(index, rule, name_given) %}
  {%- set queries = rule.debug_queries -%}
  {%- set readable = queries is iterable and queries is not string and queries is not mapping
                     and (queries | reject('mapping') | list | length) == 0 -%}
  {%- set spec = dataplex_dq.rule_proto_dict(dict(rule, debug_queries=queries if readable else none)) -%}
  {%- if rule.attributes is mapping and rule.attributes -%}
    {%- do spec.update({'attributes': dataplex_dq.string_map(rule.attributes)}) -%}
  {%- endif -%}
  {{ return({'rule_index': index, 'name_given': name_given, 'rule': spec}) }}
{% endmacro %}

{#- What dbt's parse of a per-rule test records (macros/rule_test.sql): {identity, declaration}. The
    identity: its one rule, index 0. The declaration (declaration_meta_key): {rule}, the rule normalized,
    only when its arguments and the rule have no problem (rule_test_arguments) and hold no Jinja
    (arguments_hold_jinja); compile then starts from
    it. Otherwise none, and compile reads and checks the arguments as before, raising the same errors. -#}
{% macro per_rule_parse(rule_type, node, column_name, args, unknown_args) %}
  {%- set column_name = dataplex_dq.bare_column(column_name) -%}
  {%- set rule = dataplex_dq.normalize_rule(rule_type, node, column_name if column_name else args.get('column'), args) -%}
  {%- set identity = [dataplex_dq.recorded_rule(0, rule, dataplex_dq.rule_name_is_given(node, rule_type))] -%}
  {%- set where = dataplex_dq.collect_problems({'source': '', 'rule': rule.name, 'test': 'dataplex_dq.' ~ rule_type}) -%}
  {{ dataplex_dq.rule_test_arguments(rule, column_name, args, unknown_args, where) }}
  {%- set recorded = not where.problems and not dataplex_dq.arguments_hold_jinja(node) -%}
  {{ return({'identity': identity, 'declaration': {'rule': rule} if recorded else none}) }}
{% endmacro %}

{#- What dbt's parse of a data_quality_scan records (macros/scan.sql): {identity, declaration}. The
    identity: the rules of its spec, read as compile reads them (scan_spec_of, scan_read_rules) with every
    problem collected and ignored. The declaration (declaration_meta_key): the spec's other fields and its
    rules normalized, only when reading them found no problem (nor a DataScan resource, whose unused
    fields compile logs, nor Jinja in the arguments: arguments_hold_jinja); compile then starts from it
    instead of reading and validating the rules again. Otherwise none, and compile reads the arguments
    as before, raising the same errors. -#}
{% macro scan_parse(node, args, unknown_args) %}
  {%- set where = dataplex_dq.collect_problems({'source': '', 'rule': '', 'test': 'dataplex_dq.data_quality_scan', 'label': 'data_quality_scan'}) -%}
  {%- set pasted = dataplex_dq.scan_pasted_args(args, unknown_args) -%}
  {%- set spec = dataplex_dq.scan_spec_of(pasted, where) -%}
  {%- set raw_rules = spec.get('rules') -%}
  {%- if raw_rules is none or raw_rules is string or raw_rules is mapping or raw_rules is not iterable -%}
    {{ return({'identity': [], 'declaration': none}) }}
  {%- endif -%}
  {%- set read = dataplex_dq.scan_read_rules(raw_rules, where) -%}
  {%- set identity = [] -%}
  {%- for rule in read.rules -%}
    {%- set index = read.indexes[loop.index0] -%}
    {%- do identity.append(dataplex_dq.recorded_rule(index, rule, true if raw_rules[index].get('name') else false)) -%}
  {%- endfor -%}
  {{ dataplex_dq.scan_unknown_arguments(spec, where) }}
  {%- if where.problems or not raw_rules or (read.rules | length) != (raw_rules | length)
         or 'data_quality_spec' in pasted or 'dataQualitySpec' in pasted or dataplex_dq.arguments_hold_jinja(node) -%}
    {{ return({'identity': identity, 'declaration': none}) }}
  {%- endif -%}
  {%- set settings = {} -%}
  {%- for key, value in spec.items() if key != 'rules' -%}{%- do settings.update({key: value}) -%}{%- endfor -%}
  {{ return({'identity': identity, 'declaration': {'spec': settings, 'rules': read.rules}}) }}
{% endmacro %}

{#- Whether the test's arguments, as written in YAML, hold Jinja (a ref() or var() in a rule's SQL): dbt renders
    them again when it compiles the test, to other values than while parsing (there a ref() is the test's
    own relation), so such a declaration is read when the test compiles, never recorded. A node without its
    arguments is treated the same. -#}
{% macro arguments_hold_jinja(node) %}
  {%- set test_metadata = node.get('test_metadata') -%}
  {%- if not test_metadata -%}{{ return(true) }}{%- endif -%}
  {#- (`model` is dbt's own: the data source's ref or source, rendered the same in both) -#}
  {%- for key, value in (test_metadata.get('kwargs') or {}).items() if key != 'model' -%}
    {%- set raw = value | string -%}
    {%- if '{{' in raw or '{%' in raw -%}{{ return(true) }}{%- endif -%}
  {%- endfor -%}
  {{ return(false) }}
{% endmacro %}

{#- The config.meta key a declaration read at parse time is recorded under (scan_parse, per_rule_parse). -#}
{% macro declaration_meta_key() %}{{ return('dataplex_dq_declaration') }}{% endmacro %}

{#- The declaration recorded at parse time for the test being compiled, or none. -#}
{% macro recorded_declaration(node) %}
  {{ return(((node.get('config') or {}).get('meta') or {}).get(dataplex_dq.declaration_meta_key())) }}
{% endmacro %}

{#- The identity of another dataplex_dq test (anomaly_detection, whose checks are named when they
    run): the name of the test's rule as rule_name_for derives it, and no rule type. -#}
{% macro test_identity(test_node) %}
  {%- set test_name = (test_node.get('test_metadata') or {}).get('name') or '' -%}
  {%- set column = dataplex_dq.bare_column(test_node.get('column_name') or ((test_node.get('test_metadata') or {}).get('kwargs') or {}).get('column')) -%}
  {%- set rule = {'name': dataplex_dq.rule_name_for(test_node, test_name, column)} -%}
  {%- if column -%}{%- do rule.update({'column': column}) -%}{%- endif -%}
  {{ return([{'rule_index': 0, 'name_given': dataplex_dq.rule_name_is_given(test_node, test_name), 'rule': rule}]) }}
{% endmacro %}
