{% macro hook_commit() %}{{ return(adapter.dispatch('hook_commit', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__hook_commit() %}{% do run_query('commit') %}{{ return('') }}{% endmacro %}

{% macro duckdb__hook_commit() %}{% do adapter.commit() %}{{ return('') }}{% endmacro %}

{% macro bigquery__hook_commit() %}{{ return('') }}{% endmacro %}
