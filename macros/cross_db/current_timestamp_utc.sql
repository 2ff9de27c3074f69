{#- The current time as a UTC timestamp without time zone. -#}
{% macro current_timestamp_utc() %}{{ return(adapter.dispatch('current_timestamp_utc', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__current_timestamp_utc() -%}{{- return("cast(current_timestamp as " ~ dbt.type_timestamp() ~ ")") -}}{%- endmacro %}

{% macro duckdb__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}

{% macro postgres__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}

{% macro bigquery__current_timestamp_utc() -%}{{- return("current_timestamp()") -}}{%- endmacro %}
