{#- One text member of a JSON object, NULL when absent: the one JSON field read of the package. `expr` is a JSON
    column of the results table (rule_attributes; PostgreSQL's STRUCT columns, which are jsonb there) or a JSON
    text (a metrics row's rule_spec). PostgreSQL and DuckDB cast it to their JSON type first (a no-op on a JSON
    column); BigQuery's JSON_VALUE reads a JSON value and a JSON text alike. -#}
{% macro json_text_field(expr, field) %}
  {{- return(adapter.dispatch('json_text_field', 'dataplex_dq')(expr, field)) -}}
{% endmacro %}

{% macro default__json_text_field(expr, field) -%}
  {{- return("(cast(" ~ expr ~ " as jsonb) ->> " ~ dataplex_dq.string_literal(field) ~ ")") -}}
{%- endmacro %}

{% macro duckdb__json_text_field(expr, field) -%}
  {{- return("json_extract_string(cast(" ~ expr ~ " as json), " ~ dataplex_dq.string_literal('$.' ~ field) ~ ")") -}}
{%- endmacro %}

{% macro bigquery__json_text_field(expr, field) -%}
  {{- return("json_value(" ~ expr ~ ", " ~ dataplex_dq.string_literal('$.' ~ field) ~ ")") -}}
{%- endmacro %}
