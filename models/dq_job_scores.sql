{#- One row per job (one data source scanned by one dbt invocation): the job's Dataplex score and
    pass/fail, the row-weighted score (extension) and how many rules ended in each status. -#}
{{ config(materialized='view') }}

with jobs as (
    select
        data_quality_job_id,
        dbt_node_unique_id,
        data_source_resource_name,
        table_project_id,
        dataset_id,
        table_id,
        data_scan_id,
        job_start_time,
        job_end_time,
        job_score,
        job_passed,
        job_row_weighted_score,
        job_rows_scanned,
        job_incremental_start,
        job_incremental_end,
        dbt_invocation_id,
        row_number() over (partition by data_quality_job_id order by rule_name) as row_in_job
    from {{ ref('dq_rule_results') }}
),

counts as (
    select
        data_quality_job_id,
        {{ dataplex_dq.rule_count_columns() }}
    from {{ ref('dq_rule_results') }}
    group by data_quality_job_id
)

select
    {{ dataplex_dq.job_key_columns('j') }},
    j.data_scan_id,
    j.job_score as score,
    j.job_passed as passed,
    j.job_row_weighted_score as row_weighted_score,
    j.job_rows_scanned as rows_scanned,
    j.job_incremental_start as incremental_start,
    j.job_incremental_end as incremental_end,
    c.rules_total,
    c.rules_evaluated,
    c.rules_passed,
    c.rules_failed,
    c.rules_errored,
    c.rules_skipped,
    c.rules_suspended,
    j.dbt_invocation_id
from jobs as j
inner join counts as c
    on j.data_quality_job_id = c.data_quality_job_id
where j.row_in_job = 1
