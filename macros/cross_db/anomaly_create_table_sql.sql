{% macro anomaly_create_table_sql(relation, defs, kind) %}{{ return(adapter.dispatch('anomaly_create_table_sql', 'dataplex_dq')(relation, defs, kind)) }}{% endmacro %}

{#- The statements creating one table (a list). -#}
{% macro default__anomaly_create_table_sql(relation, defs, kind) -%}
  {#- the target schema may not exist yet when no model of the project was built in it -#}
  {{- return(["create schema if not exists " ~ adapter.quote(relation.schema),
              "create table if not exists " ~ relation ~ " (" ~ (defs | join(', ')) ~ ")"]) -}}
{%- endmacro %}

{% macro bigquery__anomaly_create_table_sql(relation, defs, kind) -%}
  {#- the dataset exists (dbt's target); no schema statement -#}
  {{- return(["create table if not exists " ~ relation ~ " (" ~ (defs | join(', ')) ~ ")"]) -}}
{%- endmacro %}
