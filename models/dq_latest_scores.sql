{#- "Latest score per table, dimension and column", long format. For each data source
    (dbt_node_unique_id), its latest job (greatest job_start_time, ties: greatest data_quality_job_id),
    one row per:
      score_level 'table',  column_name NULL, dimension '(overall)': the job's Dataplex score;
      score_level 'table',  column_name NULL, dimension D:           the job's score of dimension D;
      score_level 'column', column_name C,    dimension '(overall)': the score of column C;
      score_level 'column', column_name C,    dimension D:           column C's rules of dimension D. -#}
{{ config(materialized='view') }}

{%- set counts = ['rules_total', 'rules_evaluated', 'rules_passed', 'rules_failed', 'rules_errored', 'rules_skipped', 'rules_suspended'] %}

with latest_jobs as (
    select data_quality_job_id
    from (
        select
            data_quality_job_id,
            row_number() over (
                partition by dbt_node_unique_id
                order by job_start_time desc, data_quality_job_id desc
            ) as recency
        from {{ ref('dq_job_scores') }}
    ) as ranked
    where recency = 1
),

scores as (
    select
        {{ dataplex_dq.job_key_columns('t') }},
        'table' as score_level,
        cast(null as {{ dbt.type_string() }}) as column_name,
        '(overall)' as dimension,
        t.score,
        t.passed,
        {% for c in counts %}t.{{ c }},{% endfor %}
        t.dbt_invocation_id
    from {{ ref('dq_job_scores') }} as t

    union all

    select
        {{ dataplex_dq.job_key_columns('d') }},
        'table' as score_level,
        cast(null as {{ dbt.type_string() }}) as column_name,
        d.dimension,
        d.score,
        d.passed,
        {% for c in counts %}d.{{ c }},{% endfor %}
        d.dbt_invocation_id
    from {{ ref('dq_dimension_scores') }} as d

    union all

    select
        {{ dataplex_dq.job_key_columns('c') }},
        'column' as score_level,
        c.column_name,
        '(overall)' as dimension,
        c.score,
        c.passed,
        {% for n in counts %}c.{{ n }},{% endfor %}
        c.dbt_invocation_id
    from {{ ref('dq_column_scores') }} as c

    union all

    select
        {{ dataplex_dq.job_key_columns('cd') }},
        'column' as score_level,
        cd.column_name,
        cd.dimension,
        cd.score,
        cd.passed,
        {% for n in counts %}cd.{{ n }},{% endfor %}
        cd.dbt_invocation_id
    from {{ ref('dq_column_dimension_scores') }} as cd
)

select s.*
from scores as s
inner join latest_jobs as l
    on s.data_quality_job_id = l.data_quality_job_id
