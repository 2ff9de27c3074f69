{#- The results table's one writer. The package declares it as its own on-run-end hook (its
    dbt_project.yml: package_on_run_end; `vars: {dataplex_dq_on_run_end: false}` switches it off), and
    `dataplex-dq report` runs it as `dbt run-operation dataplex_dq.record_run` for a run it did not record.

    After `dbt build` / `dbt test` / `dbt retry` it writes the invocation's rows into the results table,
    in SQL: one row per rule of every dataplex_dq test that ran, errored or was skipped. Named steps
    (record_invocation):
      1. plan (hook_plan): the facts of every dataplex_dq test from dbt's `results` (status, message,
         timing, data source, declared rule name) as rows of literals (hook_rows_sql), LEFT JOINed on the
         test id to its metrics rows of this invocation (one `select *` of its store_failures relation; for
         a test that errored or was skipped, its declared rules as rows of texts (hook_rows_sql)), joined to the data
         sources' facts; all inline in the INSERT when it fits one statement (hook_limits), else through
         two staging tables filled in batches;
      2. write (hook_write): DELETE (BigQuery: MERGE) the rows of this invocation's jobs, so a second
         run replaces them (idempotent per invocation), then one INSERT ... SELECT that scores each job
         with the macros of the result models (rule_count_columns, group_score_columns, score_percent:
         macros/results/result_model_helpers.sql) and builds the STRUCT / JSON columns per warehouse; then,
         in the same transaction, the invocation's rows become the latest result of the rules they ran in
         the latest results table (hook_latest_step) and, with the var dataplex_dq_retention_days, older jobs
         are deleted (hook_retention_step): macros/results/latest_results.sql;
      3. debug queries (hook_debug_step): each FAILED rule's debug queries run, their first rows set into
         its `debug_queries`, after the rows are committed.

    The statements run while dbt renders the hook: a failure stops the hook with a one-line error naming
    the data source and rule where the hook can tell; dbt has then already printed the run's results and
    written run_results.json (the build's own outcome stays visible; the exit code becomes 2). -#}

{#- The package's own on-run-end (its dbt_project.yml): records every run unless the var
    dataplex_dq_on_run_end is false. -#}
{% macro package_on_run_end(results) %}
  {%- if not var('dataplex_dq_on_run_end', true) -%}{{ return('') }}{%- endif -%}
  {{ return(dataplex_dq.record_on_run_end(results)) }}
{% endmacro %}

{#- The line a project listed before the package declared its own hook. The package's hook records the
    run; this one does so only where that one is switched off, so that a run is recorded once. -#}
{% macro on_run_end(results) %}
  {%- if var('dataplex_dq_on_run_end', true) -%}{{ return('') }}{%- endif -%}
  {{ return(dataplex_dq.record_on_run_end(results)) }}
{% endmacro %}

{% macro record_on_run_end(results) %}
  {%- if not execute or results is not defined or results is none -%}{{ return('') }}{%- endif -%}
  {%- if (flags.WHICH | default('build')) not in ('build', 'test', 'retry') -%}{{ return('') }}{%- endif -%}
  {%- if not dataplex_dq.records_results() -%}
    {{ log("dataplex_dq: an --empty run reads no rows: nothing written to the results table", info=true) }}
    {{ return('') }}
  {%- endif -%}
  {%- do dataplex_dq.record_invocation(results, invocation_id, run_started_at) -%}
  {{ return('') }}
{% endmacro %}

{#- `dataplex-dq report` after a run whose hook did not write (switched off with the var
    dataplex_dq_on_run_end, or a package without the hook): `dbt run-operation dataplex_dq.record_run`
    with the run's results as run_results.json has them (a list of {node: {unique_id}, status, message,
    timing, execution_time, adapter_response}), its invocation id and start time. The same writer. -#}
{% macro record_run(results, invocation, started_at=none) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set started = modules.datetime.datetime.fromisoformat(started_at.replace('Z', '')) if started_at else none -%}
  {%- do dataplex_dq.record_invocation(results, invocation, started) -%}
  {{ return('') }}
{% endmacro %}

{#- The one writer of the results table: the rows of every dataplex_dq test of dbt invocation
    `invocation` (dbt's `results`, or records of the same shape), then the debug queries' results of its
    failing rules (hook_debug_step). -#}
{% macro record_invocation(results, invocation, run_started) %}
  {%- set started = modules.datetime.datetime.now() -%}
  {%- set plan = dataplex_dq.hook_plan(results, invocation, run_started) -%}
  {%- if plan.tests | length == 0 -%}{{ return('') }}{%- endif -%}
  {%- set relation = dataplex_dq.hook_results_relation() -%}
  {%- set batches = dataplex_dq.hook_write(plan, relation) | int -%}
  {%- set debugged = dataplex_dq.hook_debug_step(plan, relation) -%}
  {%- set seconds = (modules.datetime.datetime.now() - started).total_seconds() -%}
  {{ log("dataplex_dq: wrote the results of " ~ (plan.tests | length) ~ " test(s) of " ~ (plan.job_ids | length) ~ " data source(s) to " ~ relation ~ " in " ~ batches ~ " batch(es)" ~ ((", the debug queries of " ~ debugged ~ " failed rule(s)") if debugged else "") ~ ", " ~ ('%.3f' | format(seconds)) ~ "s", info=true) }}
  {{ return('') }}
{% endmacro %}

{#- The results table: where `dbt build` builds the package model dataplex_dq_results (as the Python
    report finds it in manifest.json), else `dataplex_dq_results` in the target schema. -#}
{% macro hook_results_relation() %}
  {%- set node = graph.nodes.get('model.dataplex_dq.dataplex_dq_results') -%}
  {%- if node and node.get('schema') -%}
    {{ return(api.Relation.create(database=node.get('database'), schema=node.get('schema'), identifier=node.get('alias') or 'dataplex_dq_results')) }}
  {%- endif -%}
  {{ return(api.Relation.create(database=target.get('database'), schema=target.schema, identifier='dataplex_dq_results')) }}
{% endmacro %}

{#- Size bounds of one statement (BigQuery: 1,024K characters and 1,000 tables per query). The vars
    exist for tests, which force the staging path with tiny limits. -#}
{% macro hook_limits() %}
  {{ return({
      'max_chars': var('dataplex_dq_hook_max_chars', adapter.dispatch('hook_max_chars', 'dataplex_dq')()) | int,
      'max_relations': var('dataplex_dq_hook_max_relations', 200) | int,
  }) }}
{% endmacro %}

{#- The metrics-row contract (docs/ARCHITECTURE.md) as (name, results-type) pairs, in order. -#}
{% macro hook_metrics_columns() %}
  {#- one JSON text, not a Jinja list literal: dbt compiles a string constant far faster (rule_types) -#}
  {{ return(fromjson('[
      ["dq_invocation_id", "string"], ["dq_test_unique_id", "string"], ["dq_data_source", "string"], ["rule_index", "int64"],
      ["rule_name", "string"], ["rule_type", "string"], ["rule_column", "string"], ["rule_dimension", "string"],
      ["rule_threshold", "float64"], ["rule_ignore_null", "bool"], ["rule_suspended", "bool"], ["rule_status", "string"],
      ["row_count", "int64"], ["evaluated_count", "int64"], ["passed_count", "int64"], ["null_count", "int64"],
      ["pass_ratio", "float64"], ["passed", "bool"], ["assertion_row_count", "int64"], ["statistic_value", "float64"],
      ["failing_rows_query", "string"], ["rule_spec", "string"], ["rule_attributes", "string"], ["debug_queries_sql", "string"],
      ["scope_row_filter", "string"], ["scope_sampling_percent", "float64"], ["evaluated_at", "timestamp"], ["incremental_field", "string"],
      ["incremental_start", "string"], ["incremental_end", "string"], ["statistic_value_text", "string"]
  ]')) }}
{% endmacro %}

{#- The facts of one test (and its data source) every staged row carries, as (name, results-type). -#}
{% macro hook_fact_columns() %}
  {#- one JSON text, not a Jinja list literal: dbt compiles a string constant far faster (rule_types) -#}
  {{ return(fromjson('[
      ["t_test_unique_id", "string"], ["t_data_source", "string"], ["t_status", "string"], ["t_message", "string"],
      ["t_started_at", "timestamp"], ["t_completed_at", "timestamp"], ["t_declared_name", "string"], ["t_declared_type", "string"],
      ["t_no_row_message", "string"], ["t_execution_seconds", "float64"], ["t_bytes_processed", "int64"], ["t_bytes_billed", "int64"],
      ["t_slot_ms", "int64"], ["t_cost", "string"], ["s_job_id", "string"], ["s_scan_id", "string"],
      ["s_display_name", "string"], ["s_resource_name", "string"], ["s_database", "string"], ["s_schema", "string"],
      ["s_identifier", "string"], ["s_config", "string"], ["s_declared_rules", "string"], ["s_declared_count", "string"]
  ]')) }}
{% endmacro %}

{#- Dataplex's display name of each rule type, and the rule types evaluated per row (the rest are
    aggregates): read from the registry (macros/rules/_registry.sql). -#}
{% macro hook_rule_type_display() %}
  {%- set out = {} -%}
  {%- for rule_type, facts in dataplex_dq.rule_types().items() -%}{%- do out.update({rule_type: facts.display_name}) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}
{% macro hook_row_level_types() %}{{ return(dataplex_dq.row_level_rule_types()) }}{% endmacro %}

{#- export.job_id: a version-3 style UUID from the MD5 of "<namespace>/<invocation>/<data source>". -#}
{% macro job_id(invocation, data_source_id) %}
  {%- set h = local_md5('6f1c1f3e-2f0a-4d57-9a43-5d8e0c2b7a10/' ~ invocation ~ '/' ~ data_source_id) -%}
  {%- set variant = '89ab'[(h[16] | int(base=16)) % 4] -%}
  {{ return(h[0:8] ~ '-' ~ h[8:12] ~ '-3' ~ h[13:16] ~ '-' ~ variant ~ h[17:20] ~ '-' ~ h[20:32]) }}
{% endmacro %}

{#- A valid Dataplex data scan id for a data source (export.JobContext.data_scan_id). -#}
{% macro data_scan_id(resource_type, name) %}
  {%- set raw = modules.re.sub('[^a-z0-9]+', '-', ('dbt-' ~ resource_type ~ '-' ~ name) | lower).strip('-') -%}
  {{ return(raw[:63].rstrip('-')) }}
{% endmacro %}

{#- SQL text of a timestamp from dbt's timing (naive UTC, or aware), or none. -#}
{% macro hook_timestamp(value) %}
  {%- if value is none -%}{{ return(none) }}{%- endif -%}
  {%- if value.tzinfo is not none -%}{%- set value = value.astimezone(modules.pytz.utc).replace(tzinfo=none) -%}{%- endif -%}
  {{ return(value.strftime('%Y-%m-%d %H:%M:%S.%f')) }}
{% endmacro %}

{#- A text the writer stores, without NUL (U+0000), which PostgreSQL's text and JSON cannot hold (one
    NUL in one rule's description failed the whole write): a NUL character, and a JSON text's \u0000
    escape (one preceded by an even number of backslashes), become U+FFFD. Only a text of a declaration
    that failed validation (validate_no_nul) can hold one: the callers test for '\x00' / '\\u0000' first. -#}
{% macro hook_clean_text(value) %}
  {%- if value is not string -%}{{ return(value) }}{%- endif -%}
  {{ return(modules.re.sub('(?<!\\\\)((?:\\\\\\\\)*)\\\\u0000', '\\1\\\\ufffd', value.replace('\x00', '\ufffd'))) }}
{% endmacro %}

{#- Rows (lists of texts or none) with hook_clean_text applied to every value. -#}
{% macro hook_clean_rows(rows) %}
  {%- set out = [] -%}
  {%- for row in rows -%}
    {%- set clean = [] -%}
    {%- for v in row -%}{%- do clean.append(dataplex_dq.hook_clean_text(v)) -%}{%- endfor -%}
    {%- do out.append(clean) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- A YAML scalar as the proto's text (report._text). -#}
{% macro _hook_text(value) %}
  {%- if value is sameas true -%}{{ return('true') }}{%- elif value is sameas false -%}{{ return('false') }}{%- endif -%}
  {{ return(value | string) }}
{% endmacro %}

{#- The rule-type fields of a declared rule (report._rule_params), read with mapping `given` (snake_case, or
    camelCase when `camel`). `keys`: scan_rule_keys() (the registry's params and every field's camelCase), built
    once per hook. Inline filters and tests, no macro call: it runs per declared rule. -#}
{% macro _hook_rule_params(rule_type, given, camel, keys) %}
  {%- set params = {} -%}
  {%- for key in (keys.facts[rule_type].params if rule_type in keys.facts else []) -%}
    {%- set value = given.get(key) -%}
    {%- if value is none and camel -%}{%- set value = given.get(keys.camel[key]) -%}{%- endif -%}
    {%- if value is not none and value is not sameas false -%}
      {#- a YAML scalar as the proto's text (report._text) -#}
      {%- if key in ('min_value', 'max_value') -%}
        {%- set value = 'true' if value is sameas true else ('false' if value is sameas false else value | string) -%}
      {%- elif key == 'values' and value is iterable and value is not string and value is not mapping -%}
        {%- set texts = [] -%}
        {%- for v in value -%}{%- do texts.append('true' if v is sameas true else ('false' if v is sameas false else v | string)) -%}{%- endfor -%}
        {%- set value = texts -%}
      {%- elif key == 'statistic' -%}{%- set value = value | string | upper -%}
      {%- endif -%}
      {%- do params.update({key: value}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(params) }}
{% endmacro %}

{#- The declared rules of a test that left no metrics row (report.declared_rules): a list of
    (rule_index, DataQualityRule dict in snake_case proto JSON, attributes). `keys`: scan_rule_keys(), built
    once per hook (a skipped 1,000-rule scan reads 1,000 rules: per rule only filters and tests, and the two
    macros that name and type a scan's rule). -#}
{% macro hook_declared_rules(node, keys) %}
  {%- set camel = keys.camel -%}
  {%- set meta = node.get('test_metadata') or {} -%}
  {%- set kw = meta.get('kwargs') or {} -%}
  {%- set test_name = meta.get('name') -%}
  {%- set out = [] -%}
  {%- if test_name == 'anomaly_detection' -%}
    {#- its checks are known only once it runs: one row for the test, an anomaly check (attributes) of the
        rule type its volume check has, so that every output reports it as skipped or errored -#}
    {%- do out.append((0, {'name': dataplex_dq.rule_name_for(node, test_name, none), 'table_condition_expectation': {}}, {'anomaly_check': 'anomaly_detection'})) -%}
    {{ return(out) }}
  {%- endif -%}
  {#- a field is set unless it is none, false or 0 (Python's `value not in (None, False, 0)`) -#}
  {%- if test_name != 'data_quality_scan' -%}
    {%- set column = node.get('column_name') or kw.get('column') -%}
    {%- set spec = {'name': dataplex_dq.rule_name_for(node, test_name, column)} -%}
    {%- if node.get('description') -%}{%- do spec.update({'description': node.get('description')}) -%}{%- endif -%}
    {%- if column -%}{%- do spec.update({'column': column}) -%}{%- endif -%}
    {%- for key in ['dimension', 'threshold', 'ignore_null', 'suspended'] -%}
      {%- set value = kw.get(key) -%}
      {%- if not (value is none or value is sameas false or (value is number and value == 0)) -%}{%- do spec.update({key: value}) -%}{%- endif -%}
    {%- endfor -%}
    {%- do spec.update({test_name: dataplex_dq._hook_rule_params(test_name, kw, false, keys)}) -%}
    {%- if kw.get('debug_queries') -%}{%- do spec.update({'debug_queries': kw.get('debug_queries')}) -%}{%- endif -%}
    {%- do out.append((0, spec, kw.get('attributes') if kw.get('attributes') is mapping else none)) -%}
    {{ return(out) }}
  {%- endif -%}
  {%- set rules = kw.get('rules') -%}
  {%- if rules is string or rules is mapping or rules is not iterable -%}{{ return(out) }}{%- endif -%}
  {%- set rule_type_of, rule_name = dataplex_dq.scan_rule_type_of, dataplex_dq.scan_rule_name -%}
  {%- for raw in rules -%}
    {%- set index = loop.index0 -%}
    {%- set rule_type = rule_type_of(raw, keys) if raw is mapping else none -%}
    {%- if rule_type -%}
      {%- set spec = {'name': rule_name(raw, index, keys)} -%}
      {%- for key in ['description', 'column'] -%}
        {%- if raw.get(key) -%}{%- do spec.update({key: raw.get(key)}) -%}{%- endif -%}
      {%- endfor -%}
      {%- for key in ['dimension', 'threshold', 'ignore_null', 'suspended'] -%}
        {%- set value = raw.get(key) if raw.get(key) is not none else raw.get(camel[key]) -%}
        {%- if not (value is none or value is sameas false or (value is number and value == 0)) -%}{%- do spec.update({key: value}) -%}{%- endif -%}
      {%- endfor -%}
      {%- set given = raw.get(rule_type) if raw.get(rule_type) is not none else raw.get(camel[rule_type]) -%}
      {%- do spec.update({rule_type: dataplex_dq._hook_rule_params(rule_type, given if given is mapping else {}, true, keys)}) -%}
      {%- set queries = raw.get('debug_queries') if raw.get('debug_queries') is not none else raw.get('debugQueries') -%}
      {%- if queries and queries is not string and queries is not mapping -%}
        {%- set dqs = [] -%}
        {%- for q in queries if q is mapping -%}
          {%- set item = {} -%}
          {%- if q.get('description') is not none -%}{%- do item.update({'description': q.get('description')}) -%}{%- endif -%}
          {%- set sql = q.get('sql_statement') if q.get('sql_statement') is not none else q.get('sqlStatement') -%}
          {%- if sql is not none -%}{%- do item.update({'sql_statement': sql}) -%}{%- endif -%}
          {%- do dqs.append(item) -%}
        {%- endfor -%}
        {%- do spec.update({'debug_queries': dqs}) -%}
      {%- endif -%}
      {%- do out.append((index, spec, raw.get('attributes') if raw.get('attributes') is mapping else none)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The data-source facts of a job (export.JobContext): ids, names, relation, job configuration. -#}
{% macro hook_source_facts(source_id, scan_settings, invocation) %}
  {%- set node = graph.nodes.get(source_id) or graph.sources.get(source_id) -%}
  {%- if node is none -%}
    {%- set node = {'unique_id': source_id, 'name': source_id, 'resource_type': 'unknown'} -%}
  {%- endif -%}
  {%- set name = node.get('name', '') -%}
  {%- if node.get('resource_type') == 'source' -%}{%- set name = node.get('source_name') ~ '.' ~ name -%}{%- endif -%}
  {%- set resource_type = node.get('resource_type', '') -%}
  {%- set database, schema = node.get('database'), node.get('schema') -%}
  {%- set identifier = node.get('alias') or node.get('identifier') or node.get('name') -%}
  {%- set settings = dataplex_dq.data_source_settings(node) -%}
  {%- set settings = settings if settings is mapping else {} -%}
  {%- set merged = {} -%}{%- do merged.update(settings) -%}{%- do merged.update(scan_settings.get(source_id, {})) -%}
  {%- if target.type == 'bigquery' -%}
    {%- set resource = '//bigquery.googleapis.com/projects/' ~ database ~ '/datasets/' ~ schema ~ '/tables/' ~ identifier -%}
  {%- else -%}
    {%- set resource = [database, schema, identifier] | select | join('.') -%}
  {%- endif -%}
  {%- set sampling = merged.get('sampling_percent') -%}
  {{ return({
      's_job_id': dataplex_dq.job_id(invocation, source_id),
      's_scan_id': dataplex_dq.data_scan_id(resource_type, name),
      's_display_name': resource_type ~ ' ' ~ name,
      's_resource_name': resource,
      's_database': database,
      's_schema': schema,
      's_identifier': identifier,
      's_declared_rules': '[' ~ ((scan_settings['__declared__'].get(source_id, []) | unique | sort(case_sensitive=true) | list) | map('tojson') | join(',')) ~ ']',
      's_declared_count': (scan_settings['__declared__'].get(source_id, []) | unique | list | length) | string,
      's_config': tojson({'trigger': 'ondemand',
                          'sampling_percent': (sampling | float) if sampling else 100.0,
                          'row_filter': merged.get('row_filter')})[:-1],
  }) }}
{% endmacro %}

{#- Scan-level settings a data_quality_scan declares for the data sources in `source_ids`
    (artifacts.scan_settings), and under '__declared__' every rule name each of them declares
    (declared.declared_rule_names). One pass over the graph's tests; subscripts and filters rather
    than method calls (each call costs far more in dbt's sandbox than a dict lookup). -#}
{% macro hook_scan_settings(source_ids) %}
  {%- set out = {} -%}
  {%- set declared = {} -%}
  {#- names set unconditionally in the loop, and an early `continue`: see hook_plan -#}
  {%- set scan_rule_name, rule_name_for = dataplex_dq.scan_rule_name, dataplex_dq.rule_name_for -%}
  {#- scan_rule_keys(), built when the first rule without a name of its own is met (not once per such rule) -#}
  {%- set ns = namespace(keys=none) -%}
  {%- for node in graph.nodes.values() | selectattr('resource_type', 'equalto', 'test') -%}
    {%- set meta = node['test_metadata'] if 'test_metadata' in node else none -%}
    {%- if not meta or meta['namespace'] != 'dataplex_dq' -%}{%- continue -%}{%- endif -%}
    {%- set source_id = node['attached_node'] if node['attached_node'] else ((node['depends_on']['nodes'] if node['depends_on'] else []) or [none])[0] -%}
    {%- if source_id not in source_ids -%}{%- continue -%}{%- endif -%}
    {%- if source_id not in declared -%}{%- do declared.update({source_id: []}) -%}{%- endif -%}
    {%- set bucket = declared[source_id] -%}
    {%- set test_name = meta['name'] -%}
    {%- set kw = meta['kwargs'] or {} -%}
    {%- set rules = kw.get('rules') -%}
    {%- set found = out[source_id] if source_id in out else {} -%}
    {%- if test_name == 'data_quality_scan' -%}
      {%- if rules is iterable and rules is not string and rules is not mapping -%}
        {%- for raw in rules -%}
          {%- if raw is mapping and 'name' in raw and raw['name'] -%}{%- do bucket.append(raw['name']) -%}{%- continue -%}{%- endif -%}
          {%- if ns.keys is none -%}{%- set ns.keys = dataplex_dq.scan_rule_keys() -%}{%- endif -%}
          {%- do bucket.append(scan_rule_name(raw, loop.index0, ns.keys)) -%}
        {%- endfor -%}
      {%- endif -%}
      {%- for key, camel in [('row_filter', 'rowFilter'), ('sampling_percent', 'samplingPercent'), ('post_scan_actions', 'postScanActions')] -%}
        {%- set value = kw.get(key) if kw.get(key) is not none else kw.get(camel) -%}
        {%- if value is not none -%}{%- do found.update({key: value}) -%}{%- endif -%}
      {%- endfor -%}
      {%- do out.update({source_id: found}) -%}
    {%- elif node['name'].startswith('dataplex_dq_' ~ test_name) -%}
      {%- do bucket.append(rule_name_for(node, test_name, node['column_name'] or kw.get('column'))) -%}
    {%- else -%}
      {%- do bucket.append(node['name']) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do out.update({'__declared__': declared}) -%}
  {{ return(out) }}
{% endmacro %}

{#- The warehouse types of the scalar results types ({'string': ..., 'int64': ..., ...}), with ONE
    dispatch: each adapter.dispatch of a package macro costs dbt two caught exceptions when the root
    project has no macros of its own (about 1 ms each), and the hook needs hundreds of casts. -#}
{% macro hook_types() %}
  {%- set rt = adapter.dispatch('results_type', 'dataplex_dq') -%}
  {%- set out = {} -%}
  {%- for t in ['string', 'int64', 'float64', 'bool', 'timestamp', 'json'] -%}{%- do out.update({t: rt(t)}) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The test-fact columns (t_*) and source-fact columns (s_*) of hook_fact_columns, split. -#}
{% macro _hook_fact_names() %}
  {%- set test_cols, source_cols = [], [] -%}
  {%- for name, t in dataplex_dq.hook_fact_columns() -%}{%- do (test_cols if name.startswith('t_') else source_cols).append(name) -%}{%- endfor -%}
  {{ return((test_cols, source_cols)) }}
{% endmacro %}

{#- What to write (read by hook_write):
      tests:   per dataplex_dq test that ran, its facts as one row of SQL literals (`row`, in the
               order of the t_* columns) and its metrics: `branch`, a SELECT of its store_failures
               relation (rows of this invocation), or `declared`, the rows (texts) of its declared rules
               (a test that errored or was skipped left none);
      sources: per data source, its facts (hook_source_facts) as one row of SQL literals;
      job_ids: the jobs this invocation writes.
    Written for speed (a dbt macro call or a method call costs far more than a subscript or a
    filter): per test only subscripts, attribute reads and string filters, no macro call unless the
    test left no metrics row or has no name of its own. -#}
{% macro hook_plan(results, invocation, run_started) %}
  {%- set invocation_literal = dataplex_dq.string_literal(invocation) -%}
  {%- set read_branch = adapter.dispatch('hook_metrics_branch', 'dataplex_dq') -%}
  {%- set tests = [] -%}
  {%- set source_ids = [] -%}
  {%- set nodes = graph.nodes -%}
  {%- set ns = namespace(compile=none, execute=none, declared=none) -%}
  {#- the loop body sets its names unconditionally (an early `continue` instead of an enclosing `if`):
      Jinja looks a name set inside an `if` up in dbt's context first, on every pass (1,000 tests x 21
      names: ~0.2 s); the context's functions the loop calls are bound once, outside it, likewise -#}
  {%- set to_json, raise_error = tojson, exceptions.raise_compiler_error -%}
  {%- for r in results -%}
    {%- set uid = r.node.unique_id -%}
    {%- set node = nodes[uid] if uid in nodes else none -%}
    {%- set meta = node['test_metadata'] if node and 'test_metadata' in node else none -%}
    {%- if not meta or meta['namespace'] != 'dataplex_dq' -%}{%- continue -%}{%- endif -%}
    {%- set source_id = node['attached_node'] or ((node['depends_on']['nodes'] if node['depends_on'] else []) or ['unknown'])[0] -%}
    {%- if source_id not in source_ids -%}{%- do source_ids.append(source_id) -%}{%- endif -%}
    {%- set status = r.status | string | lower -%}
    {#- started: the compile step's start (else the execute step's), completed: the execute step's end
        (else the compile step's), as the report reads run_results.json -#}
    {%- set ns.compile, ns.execute = none, none -%}
    {%- for t in r.timing or [] -%}
      {%- if t.name == 'compile' -%}{%- set ns.compile = t -%}{%- elif t.name == 'execute' -%}{%- set ns.execute = t -%}{%- endif -%}
    {%- endfor -%}
    {%- set execute_t = ns.execute or ns.compile -%}
    {%- set compile_t = ns.compile or execute_t -%}
    {%- set started = compile_t.started_at if compile_t else none -%}
    {%- set completed = execute_t.completed_at if execute_t else none -%}
    {%- set evaluated = status in ('pass', 'fail', 'warn', 'success') -%}
    {%- if not evaluated and status not in ('error', 'runtime error', 'runtimeerror', 'skipped') -%}
      {{ raise_error("dataplex_dq on-run-end: data source " ~ source_id ~ ", test " ~ node['name'] ~ ": unknown dbt status '" ~ status ~ "'") }}
    {%- endif -%}
    {%- set relation_name = node['relation_name'] -%}
    {%- set test_type = meta['name'] -%}
    {%- set declared_name = dataplex_dq.rule_name_for(node, test_type, node['column_name'] or (meta['kwargs'] or {}).get('column'))
                            if test_type != 'data_quality_scan' and node['name'][:12] == 'dataplex_dq_' else node['name'] -%}
    {%- set no_row_message = "dbt reported `" ~ status ~ "` but the test left no metrics row in " ~ (relation_name or 'the warehouse') ~ ": keep `store_failures` enabled for dataplex_dq tests" -%}
    {#- what the test's query cost (python/dataplex_dq/run/cost.py): dbt's execution_time and adapter_response; a
        skipped test ran no query. As text, like every staged value (numbers: their Python text, as before).
        Subscripts rather than .get(): a method call costs ~10 us in dbt's sandbox, and this runs per test -#}
    {%- set response = (r.adapter_response or {}) if status != 'skipped' else {} -%}
    {%- set seconds = r.execution_time if status != 'skipped' else none -%}
    {%- set processed = response['bytes_processed'] if 'bytes_processed' in response else none -%}
    {%- set billed = response['bytes_billed'] if 'bytes_billed' in response else none -%}
    {%- set slot_ms = response['slot_ms'] if 'slot_ms' in response else none -%}
    {%- set branch = read_branch(relation_name, invocation_literal) if evaluated and relation_name else none -%}
    {%- if not branch and ns.declared is none -%}{%- set ns.declared = dataplex_dq.hook_declared_context() -%}{%- endif -%}
    {#- a test name the package does not have (`dataplex_dq.row_count_expectation`): dbt parses it and only fails
        to compile it, or skips it when its model failed; either way its rule is an ERROR that names the test -#}
    {%- set unknown = not branch and test_type not in ns.declared.tests -%}
    {#- with store_failures off there is no relation to read: as the Python report, an errored rule per declared rule -#}
    {%- set values = [
        uid, source_id, 'error' if unknown else status if (not evaluated or relation_name) else 'error',
        "dataplex_dq has no test '" ~ test_type ~ "'; its tests: " ~ (ns.declared.tests | join(', ')) if unknown
        else dataplex_dq.hook_short_message(r.message, node, test_type) if (not evaluated or relation_name) else no_row_message,
        (started | string)[:26] if started else none, (completed | string)[:26] if completed else none,
        declared_name, test_type if test_type != 'data_quality_scan' else none, no_row_message,
        none if seconds is none else seconds | string, none if processed is none else processed | string,
        none if billed is none else billed | string, none if slot_ms is none else slot_ms | string,
        to_json({'execution_time': r.execution_time, 'adapter_response': response}) if status != 'skipped' else none,
    ] -%}
    {%- do tests.append({'test': uid, 'source': source_id, 'rule': declared_name, 'row': values,
                         'chars': (values | select | join('  ') | length) * 2 + 100, 'branch': branch,
                         'declared': [] if branch else dataplex_dq.hook_declared_rows(node, uid, source_id, invocation, ns.declared)}) -%}
  {%- endfor -%}
  {%- set sources = {} -%}
  {%- set job_ids = [] -%}
  {%- if tests -%}
    {%- set scan_settings = dataplex_dq.hook_scan_settings(source_ids) -%}
    {%- set test_cols, source_cols = dataplex_dq._hook_fact_names() -%}
    {%- for source_id in source_ids -%}
      {%- set facts = dataplex_dq.hook_source_facts(source_id, scan_settings, invocation) -%}
      {%- do job_ids.append(facts.s_job_id) -%}
      {%- set values = [source_id] -%}
      {%- for name in source_cols -%}{%- do values.append(facts[name]) -%}{%- endfor -%}
      {%- do sources.update({source_id: values}) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return({'tests': tests, 'job_ids': job_ids, 'sources': sources, 'invocation': invocation, 'run_started': run_started}) }}
{% endmacro %}

{#- What reading declared rules needs, built once per hook (not per test or rule): the metrics columns, the rule
    types and row-level types, the package's test names and scan_rule_keys(). Each is a registry read: ~1-2 ms a
    call in dbt, per rule before. -#}
{% macro hook_declared_context() %}
  {%- set rule_types = dataplex_dq.hook_rule_type_display().keys() | list -%}
  {{ return({
      'columns': dataplex_dq.hook_metrics_columns(),
      'rule_types': rule_types,
      'tests': ['data_quality_scan', 'anomaly_detection'] + rule_types,
      'row_level': dataplex_dq.hook_row_level_types(),
      'scan_keys': dataplex_dq.scan_rule_keys(),
  }) }}
{% endmacro %}

{#- The metrics rows of the declared rules of a test that left none (errored or skipped): per rule a list of
    texts or none, in the order of hook_metrics_columns, written by hook_rows_sql with the other tests' (one
    packed literal on DuckDB; a UNION ALL of 1,000 literal SELECTs took DuckDB 2.5 s to bind). `ctx`:
    hook_declared_context(). Each value as its text, per rule only filters and tests (docs/BENCHMARKS.md, the
    on-run-end hook): none for NULL and for a declared number that is no finite number (YAML's .inf, .nan, a
    text: it belongs to a declaration that failed to compile, its rule is an ERROR). -#}
{% macro hook_declared_rows(node, uid, source_id, invocation, ctx) %}
  {%- set out = [] -%}
  {%- for index, spec, attributes in dataplex_dq.hook_declared_rules(node, ctx.scan_keys) -%}
    {%- set rule_type = (spec.keys() | select('in', ctx.rule_types) | list | first) -%}
    {%- set declared_threshold = spec.get('threshold') -%}
    {%- set threshold = ((declared_threshold | float) or 1.0) if (declared_threshold is not none and declared_threshold != '') else 1.0 -%}
    {%- set values = {
        'dq_invocation_id': invocation, 'dq_test_unique_id': uid, 'dq_data_source': source_id, 'rule_index': index,
        'rule_name': spec.name, 'rule_type': rule_type, 'rule_column': spec.get('column'), 'rule_dimension': spec.get('dimension'),
        'rule_threshold': threshold if rule_type in ctx.row_level else none,
        'rule_suspended': spec.get('suspended') or false,
        'rule_spec': tojson(spec), 'rule_attributes': tojson(dataplex_dq.string_map(attributes)) if attributes else none,
    } -%}
    {%- set row = [] -%}
    {%- for name, t in ctx.columns -%}
      {%- set value = values[name] if name in values else none -%}
      {%- if value is none
            or (t in ('int64', 'float64') and (value is not number or value is sameas true or value is sameas false
                                               or (value | string | lower) in ('inf', '-inf', 'nan'))) -%}
        {%- do row.append(none) -%}
      {%- elif t == 'bool' -%}
        {%- do row.append('true' if value else 'false') -%}
      {%- else -%}
        {%- do row.append(value | string) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- do out.append(row) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The metrics rows of some tests: a UNION ALL of their relations' rows of this invocation (and of
    the declared rules' rows of the tests that left none, through hook_rows_sql), in the order of hook_metrics_columns. -#}
{% macro hook_metrics_sql(tests, invocation) %}
  {#- the first (empty) SELECT names and types the columns; the relations' columns follow the same
      contract in the same order (macros/metrics.sql, metrics_columns) -#}
  {%- set sql_types = dataplex_dq.hook_types() -%}
  {%- set empty = [] -%}
  {%- for name, t in dataplex_dq.hook_metrics_columns() -%}{%- do empty.append('cast(null as ' ~ sql_types[t] ~ ') as ' ~ name) -%}{%- endfor -%}
  {%- set branches = ['select ' ~ (empty | join(', ')) ~ ' from ' ~ dataplex_dq.hook_one_row() ~ ' where 1 = 0'] -%}
  {%- set read = tests | selectattr('branch') | map(attribute='branch') | list -%}
  {%- if read -%}{%- do branches.append(dataplex_dq.hook_metrics_union(read, dataplex_dq.string_literal(invocation))) -%}{%- endif -%}
  {%- set declared = dataplex_dq.hook_declared_sql(tests) -%}
  {%- if declared -%}{%- do branches.append(declared) -%}{%- endif -%}
  {{ return(branches | join('\nunion all\n')) }}
{% endmacro %}

{#- The declared rules' rows of the tests that left none (hook_declared_rows), as one query in the contract's
    columns (hook_rows_sql), or none when every test left its metrics rows. -#}
{% macro hook_declared_sql(tests) %}
  {%- set declared = [] -%}
  {%- for test in tests if not test.branch -%}{%- do declared.extend(test.declared) -%}{%- endfor -%}
  {%- if not declared -%}{{ return(none) }}{%- endif -%}
  {%- set names, types = [], [] -%}
  {%- for name, t in dataplex_dq.hook_metrics_columns() -%}{%- do names.append(name) -%}{%- do types.append(t) -%}{%- endfor -%}
  {{ return('select * from (' ~ dataplex_dq.hook_rows_sql(names, types, declared) ~ ') as dq_declared') }}
{% endmacro %}

{#- DuckDB: the contract's columns, in order, of this invocation's packed rows (`packed_sql`: a query
    of one column dq_row). The rows are materialized first: DuckDB would otherwise evaluate the unpacking
    on each branch's one-row chunk (1,000 relations: ~1.5 CPU-s, against ~0.05 s over the collected
    rows); from_json parses each packed row once into a typed STRUCT (31 `->>` would parse it 31 times). -#}
{% macro duckdb__hook_unpack_sql(packed_sql, invocation_literal) %}
  {%- set sql_types = dataplex_dq.hook_types() -%}
  {%- set structure = {} -%}
  {%- set columns = [] -%}
  {%- for name, t in dataplex_dq.hook_metrics_columns() -%}
    {%- do structure.update({name: sql_types[t]}) -%}
    {%- do columns.append('dq_u.dq_m.' ~ name ~ ' as ' ~ name) -%}
  {%- endfor -%}
  {%- set sql -%}
select * from (
with dq_p as materialized (
{{ packed_sql }}
)
select {{ columns | join(', ') }}
from (select from_json(dq_p.dq_row, {{ dataplex_dq.string_literal(tojson(structure)) }}) as dq_m from dq_p) as dq_u
where dq_u.dq_m.dq_invocation_id = {{ invocation_literal }}
) as dq_read
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The facts (t_* columns) of some tests, one row each. -#}
{% macro hook_tests_sql(tests) %}
  {%- set test_cols, source_cols = dataplex_dq._hook_fact_names() -%}
  {%- set test_types = [] -%}
  {%- for name, t in dataplex_dq.hook_fact_columns() if name.startswith('t_') -%}{%- do test_types.append(t) -%}{%- endfor -%}
  {{ return(dataplex_dq.hook_rows_sql(test_cols, test_types, tests | map(attribute='row') | list)) }}
{% endmacro %}

{#- The staged rows: tests' facts LEFT JOINed to their metrics rows (t_* columns, then the metrics'). -#}
{% macro hook_staged_sql(tests_sql, metrics_sql) %}
  {{ return('select dq_t.*, dq_m.*\nfrom (\n' ~ tests_sql ~ '\n) as dq_t\nleft join (\n' ~ metrics_sql ~ '\n) as dq_m\non dq_m.dq_test_unique_id = dq_t.t_test_unique_id') }}
{% endmacro %}

{#- A one-row relation to select from (BigQuery has no FROM-less SELECT with WHERE ... it has, but
    the emulator and PostgreSQL agree on this form). -#}
{% macro hook_one_row() %}{{ return('(select 1 as dq_one) as dq_o') }}{% endmacro %}

{#- The data sources' facts as a query (s_key: the data source's unique id). -#}
{% macro hook_sources_sql(plan) %}
  {%- set test_cols, source_cols = dataplex_dq._hook_fact_names() -%}
  {%- set types = [] -%}
  {%- for name in ['s_key'] + source_cols -%}{%- do types.append('string') -%}{%- endfor -%}
  {{ return(dataplex_dq.hook_rows_sql(['s_key'] + source_cols, types, plan.sources.values() | list)) }}
{% endmacro %}

{#- Run the plan: delete this invocation's jobs, stage (when the tests do not fit one statement),
    insert the scored rows, commit. -#}
{% macro hook_write(plan, relation) %}
  {%- set limits = dataplex_dq.hook_limits() -%}
  {%- set groups = dataplex_dq.hook_groups(plan.tests, limits.max_chars, limits.max_relations) -%}
  {%- do dataplex_dq.hook_check_columns(plan, relation) -%}
  {%- do dataplex_dq.hook_begin() -%}
  {%- set stages = [] -%}
  {%- if groups | length == 1 -%}
    {%- set staged_sql = dataplex_dq.hook_staged_sql(dataplex_dq.hook_tests_sql(groups[0]), dataplex_dq.hook_metrics_sql(groups[0], plan.invocation)) -%}
  {%- else -%}
    {#- staging tables for the metrics rows and the tests' facts, filled batch by batch, then joined
        once (a join over a UNION ALL of hundreds of relations costs DuckDB's planner dearly); the
        tests' facts are not staged when all of them fit one statement beside the INSERT's text
        (DuckDB: always, its facts are one JSON literal) -#}
    {%- set facts_chars = plan.tests | sum(attribute='chars') -%}
    {%- set inline_facts = facts_chars + 100000 <= limits.max_chars -%}
    {%- set prefix = relation.identifier ~ '__hook_' ~ local_md5(plan.invocation)[:8] -%}
    {%- set stage_t = api.Relation.create(database=relation.database, schema=relation.schema, identifier=prefix ~ '_t') -%}
    {%- set stage_m = api.Relation.create(database=relation.database, schema=relation.schema, identifier=prefix ~ '_m') -%}
    {%- do stages.extend([stage_m] if inline_facts else [stage_t, stage_m]) -%}
    {%- for stage in stages -%}{%- do run_query(dataplex_dq.hook_drop_table_sql(stage)) -%}{%- endfor -%}
    {%- set read_state = dataplex_dq.hook_read_many_begin() -%}
    {%- for group in groups -%}
      {%- if not inline_facts -%}{%- do run_query(dataplex_dq.hook_stage_sql(stage_t, dataplex_dq.hook_tests_sql(group), loop.first)) -%}{%- endif -%}
      {%- do run_query(dataplex_dq.hook_stage_sql(stage_m, dataplex_dq.hook_stage_metrics_sql(group, plan.invocation), loop.first)) -%}
    {%- endfor -%}
    {%- do dataplex_dq.hook_read_many_end(read_state) -%}
    {%- set tests_sql = dataplex_dq.hook_tests_sql(plan.tests) if inline_facts else 'select * from ' ~ stage_t -%}
    {%- set staged_sql = dataplex_dq.hook_staged_sql(tests_sql, dataplex_dq.hook_staged_metrics_read(stage_m, plan.invocation)) -%}
  {%- endif -%}
  {%- set staged_sql = 'select dq_g.*, dq_s.*\nfrom (\n' ~ staged_sql ~ '\n) as dq_g\ninner join (\n' ~ dataplex_dq.hook_sources_sql(plan) ~ '\n) as dq_s\non dq_s.s_key = dq_g.t_data_source' -%}
  {%- for i in range(0, plan.job_ids | length, 1000) -%}
    {%- do run_query(dataplex_dq.delete_results_sql(relation, plan.job_ids[i:i + 1000])) -%}
  {%- endfor -%}
  {%- do run_query(dataplex_dq.hook_insert_sql(relation, staged_sql, plan)) -%}
  {#- the latest results table, then retention (macros/results/latest_results.sql), in the same transaction -#}
  {%- set latest = dataplex_dq.hook_latest_step(plan, relation) -%}
  {#- the retention step compiled only when the var is set (dbt compiles a macro the first time it is called) -#}
  {%- set retention_days = var('dataplex_dq_retention_days', none) -%}
  {%- if retention_days not in (none, '') -%}{%- do dataplex_dq.hook_retention_step(plan, relation, latest, retention_days) -%}{%- endif -%}
  {%- for stage in stages -%}{%- do run_query(dataplex_dq.hook_drop_table_sql(stage)) -%}{%- endfor -%}
  {%- do dataplex_dq.hook_commit() -%}
  {{ return(groups | length) }}
{% endmacro %}

{#- The tests in groups of at most `max_relations` relations and about `max_chars` characters. -#}
{% macro hook_groups(tests, max_chars, max_relations) %}
  {%- set groups = [] -%}
  {%- set ns = namespace(items=[], chars=0, relations=0) -%}
  {%- for test in tests -%}
    {%- set rels = 1 if test.branch else 0 -%}
    {#- a declared rule's row: its texts, each escaped at most to twice its length, and ~31 literals' syntax -#}
    {%- set chars = test.chars + ((test.branch or '') | length) + (test.declared | map('join', '  ') | join('') | length) * 2
                    + (test.declared | length) * 400 + 40 -%}
    {%- if ns.items and (ns.chars + chars > max_chars or ns.relations + rels > max_relations) -%}
      {%- do groups.append(ns.items) -%}
      {%- set ns.items, ns.chars, ns.relations = [], 0, 0 -%}
    {%- endif -%}
    {%- do ns.items.append(test) -%}
    {%- set ns.chars, ns.relations = ns.chars + chars, ns.relations + rels -%}
  {%- endfor -%}
  {%- if ns.items -%}{%- do groups.append(ns.items) -%}{%- endif -%}
  {{ return(groups) }}
{% endmacro %}

{#- Create the results table when it does not exist yet (ensure_results_table), and refuse, naming what
    would not be written, a results table without the columns the hook writes (an older package
    version's table outside dbt's model, or a relation of the same name). One metadata query when the
    table exists (a missing relation has no columns on every adapter). -#}
{% macro hook_check_columns(plan, relation) %}
  {%- set existing = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
  {%- if not existing and dataplex_dq.ensure_results_table(relation) -%}{{ return('') }}{%- endif -%}
  {%- set missing = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- if name not in existing -%}{%- do missing.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {%- if missing -%}
    {%- set rules = plan.tests | map(attribute='rule') | list -%}
    {{ exceptions.raise_compiler_error("dataplex_dq on-run-end: cannot write the results of data source(s) " ~ (plan.sources.keys() | list | join(', '))
        ~ " (rules " ~ (rules[:10] | join(', ')) ~ (', ...' if rules | length > 10 else '') ~ ") to " ~ relation ~ ": it lacks the column(s) "
        ~ (missing | join(', ')) ~ ". Build the package model dataplex_dq_results (`dbt build --select dataplex_dq_results`), then `dataplex-dq report`.") }}
  {%- endif -%}
{% endmacro %}

{% macro hook_drop_table_sql(stage) %}
  {{ return('drop table if exists ' ~ stage) }}
{% endmacro %}

{% macro hook_stage_sql(stage, body, first) %}
  {%- if first -%}{{ return('create table ' ~ stage ~ ' as\n' ~ body) }}{%- endif -%}
  {{ return('insert into ' ~ stage ~ '\n' ~ body) }}
{% endmacro %}

{#- The INSERT ... SELECT of the scored rows, from the staged rows (a query or a table). -#}
{% macro hook_insert_sql(relation, staged_sql, plan) %}
  {%- set row_level = "'" ~ (dataplex_dq.hook_row_level_types() | join("', '")) ~ "'" -%}
  {%- set dbl = dataplex_dq.type_double() -%}
  {%- set str = dbt.type_string() -%}
  {%- set evaluated = "r.dq_status in ('PASSED', 'FAILED')" -%}
  {%- set eval_row = evaluated ~ " and r.dq_row_level" -%}
  {%- set lit = dataplex_dq.string_literal -%}
  {%- set json_text = dataplex_dq.hook_json_text -%}
  {%- set json_string = dataplex_dq.json_text_field -%}
  {%- set struct_of = dataplex_dq.hook_struct -%}
  {%- set display = [] -%}
  {%- set params = [] -%}
  {%- for key, value in dataplex_dq.hook_rule_type_display().items() -%}
    {%- do display.append("when " ~ lit(key) ~ " then " ~ lit(value)) -%}
    {%- do params.append("when " ~ lit(key) ~ " then " ~ dataplex_dq.hook_json_member('r.rule_spec', key)) -%}
  {%- endfor -%}
  {%- set labels = tojson({'dbt_project': project_name, 'dbt_target': target.name}) -%}
  {%- set exprs = {
      'data_quality_scan': struct_of('data_quality_scan', {'resource_name': 'null', 'project_id': 'r.s_database', 'location': 'null', 'data_scan_id': 'r.s_scan_id', 'display_name': 'r.s_display_name'}),
      'data_source': struct_of('data_source', {'resource_name': 'r.s_resource_name', 'dataplex_entity_project_id': 'null', 'dataplex_entity_project_number': 'null',
                                                             'dataplex_lake_id': 'null', 'dataplex_zone_id': 'null', 'dataplex_entity_id': 'null', 'table_project_id': 'r.s_database',
                                                             'table_project_number': 'null', 'dataset_id': 'r.s_schema', 'table_id': 'r.s_identifier'}),
      'data_quality_job_id': 'r.s_job_id',
      'data_quality_job_configuration': json_text("r.s_config || ', \"incremental\": ' || case when j.dq_incr_field is null then 'false' else 'true' end"
                                                                   ~ " || ', \"incremental_column\": ' || case when j.dq_incr_field is null then 'null' else '\"' || j.dq_incr_field || '\"' end || '}'"),
      'job_labels': json_text(dataplex_dq.string_literal(labels)),
      'job_start_time': 'j.dq_start',
      'job_end_time': 'j.dq_end',
      'job_quality_result': struct_of('job_quality_result', {'passed': 'case when j.rules_evaluated > 0 then j.rules_failed = 0 end', 'score': dataplex_dq.score_percent('j.rules_passed', 'j.rules_evaluated'),
                                                                           'incremental_start': 'j.dq_incr_start', 'incremental_end': 'j.dq_incr_end'}),
      'job_dimension_result': json_text("'{' || coalesce(d.body, '') || '}'"),
      'job_rows_scanned': 'j.dq_rows_scanned',
      'rule_name': 'r.dq_rule_name',
      'rule_description': "case when trim(" ~ json_string('r.rule_spec', 'description') ~ ") <> '' then " ~ json_string('r.rule_spec', 'description') ~ " end",
      'rule_type': "case r.dq_rule_type " ~ (display | join(' ')) ~ " else r.dq_rule_type end",
      'rule_evaluation_type': "case when r.dq_row_level then 'Per row' else 'Aggregate' end",
      'rule_column': 'r.dq_column',
      'rule_dimension': 'r.dq_dimension',
      'rule_threshold_percent': "case when r.dq_row_level then " ~ dataplex_dq.hook_round6('r.dq_threshold * 100') ~ " end",
      'rule_parameters': "case r.dq_rule_type " ~ (params | join(' ')) ~ " end",
      'rule_passed': "case r.dq_status when 'PASSED' then true when 'FAILED' then false end",
      'rule_rows_evaluated': "case when " ~ eval_row ~ " then r.evaluated_count end",
      'rule_rows_passed': "case when " ~ eval_row ~ " then r.passed_count end",
      'rule_rows_passed_percent': "case when " ~ eval_row ~ " then r.pass_ratio * 100 end",
      'rule_rows_null': "case when " ~ evaluated ~ " then r.null_count end",
      'rule_failed_records_query': "case when " ~ eval_row ~ " then r.failing_rows_query end",
      'created_on': 'j.dq_start',
      'last_updated': 'j.dq_end',
      'rule_assertion_row_count': "case when " ~ evaluated ~ " then r.assertion_row_count end",
      'debug_queries': dataplex_dq.hook_debug_queries('r.rule_spec'),
      'rule_suspended': "r.dq_status = 'SUSPENDED'",
      'rule_attributes': json_text("case when r.rule_attributes <> '{}' then r.rule_attributes end"),
      'rule_status': 'r.dq_status',
      'rule_message': "case when r.dq_status in ('ERROR', 'SKIPPED') then case when r.rule_name is null and r.t_status in ('pass', 'fail', 'warn', 'success') then r.t_no_row_message else r.t_message end end",
      'rule_statistic_value': "case when " ~ evaluated ~ " then r.statistic_value end",
      'job_row_weighted_score': dataplex_dq.score_percent('j.dq_rows_passed', 'j.dq_rows_evaluated'),
      'dbt_invocation_id': dataplex_dq.string_literal(plan.invocation),
      'dbt_test_unique_id': 'coalesce(r.dq_test_unique_id, r.t_test_unique_id)',
      'dbt_node_unique_id': 'r.t_data_source',
      'job_notification_result': json_text('cast(null as ' ~ str ~ ')'),
      'rule_statistic_value_text': "case when " ~ evaluated ~ " then r.statistic_value_text end",
      'dbt_target': dataplex_dq.string_literal(target.name),
      'job_declared_rules': 'r.s_declared_rules',
      'job_declared_rule_count': 'cast(r.s_declared_count as ' ~ dataplex_dq.results_type('int64') ~ ')',
      'job_run_rule_count': 'j.dq_run_rules',
      'rule_execution_seconds': 'case when tc.c_rules = 1 then r.t_execution_seconds end',
      'rule_bytes_processed': 'case when tc.c_rules = 1 then r.t_bytes_processed end',
      'rule_bytes_billed': 'case when tc.c_rules = 1 then r.t_bytes_billed end',
      'rule_slot_ms': 'case when tc.c_rules = 1 then r.t_slot_ms end',
      'job_execution_seconds': 'jc.c_seconds',
      'job_bytes_processed': 'jc.c_bytes_processed',
      'job_bytes_billed': 'jc.c_bytes_billed',
      'job_slot_ms': 'jc.c_slot_ms',
      'job_query_count': 'jc.c_queries',
      'dbt_test_cost': json_text('r.t_cost'),
  } -%}
  {%- set int64 = dataplex_dq.results_type('int64') -%}
  {#- dq_rules feeds the jobs, costs, dimensions and the final select: evaluated once where the
      warehouse can be told (DuckDB inlined it per reference here: 1,000 tests' 5,000 rows, the INSERT
      0.10 s -> 0.05 s) -#}
  {%- set materialized = adapter.dispatch('scan_cte_materialized', 'dataplex_dq')() -%}
  {%- set materialized = materialized ~ ' ' if materialized else '' -%}
  {%- set names = [] -%}
  {%- set selects = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- if name not in exprs -%}
      {{ exceptions.raise_compiler_error("dataplex_dq.on_run_end: results column " ~ name ~ " has no expression in hook_insert_sql (macros/results/on_run_end.sql); add one when adding a column") }}
    {%- endif -%}
    {%- do names.append(name) -%}
    {%- do selects.append(exprs[name] ~ " as " ~ name) -%}
  {%- endfor -%}
  {%- set sql -%}
insert into {{ relation }} ({{ names | join(', ') }})
with dq_staged as (
{{ staged_sql }}
),
dq_rules as {{ materialized }}(
    select
        s.*,
        coalesce(s.rule_name, s.t_declared_name) as dq_rule_name,
        coalesce(s.rule_type, s.t_declared_type) as dq_rule_type,
        coalesce(s.rule_type, s.t_declared_type) in ({{ row_level }}) as dq_row_level,
        case when trim(coalesce(s.rule_column, '')) <> '' then s.rule_column end as dq_column,
        case when trim(coalesce(s.rule_dimension, '')) <> '' then s.rule_dimension end as dq_dimension,
        s.rule_threshold as dq_threshold,
        case
            when s.rule_suspended then 'SUSPENDED'  {#- never evaluated: also when its test errored or was skipped -#}
            when s.t_status in ('error', 'runtime error', 'runtimeerror') then 'ERROR'
            when s.t_status = 'skipped' then 'SKIPPED'
            when s.rule_name is null then 'ERROR'
            when s.rule_status is not null then upper(s.rule_status)
            when s.passed then 'PASSED'
            else 'FAILED'
        end as dq_status
    from dq_staged as s
),
dq_jobs as (
    select
        t_data_source,
        {{ dataplex_dq.rule_count_columns('dq_status') }},
        coalesce(min(t_started_at), {{ dataplex_dq.hook_timestamp_sql(plan.run_started) }}) as dq_start,
        coalesce(max(t_completed_at), {{ dataplex_dq.current_timestamp_utc() }}) as dq_end,
        max(row_count) as dq_rows_scanned,
        count(*) as dq_run_rules,
        max(incremental_field) as dq_incr_field,
        case when count(case when incremental_field is not null and incremental_start is null then 1 end) = 0
            then min(case when incremental_field is not null then incremental_start end) end as dq_incr_start,
        max(case when incremental_field is not null then incremental_end end) as dq_incr_end,
        sum(case when dq_status in ('PASSED', 'FAILED') and dq_row_level then coalesce(evaluated_count, 0) else 0 end) as dq_rows_evaluated,
        sum(case when dq_status in ('PASSED', 'FAILED') and dq_row_level then coalesce(passed_count, 0) else 0 end) as dq_rows_passed
    from dq_rules
    group by t_data_source
),
dq_test_costs as (
    {#- cost (docs/SEMANTICS.md §9): each test once, with how many rules shared its query -#}
    select
        t_data_source,
        t_test_unique_id,
        max(t_execution_seconds) as c_seconds,
        max(t_bytes_processed) as c_bytes_processed,
        max(t_bytes_billed) as c_bytes_billed,
        max(t_slot_ms) as c_slot_ms,
        max(case when t_status <> 'skipped' then 1 else 0 end) as c_ran,
        count(*) as c_rules
    from dq_rules
    group by t_data_source, t_test_unique_id
),
dq_job_costs as (
    select
        t_data_source,
        sum(c_seconds) as c_seconds,
        cast(sum(c_bytes_processed) as {{ int64 }}) as c_bytes_processed,
        cast(sum(c_bytes_billed) as {{ int64 }}) as c_bytes_billed,
        cast(sum(c_slot_ms) as {{ int64 }}) as c_slot_ms,
        cast(sum(c_ran) as {{ int64 }}) as c_queries
    from dq_test_costs
    group by t_data_source
),
dq_dimension_counts as (
    select
        t_data_source,
        dq_dimension,
        {{ dataplex_dq.rule_count_columns('dq_status') }}
    from dq_rules
    where dq_dimension is not null and dq_status in ('PASSED', 'FAILED')
    group by t_data_source, dq_dimension
),
dq_dimension_scores as (
    select
        c.t_data_source,
        c.dq_dimension,
        {{ dataplex_dq.group_score_columns('c') }}
    from dq_dimension_counts as c
),
dq_dimensions as (
    select
        t_data_source,
        string_agg('"' || dq_dimension || '":{"passed":' || case when passed then 'true' else 'false' end
                   || ',"score":' || cast(score as {{ str }}) || '}', ',' order by dq_dimension) as body
    from dq_dimension_scores
    group by t_data_source
)
select
    {{ selects | join(',\n    ') }}
from dq_rules as r
inner join dq_jobs as j
    on r.t_data_source = j.t_data_source
left join dq_dimensions as d
    on r.t_data_source = d.t_data_source
inner join dq_test_costs as tc
    on r.t_data_source = tc.t_data_source and r.t_test_unique_id = tc.t_test_unique_id
inner join dq_job_costs as jc
    on r.t_data_source = jc.t_data_source
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{% macro hook_timestamp_sql(value) %}
  {%- set text = dataplex_dq.hook_timestamp(value) -%}
  {{ return('cast(' ~ dataplex_dq.string_literal(text) ~ ' as ' ~ dataplex_dq.results_type('timestamp') ~ ')' if text else dataplex_dq.current_timestamp_utc()) }}
{% endmacro %}

{#- ---------------------------------------------------------------- per-warehouse constructors -#}

{% macro hook_struct_fields(column) %}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- if name == column -%}{{ return(t.struct) }}{%- endif -%}
  {%- endfor -%}
  {{ exceptions.raise_compiler_error("dataplex_dq: results column " ~ column ~ " is not a STRUCT") }}
{% endmacro %}

{#- ---------------------------------------------------------------- the debug queries' results -#}

{#- The writer's last step (docs/ARCHITECTURE.md, "The results table: one writer"): each FAILED rule's
    debug queries (declared in the project, `${data()}` expanded when the rule compiled, read from the
    rule's metrics row, never from the results table) are run, and the first row of each (at most 10
    columns, each value as text with its BigQuery type name) is set into the rule's `debug_queries`.
    Runs after the rows are committed, so a debug query that fails cannot lose them. Returns how many
    rules it ran queries for. -#}
{% macro hook_debug_step(plan, relation) %}
  {%- set failing = [] -%}
  {%- for test in plan.tests if test.branch and test.row[2] in ('fail', 'warn') -%}{%- do failing.append(test) -%}{%- endfor -%}
  {{ return(dataplex_dq.hook_debug_run(plan, relation, failing) if failing else 0) }}
{% endmacro %}

{#- hook_debug_step's work, in a macro of its own: dbt compiles it only when a test failed -#}
{% macro hook_debug_run(plan, relation, failing) %}
  {%- set limits = dataplex_dq.hook_limits() -%}
  {%- set updates = [] -%}
  {%- for group in dataplex_dq.hook_groups(failing, limits.max_chars, limits.max_relations) -%}
    {%- set found = run_query('select dq_d.dq_test_unique_id, dq_d.dq_data_source, dq_d.rule_name, dq_d.rule_status, dq_d.rule_suspended, dq_d.passed, dq_d.rule_spec, dq_d.debug_queries_sql from (\n'
                              ~ dataplex_dq.hook_metrics_sql(group, plan.invocation) ~ '\n) as dq_d where dq_d.debug_queries_sql is not null') -%}
    {%- for row in found.rows -%}
      {%- set status = (row[3] | upper) if row[3] else ('SUSPENDED' if row[4] else ('PASSED' if row[5] else 'FAILED')) -%}
      {%- if status == 'FAILED' -%}
        {%- set runnable = fromjson(row[7]) -%}
        {%- set declared = (fromjson(row[6]) or {}).get('debug_queries') or [] -%}
        {%- set value = [] -%}
        {%- for q in declared -%}
          {%- set results = dataplex_dq.hook_debug_query_results(runnable[loop.index0].sql_statement) if loop.index0 < runnable | length else [] -%}
          {%- do value.append({'description': q.get('description'), 'sql_statement': q.get('sql_statement') or q.get('sqlStatement'), 'debug_query_results': results}) -%}
        {%- endfor -%}
        {%- do updates.append(dataplex_dq.hook_debug_update_sql(relation, dataplex_dq.job_id(plan.invocation, row[1]), row[0], row[2], tojson(value))) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if updates -%}
    {%- do dataplex_dq.hook_begin() -%}
    {%- for sql in updates -%}{%- do run_query(sql) -%}{%- endfor -%}
    {%- do dataplex_dq.hook_commit() -%}
  {%- endif -%}
  {{ return(updates | length) }}
{% endmacro %}

{#- The first row of one debug query as [{name, type, value}], at most 10 columns: type the BigQuery
    name of the column's type as dbt reads it (agate), value the text of the value (NULL stays null). -#}
{% macro hook_debug_query_results(sql) %}
  {%- set types = {'Number': 'NUMERIC', 'Text': 'STRING', 'Boolean': 'BOOL', 'Date': 'DATE', 'DateTime': 'TIMESTAMP', 'TimeDelta': 'INTERVAL'} -%}
  {%- set table = run_query(sql) -%}
  {%- set first = table.rows[0] if table.rows | length > 0 else none -%}
  {%- set out = [] -%}
  {%- for name in table.column_names[:10] -%}
    {#- agate's type object prints as <agate.data_types.<module>.<Type> object ...>: its class name -#}
    {%- set kind = modules.re.search('\\.(\\w+) object', table.column_types[loop.index0] | string) -%}
    {%- set kind = kind.group(1) if kind else 'Text' -%}
    {%- set v = first[loop.index0] if first is not none else none -%}
    {%- do out.append({'name': name, 'type': types.get(kind, kind | upper), 'value': none if v is none else v | string}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- Set one rule's debug_queries (a JSON text of the column's value) in the results table. -#}
{% macro hook_debug_update_sql(relation, job_id, test_id, rule_name, value_json) %}
  {%- set lit = dataplex_dq.string_literal -%}
  {{ return(dataplex_dq.update_results_sql(relation, 'debug_queries = ' ~ adapter.dispatch('debug_queries_value_sql', 'dataplex_dq')(lit(value_json)),
            'data_quality_job_id = ' ~ lit(job_id) ~ ' and dbt_test_unique_id = ' ~ lit(test_id) ~ ' and rule_name = ' ~ lit(rule_name))) }}
{% endmacro %}

{#- The debug_queries column's value from a JSON text literal: PostgreSQL stores it as jsonb, DuckDB as a
    LIST of STRUCTs (from_json with the column's structure), BigQuery as an ARRAY of STRUCTs built field by
    field (bigquery_json_extract). -#}
{% macro debug_queries_type() %}
  {%- for name, t in dataplex_dq.results_columns() if name == 'debug_queries' -%}{{ return(t) }}{%- endfor -%}
{% endmacro %}

{#- dbt's message of a test as the rule's message: a long generated test name (and its unique_id) in it shortened
    (short_test_name: dbt names an unnamed scan after all its arguments, kilobytes), the whole bounded to 2,000
    characters (a warehouse error can quote the whole compiled SQL). -#}
{% macro hook_short_message(message, node, test_type) %}
  {%- if not message -%}{{ return(message) }}{%- endif -%}
  {%- set text = message | string -%}
  {%- if (node['name'] | length) > 80 -%}
    {%- set short = dataplex_dq.short_test_name(node, test_type) -%}
    {%- set text = text.replace(node['unique_id'], short).replace(node['name'], short) -%}
  {%- endif -%}
  {{ return(text if (text | length) <= 2000 else text[:1999] ~ '…') }}
{% endmacro %}
