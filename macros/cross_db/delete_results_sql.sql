{% macro delete_results_sql(relation, job_ids) %}
  {%- set ids = [] -%}
  {%- for j in job_ids -%}{%- do ids.append(dataplex_dq.string_literal(j)) -%}{%- endfor -%}
  {{ return(adapter.dispatch('delete_results_sql', 'dataplex_dq')(relation, ids | join(", "))) }}
{% endmacro %}

{% macro default__delete_results_sql(relation, id_list) %}
  {{ return("delete from " ~ relation ~ " where data_quality_job_id in (" ~ id_list ~ ")") }}
{% endmacro %}

{% macro bigquery__delete_results_sql(relation, id_list) %}
  {#- The same rows as DELETE ... WHERE, written as the MERGE form of a delete (as dbt's own
      insert_overwrite does): one DML statement that the local BigQuery emulator of the test suite
      also runs (it has MERGE but no DELETE). -#}
  {{ return("merge into " ~ relation ~ " as dq_target\nusing (select 1 as dq_one) as dq_source\non false\nwhen not matched by source and dq_target.data_quality_job_id in (" ~ id_list ~ ") then delete") }}
{% endmacro %}
