{#- A 64-bit float type (dbt.type_float() is a 32-bit REAL on DuckDB). -#}
{% macro type_double() %}{{ return(adapter.dispatch('type_double', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__type_double() %}double precision{% endmacro %}

{% macro duckdb__type_double() %}double{% endmacro %}

{% macro bigquery__type_double() %}float64{% endmacro %}
