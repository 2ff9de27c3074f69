{% macro hook_metrics_union(branches, invocation_literal) %}{{ return(adapter.dispatch('hook_metrics_union', 'dataplex_dq')(branches, invocation_literal)) }}{% endmacro %}

{% macro default__hook_metrics_union(branches, invocation_literal) %}
  {{ return(branches | join('\nunion all\n')) }}
{% endmacro %}

{% macro duckdb__hook_metrics_union(branches, invocation_literal) %}
  {{ return(dataplex_dq.duckdb__hook_unpack_sql(branches | join('\nunion all\n'), invocation_literal)) }}
{% endmacro %}
