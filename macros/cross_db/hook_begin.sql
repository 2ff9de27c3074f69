{#- The delete and the insert in one transaction where the warehouse has them. run_query does not
    BEGIN (auto_begin=false): PostgreSQL's driver opens a transaction implicitly, which a COMMIT ends;
    dbt-duckdb opens one on request; each BigQuery statement is atomic on its own. -#}
{% macro hook_begin() %}{{ return(adapter.dispatch('hook_begin', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__hook_begin() %}{{ return('') }}{% endmacro %}

{#- dbt-duckdb 1.11.1 and later expose adapter.ensure_transaction(); before it, a statement run with
    auto_begin=true makes dbt open the connection's transaction the same way (dbt-duckdb 1.10.0 - 1.11.0). -#}
{% macro duckdb__hook_begin() %}
  {%- if adapter.ensure_transaction is defined -%}
    {%- do adapter.ensure_transaction() -%}
  {%- else -%}
    {%- call statement('dataplex_dq_hook_begin', auto_begin=true) -%}select 1{%- endcall -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}
