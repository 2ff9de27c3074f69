{#- The q-quantile (0.25, 0.5, 0.75) of a numeric expression, as an aggregate of the profile's one scan:
    DuckDB quantile_cont, PostgreSQL percentile_cont ... within group, BigQuery approx_quantiles (Dataplex's
    own quartiles are approximate). -#}
{% macro profile_quantile(expr, q) %}{{ return(adapter.dispatch('profile_quantile', 'dataplex_dq')(expr, q)) }}{% endmacro %}

{% macro default__profile_quantile(expr, q) -%}
  {{- return("percentile_cont(" ~ q ~ ") within group (order by " ~ expr ~ ")") -}}
{%- endmacro %}

{% macro duckdb__profile_quantile(expr, q) -%}
  {{- return("quantile_cont(" ~ expr ~ ", " ~ q ~ ")") -}}
{%- endmacro %}

{% macro bigquery__profile_quantile(expr, q) -%}
  {{- return("approx_quantiles(" ~ expr ~ ", 4)[offset(" ~ ((q * 4) | round | int) ~ ")]") -}}
{%- endmacro %}
