{#- dq_latest_scores as it was before issue 32 (latest jobs ranked over dq_job_scores, the whole history), over old_rule_results_latest. -#}
{{ config(materialized='view') }}

{%- set counts = ['rules_total', 'rules_evaluated', 'rules_passed', 'rules_failed', 'rules_errored', 'rules_skipped', 'rules_suspended'] %}
{%- set groups = [
    ('table', none, none),
    ('table', none, 'rule_dimension'),
    ('column', 'rule_column', none),
    ('column', 'rule_column', 'rule_dimension'),
] %}

with latest_jobs as (
    select *
    from (
        select
            j.*,
            row_number() over (
                partition by j.data_source_key, j.dbt_target
                order by j.job_start_time desc, j.data_quality_job_id desc
            ) as recency
        from {{ ref('dq_job_scores') }} as j
    ) as ranked
    where recency = 1
),

latest_rules as (
    select * from {{ ref('old_rule_results_latest') }}
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
