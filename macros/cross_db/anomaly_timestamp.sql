{#- A TIMESTAMP (UTC, without time zone where the warehouse distinguishes) from epoch seconds. -#}
{% macro anomaly_timestamp(seconds_expr) %}{{ return(adapter.dispatch('anomaly_timestamp', 'dataplex_dq')(seconds_expr)) }}{% endmacro %}

{% macro default__anomaly_timestamp(seconds_expr) -%}
  {{- return("cast(to_timestamp(cast(" ~ seconds_expr ~ " as double precision)) at time zone 'UTC' as timestamp)") -}}
{%- endmacro %}

{% macro duckdb__anomaly_timestamp(seconds_expr) -%}
  {#- make_timestamp(microseconds) is a naive TIMESTAMP, independent of the session time zone -#}
  {{- return("make_timestamp(cast(round(cast(" ~ seconds_expr ~ " as double) * 1000000) as bigint))") -}}
{%- endmacro %}

{% macro bigquery__anomaly_timestamp(seconds_expr) -%}
  {{- return("timestamp_micros(cast(round(cast(" ~ seconds_expr ~ " as float64) * 1000000) as int64))") -}}
{%- endmacro %}
