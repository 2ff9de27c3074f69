{#- Whether a column type can hold a window: DATE or TIMESTAMP (with or without time zone), and on
    BigQuery DATETIME too (a civil timestamp), as Dataplex allows. -#}
{% macro is_incremental_field_type(data_type) %}{{ return(adapter.dispatch('is_incremental_field_type', 'dataplex_dq')(data_type)) }}{% endmacro %}

{% macro default__is_incremental_field_type(data_type) -%}
  {%- set t = (data_type | string | trim | lower) -%}
  {{- return(t == 'date' or t.startswith('timestamp')) -}}
{%- endmacro %}

{% macro bigquery__is_incremental_field_type(data_type) -%}
  {%- set t = (data_type | string | trim | lower) -%}
  {{- return(t in ['date', 'timestamp', 'datetime']) -}}
{%- endmacro %}
