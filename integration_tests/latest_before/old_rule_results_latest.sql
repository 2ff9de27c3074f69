{#- dq_rule_results_latest as it was before issue 32 (a view ranking the whole history): the reference the new models are compared with (test_latest_models.py, bench_latest.py). -#}
{{ config(materialized='view') }}

with ranked as (
    select
        data_quality_job_id,
        rule_name,
        row_number() over (
            partition by data_source_key, dbt_target, rule_name
            order by job_start_time desc, data_quality_job_id desc
        ) as recency
    from {{ ref('dq_rule_results') }}
),

latest_jobs as (
    select data_source_key, dbt_target, job_declared_rules
    from (
        select
            data_source_key,
            dbt_target,
            job_declared_rules,
            row_number() over (
                partition by data_source_key, dbt_target
                order by job_start_time desc, data_quality_job_id desc
            ) as recency
        from {{ ref('dq_rule_results') }}
    ) as jobs
    where recency = 1
)

select h.*
from {{ ref('dq_rule_results') }} as h
inner join ranked as k
    on h.data_quality_job_id = k.data_quality_job_id
    and h.rule_name = k.rule_name
inner join latest_jobs as l
    on h.data_source_key = l.data_source_key
    and coalesce(h.dbt_target, '') = coalesce(l.dbt_target, '')
where k.recency = 1
    {#- rule names are letters, digits and hyphens: '"name"' is in the JSON array text only for that rule #}
    and (l.job_declared_rules is null
         or {{ dbt.position(dbt.concat(["'\"'", 'h.rule_name', "'\"'"]), 'l.job_declared_rules') }} > 0)
