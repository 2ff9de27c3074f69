{#- Delete the rows of `relation` matching `condition` (the idempotent half of delete-then-insert). -#}
{% macro anomaly_delete_sql(relation, condition) %}{{ return(adapter.dispatch('anomaly_delete_sql', 'dataplex_dq')(relation, condition)) }}{% endmacro %}

{% macro default__anomaly_delete_sql(relation, condition) -%}
  {{- return("delete from " ~ relation ~ " where " ~ condition) -}}
{%- endmacro %}

{% macro bigquery__anomaly_delete_sql(relation, condition) -%}
  {#- the MERGE form of a delete, as for the results table (bigquery__delete_results_sql): the local
      BigQuery emulator of the test suite runs MERGE but no DELETE -#}
  {{- return("merge into " ~ relation ~ " as dq_target\nusing (select 1 as dq_one) as dq_source\non false\nwhen not matched by source and (" ~ condition ~ ") then delete") -}}
{%- endmacro %}
