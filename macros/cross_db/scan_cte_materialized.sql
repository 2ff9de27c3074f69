{#- `with <name> as <keyword> (...)` for a CTE referenced several times: scan_cte_materialized makes
    the warehouse evaluate it once (every consumer sees the same sampled rows); scan_cte_inlined makes
    it evaluate the CTE per reference, inlined into each consumer (DuckDB 2.x and PostgreSQL 12+
    materialize a multiply-referenced CTE by default). '' where the warehouse has no such syntax. -#}
{% macro scan_cte_materialized() %}{{ return(adapter.dispatch('scan_cte_materialized', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__scan_cte_materialized() %}{{ return('') }}{% endmacro %}

{% macro duckdb__scan_cte_materialized() %}{{ return('materialized') }}{% endmacro %}

{% macro postgres__scan_cte_materialized() %}{{ return('materialized') }}{% endmacro %}
