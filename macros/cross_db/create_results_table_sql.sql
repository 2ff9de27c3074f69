{#- CREATE TABLE of the results table: the columns in order, with their warehouse types; on BigQuery
    partitioned by day on job_start_time, as Dataplex's export table, and clustered by invocation and data
    source: the writer and the report read one invocation's rows, the HTML history one data source's. -#}
{% macro create_results_table_sql(relation) %}
  {{ return(adapter.dispatch('create_results_table_sql', 'dataplex_dq')(relation)) }}
{% endmacro %}

{% macro default__create_results_table_sql(relation) %}
  {%- set cols = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do cols.append(name ~ " " ~ dataplex_dq.results_type(t)) -%}
  {%- endfor -%}
  {{ return("create table " ~ relation ~ " (\n  " ~ (cols | join(",\n  ")) ~ "\n)") }}
{% endmacro %}

{% macro bigquery__create_results_table_sql(relation) %}
  {#- the form dbt-bigquery gives the package model (models/dataplex_dq_results.sql): one way to partition the table -#}
  {{ return(dataplex_dq.default__create_results_table_sql(relation) ~ "\npartition by timestamp_trunc(job_start_time, day)\ncluster by dbt_invocation_id, data_source") }}
{% endmacro %}
