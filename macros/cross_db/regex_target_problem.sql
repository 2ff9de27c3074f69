{#- A regex that is valid RE2 but that the target's regex engine cannot compile, or none (docs/SEMANTICS.md §3):
    checked at compile time, so it never fails in the warehouse (inside a data_quality_scan it would
    error every rule of the scan). DuckDB and BigQuery run RE2 itself. -#}
{% macro regex_target_problem(pattern) %}{{ return(adapter.dispatch('regex_target_problem', 'dataplex_dq')(pattern)) }}{% endmacro %}

{% macro default__regex_target_problem(pattern) %}{{ return(none) }}{% endmacro %}

{% macro postgres__regex_target_problem(pattern) %}{{ return(dataplex_dq.postgres_regex(pattern).problem) }}{% endmacro %}
