{% macro scan_cte_inlined() %}{{ return(adapter.dispatch('scan_cte_inlined', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__scan_cte_inlined() %}{{ return('') }}{% endmacro %}

{% macro duckdb__scan_cte_inlined() %}{{ return('not materialized') }}{% endmacro %}

{% macro postgres__scan_cte_inlined() %}{{ return('not materialized') }}{% endmacro %}
