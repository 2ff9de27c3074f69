{#- One field of a STRUCT column of the results table (data_source, job_quality_result, ...), optionally
    cast to `data_type` (a warehouse type, e.g. dbt.type_string()). Where the results table has no
    STRUCT (default: PostgreSQL and others) the column is jsonb. -#}
{% macro struct_field(column, field, data_type=none) %}
  {{- return(adapter.dispatch('struct_field', 'dataplex_dq')(column, field, data_type)) -}}
{% endmacro %}

{% macro default__struct_field(column, field, data_type=none) -%}
  {%- set expr = dataplex_dq.json_text_field(column, field) -%}
  {{- return("cast(" ~ expr ~ " as " ~ data_type ~ ")" if data_type else expr) -}}
{%- endmacro %}

{% macro duckdb__struct_field(column, field, data_type=none) -%}
  {#- struct_extract rather than `col.field`: a dotted name could also resolve to table.column. -#}
  {%- set expr = "struct_extract(" ~ column ~ ", " ~ dataplex_dq.string_literal(field) ~ ")" -%}
  {{- return("cast(" ~ expr ~ " as " ~ data_type ~ ")" if data_type else expr) -}}
{%- endmacro %}

{% macro bigquery__struct_field(column, field, data_type=none) -%}
  {%- set expr = column ~ "." ~ field -%}
  {{- return("cast(" ~ expr ~ " as " ~ data_type ~ ")" if data_type else expr) -}}
{%- endmacro %}
