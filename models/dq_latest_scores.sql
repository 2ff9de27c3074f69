{#- "Latest score per table, dimension and column", long format (issue 9 B, docs/SEMANTICS.md §8 "Partial runs").
    For each data source (its relation and dbt target: data_source_key, dbt_target), the scores over
    the latest result of every rule still declared on it (dq_rule_results_latest), so a partial run
    (--select, dbt retry, skipped tests) updates only the rules it ran and never makes a data source
    look as if it had only those. The job columns are those of the data source's latest job. One row per:
      score_level 'table',  column_name NULL, dimension '(overall)': the data source's score;
      score_level 'table',  column_name NULL, dimension D:           its score of dimension D;
      score_level 'column', column_name C,    dimension '(overall)': the score of column C;
      score_level 'column', column_name C,    dimension D:           column C's rules of dimension D.
    It reads the latest results table only (dataplex_dq_latest_results), never the history. -#}
{{ config(materialized='view') }}

{%- set counts = ['rules_total', 'rules_evaluated', 'rules_passed', 'rules_failed', 'rules_errored', 'rules_skipped', 'rules_suspended'] %}
{%- set groups = [
    ('table', none, none),
    ('table', none, 'rule_dimension'),
    ('column', 'rule_column', none),
    ('column', 'rule_column', 'rule_dimension'),
] %}

{#- the data source's latest job: its columns as dq_job_scores has them (a job's first row by rule_name), read
    from the latest results table, which holds every row of each data source's latest job -#}
with latest_jobs as (
    select *
    from (
        select
            j.*,
            j.job_declared_rule_count as rules_declared,
            row_number() over (
                partition by j.data_source_key, j.dbt_target
                order by j.job_start_time desc, j.data_quality_job_id desc, j.rule_name
            ) as recency
        from {{ ref('dataplex_dq_latest_results') }} as j
    ) as ranked
    where recency = 1
),

latest_rules as (
    select * from {{ ref('dq_rule_results_latest') }}
),

{% for level, column, dimension in groups %}
group_{{ loop.index }} as (
    select
        data_source_key,
        dbt_target,
        '{{ level }}' as score_level,
        {{ column if column else "cast(null as " ~ dbt.type_string() ~ ")" }} as column_name,
        {{ dimension if dimension else "'(overall)'" }} as dimension,
        {{ dataplex_dq.rule_count_columns() }}
    from latest_rules
    where 1 = 1
        {%- if column %} and {{ column }} is not null{% endif %}
        {%- if dimension %} and {{ dimension }} is not null{% endif %}
    group by data_source_key, dbt_target{% if column %}, {{ column }}{% endif %}{% if dimension %}, {{ dimension }}{% endif %}
),
{% endfor %}

scores as (
    {% for level, column, dimension in groups %}
    select * from group_{{ loop.index }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select
    {{ dataplex_dq.job_key_columns('l') }},
    s.score_level,
    s.column_name,
    s.dimension,
    {{ dataplex_dq.group_score_columns('s') }},
    {% for c in counts %}s.{{ c }},{% endfor %}
    l.rules_declared,
    l.dbt_invocation_id
from scores as s
inner join latest_jobs as l
    on s.data_source_key = l.data_source_key
    and coalesce(s.dbt_target, '') = coalesce(l.dbt_target, '')
