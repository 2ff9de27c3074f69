{#- Delete the rows of the results table `relation` (alias dq_target) that match `old` and whose job is not in
    `keep_sql` (a query of data_quality_job_id): the writer's retention (hook_retention_step). -#}
{% macro retention_delete_sql(relation, keep_sql, old) %}
  {{ return(adapter.dispatch('retention_delete_sql', 'dataplex_dq')(relation, keep_sql, old)) }}
{% endmacro %}

{% macro default__retention_delete_sql(relation, keep_sql, old) %}
  {{ return("delete from " ~ relation ~ " as dq_target\nwhere " ~ old ~ "\n  and not exists (select 1 from (\n" ~ keep_sql ~ "\n) as dq_keep where dq_keep.data_quality_job_id = dq_target.data_quality_job_id)") }}
{% endmacro %}

{% macro bigquery__retention_delete_sql(relation, keep_sql, old) %}
  {#- the MERGE form of a delete (as delete_results_sql): the rows no kept job matches -#}
  {{ return("merge into " ~ relation ~ " as dq_target\nusing (\n" ~ keep_sql ~ "\n) as dq_keep\non dq_target.data_quality_job_id = dq_keep.data_quality_job_id\nwhen not matched by source and " ~ old ~ " then delete") }}
{% endmacro %}
