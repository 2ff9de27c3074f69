{#- `expr` (of type data_type) moved back by the lookback (count, unit). DuckDB and PostgreSQL
    subtract an INTERVAL (a DATE minus an interval is a TIMESTAMP there, so it is cast back);
    BigQuery has one *_SUB function per type, and DATE_SUB takes no hours, so a DATE goes through
    DATETIME. -#}
{% macro incremental_minus(expr, lookback, data_type) %}{{ return(adapter.dispatch('incremental_minus', 'dataplex_dq')(expr, lookback, data_type)) }}{% endmacro %}

{% macro default__incremental_minus(expr, lookback, data_type) -%}
  {{- return("cast(" ~ expr ~ " - interval '" ~ lookback[0] ~ " " ~ lookback[1] ~ "' as " ~ data_type ~ ")") -}}
{%- endmacro %}

{% macro bigquery__incremental_minus(expr, lookback, data_type) -%}
  {%- set t = data_type | lower -%}
  {%- set unit = lookback[1] | upper -%}
  {%- if t == 'timestamp' -%}{{- return("timestamp_sub(" ~ expr ~ ", interval " ~ lookback[0] ~ " " ~ unit ~ ")") -}}{%- endif -%}
  {%- if t == 'datetime' -%}{{- return("datetime_sub(" ~ expr ~ ", interval " ~ lookback[0] ~ " " ~ unit ~ ")") -}}{%- endif -%}
  {{- return("cast(datetime_sub(cast(" ~ expr ~ " as datetime), interval " ~ lookback[0] ~ " " ~ unit ~ ") as date)") -}}
{%- endmacro %}
