{#- One row per job and column (rules with a column only): Dataplex's column score over the column's
    evaluated rules. Per column and dimension: dq_column_dimension_scores. -#}
{{ config(materialized='view') }}

with counts as (
    select
        data_quality_job_id,
        rule_column as column_name,
        {{ dataplex_dq.rule_count_columns() }}
    from {{ ref('dq_rule_results') }}
    where rule_column is not null
    group by data_quality_job_id, rule_column
)

select
    {{ dataplex_dq.job_key_columns('j') }},
    c.column_name,
    {{ dataplex_dq.group_score_columns('c') }},
    c.rules_total,
    c.rules_evaluated,
    c.rules_passed,
    c.rules_failed,
    c.rules_errored,
    c.rules_skipped,
    c.rules_suspended,
    j.dbt_invocation_id
from counts as c
inner join {{ ref('dq_job_scores') }} as j
    on c.data_quality_job_id = j.data_quality_job_id
