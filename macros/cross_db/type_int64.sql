{#- A 64-bit integer type. -#}
{% macro type_int64() %}{{ return(adapter.dispatch('type_int64', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__type_int64() %}{{ return('bigint') }}{% endmacro %}

{% macro bigquery__type_int64() %}{{ return('int64') }}{% endmacro %}
