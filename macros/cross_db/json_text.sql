{#- A JSON column of the results table as JSON text. -#}
{% macro json_text(column) %}{{ return(adapter.dispatch('json_text', 'dataplex_dq')(column)) }}{% endmacro %}

{% macro default__json_text(column) %}{{ return("cast(" ~ column ~ " as " ~ dbt.type_string() ~ ")") }}{% endmacro %}

{#- BigQuery cannot CAST a JSON value to STRING (only JSON strings): TO_JSON_STRING serializes any. -#}
{% macro bigquery__json_text(column) %}{{ return("to_json_string(" ~ column ~ ")") }}{% endmacro %}
