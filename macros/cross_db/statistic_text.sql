{#- The measured value of a statistic rule in text form (docs/SEMANTICS.md §5: kept for every column type, dates
    and timestamps included, where statistic_value, a double, has none). -#}
{% macro statistic_text(expr, data_type=none) %}{{ return(adapter.dispatch('statistic_text', 'dataplex_dq')(expr, data_type)) }}{% endmacro %}

{% macro default__statistic_text(expr, data_type=none) -%}{{- return(adapter.dispatch('cast_text', 'dataplex_dq')(expr)) -}}{%- endmacro %}

{% macro bigquery__statistic_text(expr, data_type=none) -%}
  {#- A TIMESTAMP reads as text with a '+00' suffix: as DATETIME (UTC) it reads as on the other warehouses. -#}
  {%- if data_type is not none and (data_type | string | trim | lower) == 'timestamp' -%}
    {{- return("cast(cast(" ~ expr ~ " as datetime) as string)") -}}
  {%- endif -%}
  {{- return("cast(" ~ expr ~ " as string)") -}}
{%- endmacro %}
