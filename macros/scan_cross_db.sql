{#- Cross-database helpers of the fused data_quality_scan (macros/scan.sql). Each is dispatched:
    dataplex_dq.<name>() -> adapter.dispatch('<name>', 'dataplex_dq') -> default__ / duckdb__ / ... -#}

{#- How the scan counts uniqueness, in the same query as every other rule:
      'window'            count(*) over (partition by col) in a projection of the scope, then
                          sum(case when col is not null and cnt = 1 ...) in the one aggregate query:
                          one pass over the table on any warehouse;
      'grouped'           per column a grouped count (select col ... group by col having count(*) = 1)
                          over the scope CTE, inlined: the aggregate reads the table once and each
                          grouped count reads its one column again;
      'grouped_one_scan'  the same grouped counts over the scope CTE materialized: DuckDB 2.x reads the
                          table once and streams it to the aggregate and to every grouped count.
    Measured on DuckDB, 10M rows, 20 rules incl. 2 uniqueness columns (integration_tests/benchmarks):
    'grouped' ~0.95x the hand-written single statement, 'grouped_one_scan' ~1.3x, 'window' ~2.6x (the
    window sorts the whole scope per column; a re-read of one in-memory column costs next to nothing).
    So DuckDB uses 'grouped' (with sampling the scope is materialized, so every rule sees the same
    sample); other warehouses, where a CTE may be evaluated once per reference, use 'window'.
    Override with the var `dataplex_dq_scan_uniqueness: window | grouped | grouped_one_scan`. -#}
{% macro scan_uniqueness_strategy() %}
  {%- set forced = var('dataplex_dq_scan_uniqueness', none) -%}
  {%- if forced is not none -%}
    {%- if forced not in ['window', 'grouped', 'grouped_one_scan'] -%}
      {{ exceptions.raise_compiler_error("dataplex_dq: var dataplex_dq_scan_uniqueness must be 'window', 'grouped' or 'grouped_one_scan', got '" ~ forced ~ "'") }}
    {%- endif -%}
    {{ return(forced) }}
  {%- endif -%}
  {{ return(adapter.dispatch('scan_uniqueness_strategy', 'dataplex_dq')()) }}
{% endmacro %}
{% macro default__scan_uniqueness_strategy() %}{{ return('window') }}{% endmacro %}
{% macro duckdb__scan_uniqueness_strategy() %}{{ return('grouped') }}{% endmacro %}

{#- The strategy for one uniqueness column of `data_type` (the warehouse type, or none when unknown):
    the scan's strategy, unless the warehouse cannot partition a window by that type; then the grouped
    count, which every warehouse accepts for a groupable type. -#}
{% macro scan_column_uniqueness_strategy(strategy, data_type) %}
  {%- if strategy == 'window' and not dataplex_dq.window_partitionable(data_type) -%}{{ return('grouped') }}{%- endif -%}
  {{ return(strategy) }}
{% endmacro %}

{#- Whether `partition by <column of data_type>` is valid in a window (unknown types: assumed valid). -#}
{% macro window_partitionable(data_type) %}{{ return(adapter.dispatch('window_partitionable', 'dataplex_dq')(data_type)) }}{% endmacro %}
{% macro default__window_partitionable(data_type) %}{{ return(true) }}{% endmacro %}
{% macro bigquery__window_partitionable(data_type) %}
  {#- BigQuery: "Partitioning by expressions of type FLOAT64 is not allowed"; GROUP BY accepts FLOAT64,
      so a FLOAT64 column is counted with a grouped count. (ARRAY, JSON and GEOGRAPHY columns can be
      neither partitioned nor grouped: uniqueness on them fails on BigQuery either way.) -#}
  {%- if data_type is none -%}{{ return(true) }}{%- endif -%}
  {{ return(modules.re.match('^(float64|float|double)\\b', (data_type | string | trim | lower)) is none) }}
{% endmacro %}

{#- The groupings by one key that several rules of a scan share, so the warehouse groups by that key once:
    {keys: {quoted column: true}, assertions: {rule index: {key: quoted column, nulls_counted}}}. The
    uniqueness rules on a column and every SQL assertion whose statement is a duplicate-key statement
    on the same column (duplicate_key_assertion, macros/rules/sql_assertion.sql) then read one grouped
    count (scan_key_grouping, macros/scan.sql) instead of each grouping the table again. -#}
{% macro scan_shared_groupings(rules, ctx, strategy) %}
  {{ return(adapter.dispatch('scan_shared_groupings', 'dataplex_dq')(rules, ctx, strategy)) }}
{% endmacro %}
{#- Other warehouses: nothing shared. Their uniqueness is a window ('window' strategy), which cannot
    give a count of duplicated values without a second distinct aggregate, and the assertion stays a
    statement of its own (on BigQuery it bills its column once more either way). -#}
{% macro default__scan_shared_groupings(rules, ctx, strategy) %}{{ return({'keys': {}, 'assertions': {}}) }}{% endmacro %}

{#- DuckDB (grouped strategies only): a uniqueness count and a duplicate-key SQL assertion on `id` were
    two hash aggregates of ~N groups (10M rows: ~0.55 s of the scan's ~3 s, perfect-hashed), where one
    grouping answers both. An assertion is answered from the scan's grouping only when its statement
    provably has the same rows: the exact shape of duplicate_key_assertion, its key a column of the data
    source, and its relation either `${data()}` (the scan's own scope, whatever the row filter, sampling
    or incremental window) or a name that binds to the data source itself while the scope is the whole
    relation (no row filter, sampling or window; duckdb_names_relation). Anything else runs as written.
    A key is shared when at least two rules need it (uniqueness rules on one column count once). -#}
{% macro duckdb__scan_shared_groupings(rules, ctx, strategy) %}
  {%- set out = {'keys': {}, 'assertions': {}} -%}
  {%- if not execute or strategy not in ['grouped', 'grouped_one_scan'] -%}{{ return(out) }}{%- endif -%}
  {%- set candidates = [] -%}
  {%- for rule in rules -%}  {#- (no loop filter: loop.index0 is the rule index) -#}
    {%- if rule.rule_type == 'sql_assertion' and not rule.suspended -%}
      {%- set shape = dataplex_dq.duplicate_key_assertion(rule.params.sql_statement) -%}
      {%- if shape is not none -%}{%- do candidates.append((loop.index0, shape)) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if (candidates | length) == 0 -%}{{ return(out) }}{%- endif -%}
  {%- set types = ctx.get('column_types') -%}
  {%- if types is none and ctx.get('source_node') is not none -%}
    {%- set types = dataplex_dq.cached_column_types(ctx.source_node) -%}
  {%- endif -%}
  {%- if not types or ctx.get('source_node') is none -%}{{ return(out) }}{%- endif -%}
  {%- set relation = dataplex_dq.data_source_relation(ctx.source_node) -%}
  {%- set sampled = ctx.sampling_percent and ctx.sampling_percent < 100 -%}
  {%- set whole_relation = not ctx.row_filter and not sampled and (ctx.from_sql | string) == (relation | string) -%}
  {%- set consumers = {} -%}
  {%- for rule in rules if rule.rule_type == 'uniqueness_expectation' and not rule.suspended -%}
    {%- do consumers.update({dataplex_dq.column_sql(rule): 1}) -%}
  {%- endfor -%}
  {%- set found = {} -%}
  {%- for index, shape in candidates -%}
    {%- set column = dataplex_dq.resolve_column(shape.column, types.keys() | list) -%}
    {%- if column is not none and (shape.source == 'data' or (whole_relation and dataplex_dq.duckdb_names_relation(shape.source, relation))) -%}
      {%- set key = dataplex_dq.quote_column(column) -%}
      {%- do found.update({index: {'key': key, 'nulls_counted': shape.nulls_counted}}) -%}
      {%- do consumers.update({key: (consumers.get(key) or 0) + 1}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for key, n in consumers.items() if n > 1 -%}{%- do out['keys'].update({key: true}) -%}{%- endfor -%}
  {%- for index, shared in found.items() if shared.key in out['keys'] -%}{%- do out['assertions'].update({index: shared}) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- Whether a relation name of an SQL statement (1 to 3 unquoted parts) binds, on this DuckDB connection,
    to `relation` and nothing else: three parts equal to its database, schema and name; one or two parts
    (schema.name) only when the connection's default database and schema are the relation's, the
    search_path is DuckDB's default, and no other table or view of that name exists in any attached
    database or schema (temp included): then the name can only mean the relation. One metadata query. -#}
{% macro duckdb_names_relation(parts, relation) %}
  {%- set name = (relation.identifier or '') | lower -%}
  {%- if not name or (parts[-1] | lower) != name or not relation.database or not relation.schema -%}{{ return(false) }}{%- endif -%}
  {%- if (parts | length) == 3 -%}
    {{ return((parts[0] | lower) == (relation.database | lower) and (parts[1] | lower) == (relation.schema | lower)) }}
  {%- endif -%}
  {%- if (parts | length) == 2 and (parts[0] | lower) != (relation.schema | lower) -%}{{ return(false) }}{%- endif -%}
  {#- (the name is letters, digits and _ only: duplicate_key_assertion) -#}
  {%- set sql -%}
select current_database() as db, current_schema() as sch, current_setting('search_path') as search_path,
  (select count(*) from (select table_name as n from duckdb_tables() union all select view_name from duckdb_views()) where lower(n) = '{{ name }}') as same_name
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {{ return((row[0] | lower) == (relation.database | lower) and (row[1] | lower) == (relation.schema | lower)
            and (row[2] or '') == '' and (row[3] | int) == 1) }}
{% endmacro %}

{#- `with <name> as <keyword> (...)` for a CTE referenced several times: scan_cte_materialized makes
    the warehouse evaluate it once (every consumer sees the same sampled rows); scan_cte_inlined makes
    it evaluate the CTE per reference, inlined into each consumer (DuckDB 2.x and PostgreSQL 12+
    materialize a multiply-referenced CTE by default). '' where the warehouse has no such syntax. -#}
{% macro scan_cte_materialized() %}{{ return(adapter.dispatch('scan_cte_materialized', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__scan_cte_materialized() %}{{ return('') }}{% endmacro %}
{% macro duckdb__scan_cte_materialized() %}{{ return('materialized') }}{% endmacro %}
{% macro postgres__scan_cte_materialized() %}{{ return('materialized') }}{% endmacro %}

{% macro scan_cte_inlined() %}{{ return(adapter.dispatch('scan_cte_inlined', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__scan_cte_inlined() %}{{ return('') }}{% endmacro %}
{% macro duckdb__scan_cte_inlined() %}{{ return('not materialized') }}{% endmacro %}
{% macro postgres__scan_cte_inlined() %}{{ return('not materialized') }}{% endmacro %}

{#- A FROM item named dq_rules with one integer column rule_index holding 0 .. n-1. -#}
{% macro scan_rule_index_list(n) %}{{ return(adapter.dispatch('scan_rule_index_list', 'dataplex_dq')(n)) }}{% endmacro %}
{% macro default__scan_rule_index_list(n) -%}
  {%- set rows = [] -%}
  {%- for i in range(n) -%}{%- do rows.append("(" ~ i ~ ")") -%}{%- endfor -%}
  {{- return("(values " ~ (rows | join(", ")) ~ ") as dq_rules (rule_index)") -}}
{%- endmacro %}
{% macro duckdb__scan_rule_index_list(n) -%}
  {{- return("(select cast(range as integer) as rule_index from range(" ~ n ~ ")) as dq_rules") -}}
{%- endmacro %}
{% macro bigquery__scan_rule_index_list(n) -%}
  {{- return("(select rule_index from unnest(generate_array(0, " ~ (n - 1) ~ ")) as rule_index) as dq_rules") -}}
{%- endmacro %}

{#- Session settings the scan's query needs, made just before it runs; returns a SQL comment naming them
    ('' when none), which the scan puts at the head of its query so the compiled SQL says how it ran.
    `relation`: the data source; `columns`: the quoted columns the scan groups by (uniqueness counts),
    `data_types`: their warehouse types (or none). Only DuckDB has one (perfect hashing, below). -#}
{% macro scan_prepare_session(relation, columns, data_types) %}
  {{ return(adapter.dispatch('scan_prepare_session', 'dataplex_dq')(relation, columns, data_types)) }}
{% endmacro %}
{% macro default__scan_prepare_session(relation, columns, data_types) %}{{ return('') }}{% endmacro %}

{#- DuckDB groups by a key with a hash table unless the key's value range (from the column's storage
    statistics) fits in `perfect_ht_threshold` bits (default 12), when it uses a perfect-hash aggregate:
    one slot per possible value, no hashing, no probing. A uniqueness count on an integer id is the
    scan's slowest step (10M rows: 1.6 s of hash aggregate against 0.08 s perfect-hashed, and a SQL
    assertion grouping by the same id likewise). So: read the integer keys' ranges first (one
    min/max query), and when the widest needs at most `dataplex_dq_perfect_hash_max_bits` bits (var,
    default 24: 16M slots per thread, a few hundred MB at most), raise the session's threshold to
    exactly those bits. Never on wide keys, never lowered, and bounded: any GROUP BY this session runs
    afterwards gets a perfect hash only for a key range within those bits (the setting stays on the
    connection; DuckDB has no per-statement setting). Counts are the same either way. -#}
{% macro duckdb__scan_prepare_session(relation, columns, data_types) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set keys = [] -%}
  {%- for col in columns -%}
    {%- set t = (data_types[loop.index0] or '') | string | trim | upper -%}
    {%- if t in ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'INT1', 'INT2', 'INT4', 'INT8', 'INT', 'LONG'] and col not in keys -%}
      {%- do keys.append(col) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set max_bits = var('dataplex_dq_perfect_hash_max_bits', 24) | int -%}
  {%- if (keys | length) == 0 or max_bits <= 0 -%}{{ return('') }}{%- endif -%}
  {%- set ranges = [] -%}
  {%- for col in keys -%}
    {%- do ranges.append("cast(max(" ~ col ~ ") as hugeint) - cast(min(" ~ col ~ ") as hugeint)") -%}
  {%- endfor -%}
  {%- set sql = "select (select cast(value as integer) from duckdb_settings() where name = 'perfect_ht_threshold') as current_bits, greatest(" ~ (ranges | join(', ')) ~ ") as key_range from " ~ relation -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- if row[1] is none -%}{{ return('') }}{%- endif -%}
  {#- the fewest bits holding the range plus one slot for NULL (DuckDB 2.0: a range of 10M needs 24) -#}
  {%- set need = {'bits': max_bits + 1} -%}
  {%- for b in range(1, max_bits + 1) if need.bits > max_bits and (2 ** b) > (row[1] | int) + 1 -%}
    {%- do need.update({'bits': b}) -%}
  {%- endfor -%}
  {%- if need.bits > max_bits or need.bits <= (row[0] | int) -%}{{ return('') }}{%- endif -%}
  {%- do run_query("set perfect_ht_threshold = " ~ need.bits) -%}
  {{ return("-- dataplex_dq: perfect_ht_threshold = " ~ need.bits ~ "\n") }}
{% endmacro %}
