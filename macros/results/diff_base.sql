{#- `dataplex-dq diff --base-target`: the rows of the latest job of every data source in a results
    table, with what the diff compares (rule statuses, pass percentages, rows scanned). The latest job
    is the one that started last (ties broken by job id). Only plain columns are read, so the same
    SQL runs on every warehouse. -#}
{% macro diff_base_rows_sql(relation) %}
  {%- set sql -%}
with jobs as (
    select
        dbt_node_unique_id,
        data_quality_job_id,
        row_number() over (
            partition by dbt_node_unique_id
            order by max(job_start_time) desc, data_quality_job_id desc
        ) as job_rank
    from {{ relation }}
    group by dbt_node_unique_id, data_quality_job_id
)
select
    r.dbt_node_unique_id,
    r.data_quality_job_id,
    r.job_rows_scanned,
    r.rule_name,
    r.rule_column,
    r.rule_dimension,
    r.rule_status,
    r.rule_rows_evaluated,
    r.rule_rows_passed_percent
from {{ relation }} as r
inner join jobs as j
    on r.dbt_node_unique_id = j.dbt_node_unique_id
    and r.data_quality_job_id = j.data_quality_job_id
where j.job_rank = 1
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
