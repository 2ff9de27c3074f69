{#- Delete the rows of the latest results table `latest` (alias l) that a row of `newest` (the invocation's
    latest rows, alias n) is as recent as or more recent than (`newer`, a condition over n and l), for the
    writer's hook_latest_step (macros/results/latest_results.sql). -#}
{% macro latest_supersede_sql(latest, newest, newer) %}
  {{ return(adapter.dispatch('latest_supersede_sql', 'dataplex_dq')(latest, newest, newer)) }}
{% endmacro %}

{% macro default__latest_supersede_sql(latest, newest, newer) %}
  {%- set sql -%}
delete from {{ latest }} as l
where exists (
    select 1
    from (
{{ newest }}
    ) as n
    where {{ dataplex_dq.latest_key_match('n', 'l') }} and {{ newer }}
)
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{% macro bigquery__latest_supersede_sql(latest, newest, newer) %}
  {#- the MERGE form of a delete (the test suite's emulator has no DELETE); one source row per key, as a
      MERGE matches each target row with at most one -#}
  {%- set sql -%}
merge into {{ latest }} as l
using (
    select data_source_key, dbt_target, rule_name, job_start_time, data_quality_job_id
    from (
        select n0.*, row_number() over (partition by data_source_key, dbt_target, rule_name order by data_quality_job_id) as dq_one
        from (
{{ newest }}
        ) as n0
    ) as n1
    where dq_one = 1
) as n
on {{ dataplex_dq.latest_key_match('n', 'l') }} and {{ newer }}
when matched then delete
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
