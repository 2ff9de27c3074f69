{#- Where a rule runs: the dbt test node, the data source it is attached to, the scan-level settings
    of that data source, and the column types used to convert bounds. -#}

{#- The dbt test node being compiled. Inside a generic test `model` is the tested relation, but in a
    macro called from it the context's `model` is the test node itself. -#}
{% macro current_test_node() %}{{ return(model) }}{% endmacro %}

{#- The manifest node (model, seed, snapshot) or source the test is attached to. -#}
{% macro data_source_node(test_node) %}
  {%- set uid = test_node.get('attached_node') -%}
  {%- if not uid -%}
    {%- set deps = test_node.get('depends_on', {}).get('nodes', []) -%}
    {%- set uid = deps[0] if deps | length > 0 else none -%}
  {%- endif -%}
  {%- if uid and uid in graph.nodes -%}{{ return(graph.nodes[uid]) }}{%- endif -%}
  {%- if uid and uid in graph.sources -%}{{ return(graph.sources[uid]) }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- Why `source_node` (data_source_node) cannot be a data source, or none: no node, or an ephemeral model
    (a CTE inlined into its consumers: no table or view for a scan to read, nor columns to check). -#}
{% macro data_source_problem(source_node) %}
  {%- if source_node is none -%}{{ return("the test is not attached to a model, seed, snapshot or source") }}{%- endif -%}
  {%- if (source_node.get('config') or {}).get('materialized') == 'ephemeral' -%}
    {{ return(source_node.resource_type ~ " '" ~ source_node.name ~ "' is ephemeral: it has no table or view in the warehouse to scan; materialize it as a view or table (config: materialized) to check its data") }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- Whether this invocation's results are recorded (the results table, anomaly history): `dbt build`,
    `test` or `retry`, executing, and not `--empty` (dbt then reads every relation with limit 0: a check of
    the SQL, whose zero rows would enter the history as a real measurement). -#}
{% macro records_results() %}
  {{ return(execute and (flags.WHICH | default('')) in ['build', 'test', 'retry'] and not (flags.EMPTY | default(false))) }}
{% endmacro %}

{#- The `meta: dataplex_dq:` block of a data source (config.meta in dbt >= 1.10, or top-level meta). -#}
{% macro data_source_settings(source_node) %}
  {%- if source_node is none -%}{{ return({}) }}{%- endif -%}
  {%- set cfg_meta = (source_node.get('config') or {}).get('meta') or {} -%}
  {%- set meta = source_node.get('meta') or {} -%}
  {%- set settings = cfg_meta.get('dataplex_dq') or meta.get('dataplex_dq') or {} -%}
  {#- nothing to normalize in the common case (no settings): spec_snake_case and the field registry it
      reads cost ~2 ms a call, and the on-run-end hook asks once per data source -#}
  {%- if not settings -%}{{ return({}) }}{%- endif -%}
  {#- either casing at every depth (postScanActions.bigqueryExport.resultsTable), as in a spec file -#}
  {{ return(dataplex_dq.spec_snake_case(settings, {'source': source_node.get('resource_type', '') ~ " '" ~ source_node.get('name', '') ~ "'", 'rule': 'meta.dataplex_dq', 'test': 'meta.dataplex_dq', 'label': 'meta.dataplex_dq'})) }}
{% endmacro %}

{#- The data source's relation as the test's own `model` resolves it: through ref() / source() while dbt
    executes, so that `--defer` (a model not built in this target: read from the deferred state's relation,
    as `model` is) and `--empty` reach the metadata queries too (column types, key ranges, the incremental
    window, table size); from the node's own fields otherwise (for adapter introspection outside a test). -#}
{% macro data_source_relation(source_node) %}
  {%- if execute and source_node.resource_type in ('model', 'seed', 'snapshot') -%}
    {%- if source_node.get('version') is not none -%}
      {{ return(ref(source_node.package_name, source_node.name, v=source_node.version)) }}
    {%- endif -%}
    {{ return(ref(source_node.package_name, source_node.name)) }}
  {%- elif execute and source_node.resource_type == 'source' -%}
    {{ return(source(source_node.source_name, source_node.name)) }}
  {%- endif -%}
  {%- set identifier = source_node.get('alias') or source_node.get('identifier') or source_node.get('name') -%}
  {{ return(api.Relation.create(database=source_node.get('database'), schema=source_node.get('schema'), identifier=identifier)) }}
{% endmacro %}

{#- {column name, as the warehouse has it: data type} of a relation. One metadata query. -#}
{% macro column_types(relation) %}
  {%- set types = {} -%}
  {%- for col in adapter.get_columns_in_relation(relation) -%}
    {%- do types.update({col.name: col.data_type}) -%}
  {%- endfor -%}
  {{ return(types) }}
{% endmacro %}

{#- The column name dbt gives a test declared under a column with `quote: true` ("User Name", or
    `User Name` on BigQuery), without the quotes: the name Dataplex and the results know it by. Any other
    name as it is. The rule's SQL finds the real column by exact match first (resolve_column). -#}
{% macro bare_column(name) %}
  {%- if name is string and (name | length) > 1 and ((name.startswith('"') and name.endswith('"')) or (name.startswith('`') and name.endswith('`'))) -%}
    {{ return(name[1:-1]) }}
  {%- endif -%}
  {{ return(name) }}
{% endmacro %}

{#- The relation's real column a declared column name refers to, the way the warehouse resolves it:
    an exact match first, then the warehouse's own folding (resolve_column_folded); none when no
    column matches. A name given quoted ("X" or `X`) is matched exactly, as the warehouse would. -#}
{% macro resolve_column(declared, names) %}
  {%- set name = declared | string -%}
  {%- set bare = dataplex_dq.bare_column(name) -%}
  {%- if bare != name -%}{{ return(bare if bare in names else none) }}{%- endif -%}  {#- given quoted: exactly -#}
  {%- if name in names -%}{{ return(name) }}{%- endif -%}
  {{ return(adapter.dispatch('resolve_column_folded', 'dataplex_dq')(name, names)) }}
{% endmacro %}

{#- The rule's column as SQL: the relation's real column (resolved by checked_column_type), quoted. -#}
{% macro column_sql(rule) %}
  {%- if not rule.column -%}{{ return(none) }}{%- endif -%}
  {#- quote characters inside the name escaped (adapter.quote does not): dataplex_dq.quote_column -#}
  {%- if rule.get('column_resolved') -%}
    {#- quoted once per rule (the rule's SQL asks for its column several times) -#}
    {%- if rule.get('column_resolved_sql') is none -%}
      {%- do rule.update({'column_resolved_sql': adapter.dispatch('quote_column', 'dataplex_dq')(rule.get('column_resolved'))}) -%}
    {%- endif -%}
    {{ return(rule.get('column_resolved_sql')) }}
  {%- endif -%}
  {{ return(dataplex_dq.quote_column(rule.column)) }}
{% endmacro %}

{#- Rule name: the dbt test's own name when the user gave one; otherwise a stable valid Dataplex name
    derived from the rule type, the column and the test's unique id. -#}
{% macro rule_name_for(test_node, rule_type, column) %}
  {%- set name = test_node.get('name') or '' -%}
  {%- if not name.startswith('dataplex_dq_' ~ rule_type) -%}{{ return(name) }}{%- endif -%}  {#- rule_name_is_given -#}
  {%- set digest = local_md5(test_node.get('unique_id') or name)[:6] -%}
  {%- set base = rule_type.replace('_expectation', '').replace('_', '-') -%}
  {%- if column -%}
    {%- set col = modules.re.sub('[^A-Za-z0-9]+', '-', column | string).strip('-') | lower -%}
    {%- set base = (base ~ '-' ~ col)[:55].strip('-') -%}
  {%- endif -%}
  {{ return(base ~ '-' ~ digest) }}
{% endmacro %}

{#- Whether the test was declared with `name:` (dbt names it `dataplex_dq_<rule type>_...` otherwise). -#}
{% macro rule_name_is_given(test_node, rule_type) %}
  {{ return(not (test_node.get('name') or '').startswith('dataplex_dq_' ~ rule_type)) }}
{% endmacro %}

{#- The relation dbt stores the metrics row(s) in: short, unique per test, safe on every warehouse. -#}
{% macro metrics_alias(test_node) %}
  {%- set name = test_node.get('name') or 'rule' -%}
  {%- set readable = modules.re.sub('[^A-Za-z0-9]+', '_', name).strip('_')[:40] | lower -%}
  {{ return('dq_' ~ readable ~ '_' ~ local_md5(test_node.get('unique_id') or name)[:8]) }}
{% endmacro %}

{#- The dbt config every dataplex_dq test shares (per-rule tests, data_quality_scan, anomaly_detection):
    dbt keeps the metrics row(s) in the warehouse (store_failures, as a table, under metrics_alias) and
    counts the rules that did not pass as the test's failures. When dbt parses the project (`execute`
    false) it also records the identity of the test's rules in its config.meta (macros/identity.sql):
    `rules`, computed by the test from its arguments, or the test's own rule name. -#}
{% macro metrics_test_config(test_node, rules=none, declaration=none) %}
  {%- set meta = {} if execute else {dataplex_dq.identity_meta_key(): rules if rules is not none else dataplex_dq.test_identity(test_node)} -%}
  {%- if declaration is not none -%}{%- do meta.update({dataplex_dq.declaration_meta_key(): declaration}) -%}{%- endif -%}
  {{ config(
      store_failures=true,
      store_failures_as='table',
      fail_calc='coalesce(sum(case when passed then 0 else 1 end), 0)',
      alias=dataplex_dq.metrics_alias(test_node),
      meta=meta
  ) }}
{% endmacro %}
