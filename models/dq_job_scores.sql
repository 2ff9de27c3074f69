{#- One row per job (one data source scanned by one dbt invocation): the job's Dataplex score and
    pass/fail, the row-weighted score (extension) and how many rules ended in each status.
    job_status is PASSED, FAILED, or NOT_EVALUATED for a job that evaluated no rule (all skipped,
    errored or suspended): such a job has score and passed NULL, never a vacuous pass.
    rules_total counts the rules the job ran; rules_declared how many its data source declares
    (NULL on rows written before it was recorded): fewer ran in a partial run (--select, retry). -#}
{{ config(materialized='view') }}

with jobs as (
    select
        data_quality_job_id,
        dbt_node_unique_id,
        data_source_key,
        dbt_target,
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
        job_declared_rule_count,
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
    case when c.rules_evaluated > 0 then j.job_passed end as passed,
    case when c.rules_evaluated = 0 then 'NOT_EVALUATED' when c.rules_failed > 0 then 'FAILED' else 'PASSED' end as job_status,
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
    j.job_declared_rule_count as rules_declared,
    j.dbt_invocation_id
from jobs as j
inner join counts as c
    on j.data_quality_job_id = c.data_quality_job_id
where j.row_in_job = 1
