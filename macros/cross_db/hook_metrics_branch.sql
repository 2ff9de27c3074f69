{#- How the metrics rows of this invocation are read from a test's relation (hook_metrics_branch)
    and the branches of many relations put together (hook_metrics_union), giving the contract's
    columns in order. DuckDB reads only the packed row `dq_row` (macros/metrics.sql, metrics_packed:
    its binder pays per column of every relation) and unpacks it once over the union; the others
    read the columns. -#}
{% macro hook_metrics_branch(relation_name, invocation_literal) %}{{ return(adapter.dispatch('hook_metrics_branch', 'dataplex_dq')(relation_name, invocation_literal)) }}{% endmacro %}

{% macro default__hook_metrics_branch(relation_name, invocation_literal) %}
  {{ return('select * from ' ~ relation_name ~ ' where dq_invocation_id = ' ~ invocation_literal) }}
{% endmacro %}

{% macro duckdb__hook_metrics_branch(relation_name, invocation_literal) %}
  {{ return('select dq_row from ' ~ relation_name) }}
{% endmacro %}
