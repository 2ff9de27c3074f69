{#- Anomaly checks over time (docs/SEMANTICS.md §13): one row per check and job, with the value judged, the band
    it was judged against and the verdict, read from the results table like every rule. A re-run of a reference time
    (dataplex_dq_anomaly_now) is a job of its own and judges the same bucket again; is_latest_verdict marks the row of
    the latest job per data source, dbt target, check and bucket, the verdict the detector's tables (in the target's
    schema) keep: one per job for the per-job checks, whose bucket is the job. -#}
{{ config(materialized='view') }}

{%- set a = 'r.rule_attributes' %}
{%- set time_bucket = dataplex_dq.json_text_field(a, 'time_bucket') %}
{%- set bucket_start = dataplex_dq.json_text_field(a, 'bucket_start') %}
select
    r.data_quality_job_id,
    r.dbt_node_unique_id,
    {{ dataplex_dq.struct_field('r.data_source', 'resource_name', dbt.type_string()) }} as data_source_resource_name,
    {{ dataplex_dq.struct_field('r.data_source', 'table_id', dbt.type_string()) }} as table_id,
    r.job_start_time,
    r.rule_name as check_name,
    {{ dataplex_dq.json_text_field(a, 'anomaly_check') }} as check_kind,
    {{ dataplex_dq.json_text_field(a, 'anomaly_metric') }} as metric,
    r.rule_column,
    r.rule_dimension,
    {{ dataplex_dq.effective_rule_status('r') }} as rule_status,
    {{ dataplex_dq.json_text_field(a, 'anomaly_status') }} as anomaly_status,
    {{ dataplex_dq.json_text_field(a, 'anomaly_status') }} = 'anomalous' as is_anomaly,
    {{ dataplex_dq.json_text_field(a, 'anomaly_status') }} = 'training' as is_training,
    {{ dataplex_dq.json_number_field(a, 'value') }} as value,
    {{ dataplex_dq.json_number_field(a, 'expected') }} as expected,
    {{ dataplex_dq.json_number_field(a, 'lower_bound') }} as lower_bound,
    {{ dataplex_dq.json_number_field(a, 'upper_bound') }} as upper_bound,
    {{ dataplex_dq.json_number_field(a, 'training_count') }} as training_count,
    {{ time_bucket }} as time_bucket,
    {{ bucket_start }} as bucket_start,
    {{ dataplex_dq.json_number_field(a, 'sensitivity') }} as sensitivity,
    {{ dataplex_dq.json_text_field(a, 'seasonality') }} as seasonality,
    {#- a per-job check's bucket is its job (its bucket_start is the job's reference time, which a re-run repeats) -#}
    row_number() over (
        partition by r.dbt_node_unique_id, r.dbt_target, r.rule_name, {{ time_bucket }},
            case when {{ time_bucket }} = 'job' then r.data_quality_job_id else {{ bucket_start }} end
        order by r.job_start_time desc, r.data_quality_job_id desc
    ) = 1 as is_latest_verdict,
    r.dbt_invocation_id,
    r.dbt_test_unique_id
from {{ ref('dataplex_dq_results') }} as r
where {{ dataplex_dq.json_text_field(a, 'anomaly_check') }} is not null
