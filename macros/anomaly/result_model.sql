{#- One text field of a JSON object column of the results table (rule_attributes), NULL when absent:
    DuckDB JSON, PostgreSQL jsonb, BigQuery JSON. -#}
{% macro json_text_field(column, field) %}
  {{- return(adapter.dispatch('json_text_field', 'dataplex_dq')(column, field)) -}}
{% endmacro %}
{% macro default__json_text_field(column, field) -%}
  {{- return("(" ~ column ~ " ->> " ~ dataplex_dq.string_literal(field) ~ ")") -}}
{%- endmacro %}
{% macro duckdb__json_text_field(column, field) -%}
  {{- return("json_extract_string(" ~ column ~ ", " ~ dataplex_dq.string_literal('$.' ~ field) ~ ")") -}}
{%- endmacro %}
{% macro bigquery__json_text_field(column, field) -%}
  {{- return("json_value(" ~ column ~ ", " ~ dataplex_dq.string_literal('$.' ~ field) ~ ")") -}}
{%- endmacro %}

{#- A numeric attribute ('' when unset) as a double. -#}
{% macro json_number_field(column, field) %}
  {{- return("cast(nullif(" ~ dataplex_dq.json_text_field(column, field) ~ ", '') as " ~ dataplex_dq.type_double() ~ ")") -}}
{% endmacro %}
