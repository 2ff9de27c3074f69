{#- The latest result of each rule of each data source: per (dbt_node_unique_id, rule_name), the row of
    the job with the latest job_start_time (ties: the greatest data_quality_job_id). -#}
{{ config(materialized='view') }}

with ranked as (
    select
        data_quality_job_id,
        rule_name,
        row_number() over (
            partition by dbt_node_unique_id, rule_name
            order by job_start_time desc, data_quality_job_id desc
        ) as recency
    from {{ ref('dq_rule_results') }}
)

select h.*
from {{ ref('dq_rule_results') }} as h
inner join ranked as k
    on h.data_quality_job_id = k.data_quality_job_id
    and h.rule_name = k.rule_name
where k.recency = 1
