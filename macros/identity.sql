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

    Best effort, never raising: a declaration is validated when dbt compiles the test, not here. A
    scan records every rule that has one rule type and a mapping of its fields; a rule or a scan
    that cannot be read records nothing, and compile raises the same error as before. -#}

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

{#- The identity of a per-rule test (macros/rule_test.sql): one rule, index 0. -#}
{% macro per_rule_identity(rule_type, node, column_name, args) %}
  {%- set column = dataplex_dq.bare_column(column_name) if column_name else args.get('column') -%}
  {%- set rule = dataplex_dq.normalize_rule(rule_type, node, column, args) -%}
  {{ return([dataplex_dq.recorded_rule(0, rule, dataplex_dq.rule_name_is_given(node, rule_type))]) }}
{% endmacro %}

{#- The identity of a data_quality_scan (macros/scan.sql): the rules of its spec, read as compile
    reads them (scan_spec_of, normalize_scan_rule) with every problem collected and ignored. -#}
{% macro scan_identity(args, unknown_args) %}
  {%- set where = dataplex_dq.collect_problems({'source': '', 'rule': '', 'test': 'dataplex_dq.data_quality_scan', 'label': 'data_quality_scan'}) -%}
  {%- set pasted = {} -%}
  {%- for k, v in args.items() if v is not none -%}{%- do pasted.update({k: v}) -%}{%- endfor -%}
  {%- for k in unknown_args -%}{%- do pasted.update({k: unknown_args[k]}) -%}{%- endfor -%}
  {%- set raw_rules = dataplex_dq.scan_spec_of(pasted, where).get('rules') -%}
  {%- if raw_rules is none or raw_rules is string or raw_rules is mapping or raw_rules is not iterable -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- for raw in raw_rules -%}
    {%- set rule = dataplex_dq.normalize_scan_rule(raw, loop.index0, where) -%}
    {%- if rule is not none -%}
      {%- do out.append(dataplex_dq.recorded_rule(loop.index0, rule, true if raw.get('name') else false)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
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
