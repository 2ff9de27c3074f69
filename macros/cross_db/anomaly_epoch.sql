{#- Seconds since 1970-01-01 of a DATE / TIMESTAMP / DATETIME expression, as a double (naive
    timestamps read as UTC). -#}
{% macro anomaly_epoch(expr) %}{{ return(adapter.dispatch('anomaly_epoch', 'dataplex_dq')(expr)) }}{% endmacro %}

{% macro default__anomaly_epoch(expr) -%}
  {{- return("cast(extract(epoch from cast(" ~ expr ~ " as timestamp)) as " ~ dataplex_dq.type_double() ~ ")") -}}
{%- endmacro %}

{% macro duckdb__anomaly_epoch(expr) -%}
  {#- epoch() of a TIMESTAMP: DuckDB's extract(epoch ...) of a DATE needs the cast as well -#}
  {{- return("cast(epoch(cast(" ~ expr ~ " as timestamp)) as double)") -}}
{%- endmacro %}

{% macro bigquery__anomaly_epoch(expr) -%}
  {{- return("(unix_micros(cast(" ~ expr ~ " as timestamp)) / 1000000.0)") -}}
{%- endmacro %}
