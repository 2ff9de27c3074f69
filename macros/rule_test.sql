{#- The shared builder behind every per-rule generic test (macros/rules/*.sql).

    A rule is normalized into one dict, the same shape the data_quality_scan test uses:
      {rule_type, name, description, column, dimension, threshold, ignore_null, suspended,
       params: {rule-type fields}, debug_queries, attributes}
    It is normalized and its own checks run when dbt parses the test (per_rule_parse,
    macros/identity.sql); a valid rule is recorded then, and compile starts from it.
    The test returns one metrics row (docs/ARCHITECTURE.md); dbt keeps it in the warehouse
    (store_failures) and counts the rules that did not pass as the test's failures. -#}

{% macro rule_test(rule_type, model, column_name, args, unknown_args) %}
  {%- set node = dataplex_dq.current_test_node() -%}
  {#- config() only counts when dbt parses the test (at execution it does nothing) -#}
  {%- if not execute -%}
    {%- set parsed = dataplex_dq.per_rule_parse(rule_type, node, column_name, args, unknown_args) -%}
    {{ dataplex_dq.metrics_test_config(node, parsed.identity, parsed.declaration) }}
    {{ return("select 1 as passed") }}
  {%- endif -%}

  {%- set recorded = dataplex_dq.recorded_declaration(node) -%}  {#- read at parse time when valid (per_rule_parse) -#}
  {%- if recorded is none -%}
    {%- set column_name = dataplex_dq.bare_column(column_name) -%}  {#- a `quote: true` column, as dbt passes it -#}
    {%- set rule = dataplex_dq.normalize_rule(rule_type, node, column_name if column_name else args.get('column'), args) -%}
  {%- else -%}
    {#- a copy: the SQL builders add the resolved column and SQL to the rule -#}
    {%- set rule = dict(recorded.rule, params=dict(recorded.rule.params)) -%}
  {%- endif -%}
  {%- set source_node = dataplex_dq.data_source_node(node) -%}
  {%- set where = dataplex_dq.collect_problems({'source': dataplex_dq.describe_source(source_node, model), 'rule': rule.name, 'test': 'dataplex_dq.' ~ rule_type}) -%}
  {%- if recorded is none -%}{{ dataplex_dq.rule_test_arguments(rule, column_name, args, unknown_args, where) }}{%- endif -%}
  {%- set declared = dataplex_dq.rule_test_declaration(rule, node, source_node, where) -%}
  {%- set where = dataplex_dq.raise_problems(where) -%}  {#- every problem at once; raising from here on -#}

  {#- incremental scans (macros/incremental.sql): the window joins the row filter of the scope -#}
  {#- (without any incremental setting there is no window and nothing to check: no call) -#}
  {%- set s = declared.settings -%}
  {%- set window = none -%}
  {%- if s.get('incremental_field') is not none or s.get('incrementalField') is not none
         or s.get('incremental_lookback') is not none or s.get('incrementalLookback') is not none -%}
    {%- set window = dataplex_dq.incremental_window(source_node, declared.settings, where) -%}
  {%- endif -%}
  {%- set ctx = {
      'from_sql': model,
      'row_filter': declared.settings.get('row_filter') if window is none else dataplex_dq.scope_filter_with_window(declared.settings.get('row_filter'), window),
      'declared_row_filter': declared.settings.get('row_filter'),
      'incremental': window,
      'sampling_percent': declared.settings.get('sampling_percent'),
      'data_type': declared.data_type,
      'test_unique_id': node.unique_id,
      'source_unique_id': source_node.unique_id,
      'rule_index': 0,
  } -%}
  {%- set sql = dataplex_dq.rule_metrics_sql(rule, ctx) -%}
  {{ dataplex_dq.check_statement_size(sql, where, 1) }}
  {#- (a test without meta.dataplex_dq has no cap to check: no call) -#}
  {%- if ((node.get('config') or {}).get('meta') or {}).get('dataplex_dq') or (node.get('meta') or {}).get('dataplex_dq') -%}
    {{ dataplex_dq.bytes_billed_guard(node, source_node, sql, where) }}
  {%- endif -%}
  {{ return(dataplex_dq.rule_session_prefix(rule, declared.data_type, source_node) ~ sql) }}
{% endmacro %}

{#- The checks of one per-rule test's own declaration, every problem collected in `where`: its
    arguments and the rule (validate_rule). Run when dbt parses the test (per_rule_parse), and again at
    compile only when that found a problem. -#}
{% macro rule_test_arguments(rule, column_name, args, unknown_args, where) %}
  {%- for key in unknown_args -%}
    {{ dataplex_dq.raise_rule_error(where, key, "unknown argument; dataplex_dq." ~ rule.rule_type ~ " takes: " ~ (args.keys() | list | join(', '))) }}
  {%- endfor -%}
  {%- if column_name and args.get('column') and (dataplex_dq.bare_column(args.get('column')) | lower) != (column_name | lower) -%}
    {{ dataplex_dq.raise_rule_error(where, 'column', "the test is declared under column '" ~ column_name ~ "' but its argument says '" ~ args.get('column') ~ "'") }}
  {%- endif -%}
  {{ dataplex_dq.validate_rule(rule, where) }}
{% endmacro %}

{#- The checks of one per-rule test that need its data source, every problem collected in `where`: the
    data source's settings, the rule names of the data source, and the column with the bounds or values
    converted to its type. Returns {settings, data_type}. -#}
{% macro rule_test_declaration(rule, node, source_node, where) %}
  {%- set problem = dataplex_dq.data_source_problem(source_node) -%}
  {%- if problem is not none -%}
    {{ dataplex_dq.raise_rule_error(where, none, problem) }}
    {{ return(dataplex_dq.raise_problems(where)) }}
  {%- endif -%}
  {%- set settings = dataplex_dq.checked_source_settings(source_node, where) -%}
  {{ dataplex_dq.validate_rules_of_source(source_node, node, rule, where) }}
  {%- set data_type = none -%}
  {%- if rule.column is string and not rule.suspended -%}
    {%- set data_type = dataplex_dq.checked_column_type(rule, source_node, where) -%}
  {%- endif -%}
  {{ return({'settings': settings, 'data_type': data_type}) }}
{% endmacro %}

{#- The data source's settings (meta.dataplex_dq), checked; its problems are added to `where`. -#}
{% macro checked_source_settings(source_node, where) %}
  {%- set settings = dataplex_dq.data_source_settings(source_node) -%}
  {%- if settings is mapping and not settings -%}{{ return({}) }}{%- endif -%}  {#- no settings: nothing to check -#}
  {%- set own = dict(where, problems=[]) -%}
  {{ dataplex_dq.validate_scope_settings(settings, own, dataplex_dq.anomaly_scope_keys() + dataplex_dq.lifecycle_setting_keys()) }}
  {%- set settings = settings if settings is mapping else {} -%}
  {{ dataplex_dq.anomaly_require_runner(source_node, settings, own) }}
  {{ dataplex_dq.validate_post_scan_actions(settings.get('post_scan_actions'), own) }}
  {%- for problem in own.problems if problem not in where.problems -%}{%- do where.problems.append(problem) -%}{%- endfor -%}
  {{ return(settings) }}
{% endmacro %}

{#- One rule, normalized. Scalars from YAML (numbers, dates) become the proto's strings. -#}
{% macro normalize_rule(rule_type, node, column, args) %}
  {%- set params = {} -%}
  {%- for key in ['min_value', 'max_value'] -%}
    {%- if key in args and args.get(key) is not none -%}
      {%- do params.update({key: dataplex_dq.scalar_text(args.get(key)) if dataplex_dq._is_scalar(args.get(key)) else args.get(key)}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for key in ['strict_min_enabled', 'strict_max_enabled', 'regex', 'sql_expression', 'sql_statement'] -%}
    {%- if key in args and args.get(key) is not none -%}{%- do params.update({key: args.get(key)}) -%}{%- endif -%}
  {%- endfor -%}
  {%- if 'statistic' in args -%}
    {%- do params.update({'statistic': (args.get('statistic') | string | upper) if args.get('statistic') is string else args.get('statistic')}) -%}
  {%- endif -%}
  {%- if 'values' in args -%}
    {%- set values = args.get('values') -%}
    {%- if values is iterable and values is not string and values is not mapping -%}
      {#- scalars as the proto's strings; anything else is kept for validate_rule to name -#}
      {%- set items = [] -%}
      {#- (_is_scalar written in place: it runs once per value) -#}
      {%- for v in values -%}{%- do items.append((v | string) if (v is not none and v is not mapping and (v is string or v is number or v is not iterable)) else v) -%}{%- endfor -%}
      {%- set values = items -%}
    {%- endif -%}
    {%- do params.update({'values': values}) -%}
  {%- endif -%}
  {%- if rule_type == 'template_reference' -%}
    {%- do params.update({'name': args.get('name'), 'values': dataplex_dq.rule_template_values(args.get('values'))}) -%}
  {%- endif -%}
  {%- set description = node.get('description') or none -%}
  {{ return({
      'rule_type': rule_type,
      'name': dataplex_dq.rule_name_for(node, rule_type, column),
      'description': description,
      'column': column,
      'dimension': args.get('dimension'),
      'threshold': args.get('threshold'),
      'ignore_null': args.get('ignore_null') or false,
      'suspended': args.get('suspended') or false,
      'params': params,
      'debug_queries': args.get('debug_queries'),
      'attributes': args.get('attributes'),
  }) }}
{% endmacro %}

{% macro describe_source(source_node, model) %}
  {%- if source_node is none -%}{{ return("data source " ~ model) }}{%- endif -%}
  {%- if source_node.resource_type == 'source' -%}
    {{ return("source '" ~ source_node.source_name ~ "." ~ source_node.name ~ "'") }}
  {%- endif -%}
  {{ return(source_node.resource_type ~ " '" ~ source_node.name ~ "'") }}
{% endmacro %}

{#- The warehouse type of the rule's column, after checking it exists and the bounds/values convert. -#}
{#- `types` ({column name as the warehouse has it: data type}) may be given to avoid one metadata query
    per rule (data_quality_scan reads the column types once for all its rules). The declared column is
    resolved to the relation's real column as the warehouse would (resolve_column) and kept in
    rule.column_resolved, which the rule's SQL quotes (column_sql). -#}
{% macro checked_column_type(rule, source_node, where, types=none) %}
  {%- if types is none -%}
    {%- set types = dataplex_dq.cached_column_types(source_node) -%}
  {%- endif -%}
  {%- set key = dataplex_dq.resolve_column(rule.column, types.keys() | list) -%}
  {%- if key is none -%}
    {{ dataplex_dq.raise_rule_error(where, 'column', dataplex_dq.missing_column_message(rule.column, dataplex_dq.data_source_relation(source_node).render(), types, " (as " ~ adapter.type() ~ " matches column names)")) }}
    {{ return(none) }}
  {%- endif -%}
  {%- do rule.update({'column_resolved': key, 'column_resolved_sql': none}) -%}
  {%- set data_type = types[key] -%}
  {%- set checks = [] -%}
  {%- if rule.rule_type == 'range_expectation' or (rule.rule_type == 'statistic_range_expectation' and rule.params.statistic != 'MEAN') -%}
    {%- for field in ['min_value', 'max_value'] -%}
      {%- if rule.params.get(field) is not none -%}{%- do checks.append((field, rule.params.get(field), data_type)) -%}{%- endif -%}
    {%- endfor -%}
  {%- elif rule.rule_type == 'statistic_range_expectation' -%}
    {%- for field in ['min_value', 'max_value'] -%}
      {%- if rule.params.get(field) is not none -%}{%- do checks.append((field, rule.params.get(field), 'double')) -%}{%- endif -%}
    {%- endfor -%}
  {%- elif rule.rule_type == 'set_expectation' -%}
    {%- set values = rule.params.get('values') -%}
    {%- for v in (values if values is iterable and values is not string and values is not mapping else []) -%}{%- do checks.append(('values[' ~ loop.index0 ~ ']', v, data_type)) -%}{%- endfor -%}
  {%- endif -%}
  {%- for field, v, t in checks if (v is not none and v is not mapping and (v is string or v is number or v is not iterable)) -%}  {#- _is_scalar(v), written in place -#}
    {%- set problem = dataplex_dq.bound_problem(v, t) -%}
    {%- if problem -%}{{ dataplex_dq.raise_rule_error(where, field, problem) }}{%- endif -%}
  {%- endfor -%}
  {{ return(data_type) }}
{% endmacro %}

{#- The data source's columns and their types ({name as the warehouse has it: data type}): one metadata
    query each time it is asked (nothing is kept between tests; the name is kept for its callers). -#}
{% macro cached_column_types(source_node) %}
  {{ return(dataplex_dq.column_types(dataplex_dq.data_source_relation(source_node))) }}
{% endmacro %}

{#- Checks across all dataplex_dq rules of one data source: unique names, at most 1,000 rules. -#}
{% macro validate_rules_of_source(source_node, this_node, rule, where) %}
  {#- A derived name ends in 6 hex digits of its own test's unique id, so only a rule whose name has
      that shape can collide with a derived name: the others skip deriving (cheap on big sources). -#}
  {%- set derive = modules.re.search('-[0-9a-f]{6}$', rule.name) is not none -%}
  {%- if derive -%}
    {%- set names = dataplex_dq.other_rule_names(source_node, this_node, derive) -%}
    {%- set clash = rule.name in names -%}
    {%- set count = names | length -%}
  {%- else -%}
    {#- without deriving: the data source's dataplex_dq tests picked by filters (Python's loops, not a
        Jinja loop over each sibling: a data source's tests are read by each of its tests); a scan's
        rules are read one by one, each other test holds one rule named as the test -#}
    {%- set tests = graph.nodes.values() | selectattr('attached_node', 'equalto', source_node.unique_id)
                      | selectattr('resource_type', 'equalto', 'test')
                      | selectattr('test_metadata.namespace', 'equalto', 'dataplex_dq') | list -%}
    {%- set scans = tests | selectattr('test_metadata.name', 'equalto', 'data_quality_scan') | list -%}
    {%- set others = tests | rejectattr('test_metadata.name', 'equalto', 'data_quality_scan')
                           | rejectattr('unique_id', 'equalto', this_node.unique_id) | list -%}
    {%- set acc = {'clash': others | selectattr('name', 'equalto', rule.name) | list | length > 0, 'count': others | length} -%}
    {%- for scan in scans if scan.unique_id != this_node.unique_id -%}
      {%- set scan_rules = (scan.test_metadata.kwargs or {}).get('rules') or [] -%}
      {%- if scan_rules is iterable and scan_rules is not string and scan_rules is not mapping -%}
        {%- do acc.update({'count': acc.count + (scan_rules | length)}) -%}
        {%- for r in scan_rules if not acc.clash -%}
          {%- if (r['name'] if r is mapping and r.get('name') else dataplex_dq.scan_rule_name(r, loop.index0)) == rule.name -%}{%- do acc.update({'clash': true}) -%}{%- endif -%}
        {%- endfor -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set clash, count = acc.clash, acc.count -%}
  {%- endif -%}
  {%- if clash -%}
    {{ dataplex_dq.raise_rule_error(where, 'name', "another rule on the same data source is also named '" ~ rule.name ~ "'; rule names must be unique per data source") }}
  {%- endif -%}
  {%- if count + 1 > 1000 -%}
    {{ dataplex_dq.raise_rule_error(where, none, "the data source has " ~ (count + 1) ~ " rules; Dataplex allows at most 1000 per data source") }}
  {%- endif -%}
{% endmacro %}

{#- The rule names of every other dataplex_dq test on the data source: one per per-rule test, one per
    rule of each data_quality_scan (declared or derived name, see scan_rule_name). With
    derive=false, per-rule tests without a `name:` count as none (their derived name is unique). -#}
{% macro other_rule_names(source_node, this_node, derive=true) %}
  {%- set names = [] -%}
  {%- if not source_node.unique_id -%}{{ return(names) }}{%- endif -%}
  {#- the graph's nodes narrowed to those attached to the data source by a filter (Python's loop: a
      Jinja loop pays the sandbox's checks on every node of the project, for every test) -#}
  {%- for other in graph.nodes.values() | selectattr('attached_node', 'equalto', source_node.unique_id)
        if other.resource_type == 'test' and (other.get('test_metadata') or {}).get('namespace') == 'dataplex_dq' -%}
    {%- if other.unique_id != this_node.unique_id -%}
      {%- set other_type = other.test_metadata.name -%}
      {%- if other_type == 'data_quality_scan' -%}
        {%- set other_rules = (other.test_metadata.kwargs or {}).get('rules') or [] -%}
        {%- if other_rules is iterable and other_rules is not string and other_rules is not mapping -%}
          {%- for r in other_rules -%}{%- do names.append(r['name'] if r is mapping and r.get('name') else dataplex_dq.scan_rule_name(r, loop.index0)) -%}{%- endfor -%}
        {%- endif -%}
      {%- elif not other.name.startswith('dataplex_dq_') -%}
        {%- do names.append(other.name) -%}
      {%- elif derive -%}
        {%- set other_column = other.get('column_name') or (other.test_metadata.kwargs or {}).get('column') -%}
        {%- do names.append(dataplex_dq.rule_name_for(other, other_type, other_column)) -%}
      {%- else -%}
        {%- do names.append(none) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(names) }}
{% endmacro %}
