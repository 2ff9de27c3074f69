{#- UPDATE `relation` SET `set_sql` for the rows matching `where_sql` (both over the table's own columns). -#}
{% macro update_results_sql(relation, set_sql, where_sql) %}
  {{ return(adapter.dispatch('update_results_sql', 'dataplex_dq')(relation, set_sql, where_sql)) }}
{% endmacro %}

{% macro default__update_results_sql(relation, set_sql, where_sql) %}
  {{ return("update " ~ relation ~ " set " ~ set_sql ~ " where " ~ where_sql) }}
{% endmacro %}

{#- BigQuery: the MERGE form (as delete_results_sql), one DML statement the test suite's emulator also runs;
    the source has no column but dq_one, so the condition's names are the target's. -#}
{% macro bigquery__update_results_sql(relation, set_sql, where_sql) %}
  {{ return("merge into " ~ relation ~ " as dq_target\nusing (select 1 as dq_one) as dq_source\non " ~ where_sql ~ "\nwhen matched then update set " ~ set_sql) }}
{% endmacro %}
