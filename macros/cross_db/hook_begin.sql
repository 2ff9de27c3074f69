{#- The delete and the insert in one transaction where the warehouse has them. run_query does not
    BEGIN (auto_begin=false): PostgreSQL's driver opens a transaction implicitly, which a COMMIT ends;
    dbt-duckdb opens one on request; each BigQuery statement is atomic on its own. -#}
{% macro hook_begin() %}{{ return(adapter.dispatch('hook_begin', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__hook_begin() %}{{ return('') }}{% endmacro %}

{% macro duckdb__hook_begin() %}{% do adapter.ensure_transaction() %}{{ return('') }}{% endmacro %}
