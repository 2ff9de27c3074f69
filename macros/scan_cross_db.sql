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
