{#- Characters one statement may have on the target warehouse, or none when there is no limit to check. -#}
{% macro max_statement_chars() %}{{ return(adapter.dispatch('max_statement_chars', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__max_statement_chars() %}{{ return(none) }}{% endmacro %}

{% macro bigquery__max_statement_chars() %}{{ return(1024000) }}{% endmacro %}
