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
