{#- Numeric value of an expression as a double, NULL when it is not numeric (statistic_value).
    `data_type`, when known, decides at compile time: a numeric type is cast, any other type gives
    NULL (BigQuery refuses even SAFE_CAST from DATE to FLOAT64 when it compiles the query). -#}
{% macro safe_cast_double(expr, data_type=none) %}
  {%- if data_type is not none -%}
    {{ return("cast(" ~ expr ~ " as " ~ adapter.dispatch('type_double', 'dataplex_dq')() ~ ")" if dataplex_dq.is_numeric_type(data_type) else "cast(null as " ~ adapter.dispatch('type_double', 'dataplex_dq')() ~ ")") }}
  {%- endif -%}
  {{ return(adapter.dispatch('safe_cast_double', 'dataplex_dq')(expr)) }}
{% endmacro %}

{% macro default__safe_cast_double(expr) -%}{{- return("try_cast(" ~ expr ~ " as " ~ adapter.dispatch('type_double', 'dataplex_dq')() ~ ")") -}}{%- endmacro %}

{% macro bigquery__safe_cast_double(expr) -%}{{- return("safe_cast(" ~ expr ~ " as float64)") -}}{%- endmacro %}

{% macro postgres__safe_cast_double(expr) -%}
  {#- PostgreSQL has no TRY_CAST: cast only text that looks like a number. -#}
  {%- set t = "cast(" ~ expr ~ " as text)" -%}
  {{- return("case when " ~ t ~ " ~ '^\\s*[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?\\s*$' then cast(" ~ t ~ " as double precision) end") -}}
{%- endmacro %}
