{% macro hook_staged_metrics_read(stage, invocation) %}{{ return(adapter.dispatch('hook_staged_metrics_read', 'dataplex_dq')(stage, invocation)) }}{% endmacro %}

{% macro default__hook_staged_metrics_read(stage, invocation) %}{{ return('select * from ' ~ stage) }}{% endmacro %}

{% macro duckdb__hook_staged_metrics_read(stage, invocation) %}
  {{ return(dataplex_dq.duckdb__hook_unpack_sql('select dq_row from ' ~ stage, dataplex_dq.string_literal(invocation))) }}
{% endmacro %}
