{#- Read a column as text. -#}
{% macro cast_text(expr) %}{{ return(adapter.dispatch('cast_text', 'dataplex_dq')(expr)) }}{% endmacro %}

{% macro default__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as " ~ dbt.type_string() ~ ")") -}}{%- endmacro %}

{% macro bigquery__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as string)") -}}{%- endmacro %}

{% macro postgres__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as text)") -}}{%- endmacro %}
