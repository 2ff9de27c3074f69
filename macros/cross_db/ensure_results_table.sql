{#- Create the results table if it does not exist (used by the post-hook). -#}
{% macro ensure_results_table(relation) %}
  {{ return(adapter.dispatch('ensure_results_table', 'dataplex_dq')(relation)) }}
{% endmacro %}

{% macro default__ensure_results_table(relation) %}
  {%- set existing = adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
  {%- if existing is none -%}
    {% do adapter.create_schema(relation) %}
    {% do run_query(dataplex_dq.create_results_table_sql(relation)) %}
    {{ return(true) }}
  {%- endif -%}
  {{ return(false) }}
{% endmacro %}
