{#- The staging of metrics rows (when the tests do not fit one statement): what one batch writes to the
    staging table (hook_stage_metrics_sql) and how the staged rows are read back in the contract's
    columns (hook_staged_metrics_read). Default: the contract's columns, as hook_metrics_sql gives them.
    DuckDB stages the packed rows as they are (relations' dq_row, and the declared rules' rows,
    hook_declared_sql, packed the same way) and unpacks them once, reading the staging table: unpacking per batch cost as
    much again as reading the batch's relations. -#}
{% macro hook_stage_metrics_sql(tests, invocation) %}{{ return(adapter.dispatch('hook_stage_metrics_sql', 'dataplex_dq')(tests, invocation)) }}{% endmacro %}

{% macro default__hook_stage_metrics_sql(tests, invocation) %}{{ return(dataplex_dq.hook_metrics_sql(tests, invocation)) }}{% endmacro %}

{% macro duckdb__hook_stage_metrics_sql(tests, invocation) %}
  {%- set branches = ['select cast(null as varchar) as dq_row from ' ~ dataplex_dq.hook_one_row() ~ ' where 1 = 0'] -%}
  {%- do branches.extend(tests | selectattr('branch') | map(attribute='branch')) -%}
  {%- set declared = dataplex_dq.hook_declared_sql(tests) -%}
  {%- if declared -%}{%- do branches.append('select to_json(dq_d) as dq_row from (' ~ declared ~ ') as dq_d') -%}{%- endif -%}
  {{ return(branches | join('\nunion all\n')) }}
{% endmacro %}
