{#- The latest result of every rule still declared on each data source (issue 9 B, docs/SEMANTICS.md §8 "Partial runs").

    A data source is its relation and the dbt target that reported it (data_source_key, dbt_target):
    two targets exporting to one results table, or two projects' nodes over one table, stay apart.
    Per data source:
      - its latest job (greatest job_start_time, ties: greatest data_quality_job_id) says which rules
        the data source declares (job_declared_rules, every rule in the manifest of that run);
      - each declared rule's row is its own latest result, from whichever job last ran it: a
        `dbt build -s one_model`, a `--select` of one test or a `dbt retry` updates only the rules it
        ran, the others keep their latest result;
      - a rule no longer declared (removed from the project) drops out at the next report of its
        data source. Rows without job_declared_rules (written before it existed, or by hand) keep
        every rule's latest result.
    It reads the latest results table (dataplex_dq_latest_results: each rule's latest row, kept by the writer),
    never the history: the same rows as this definition over dq_rule_results, at a cost that does not grow with
    the history. -#}
{{ config(materialized='view') }}

with latest_rules as (
    {#- each rule's latest row(s): the definition of "latest", macros/results/latest_results.sql -#}
{{ dataplex_dq.latest_rule_results_sql('select * from ' ~ ref('dataplex_dq_latest_results')) }}
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
        from {{ ref('dataplex_dq_latest_results') }}
    ) as jobs
    where recency = 1
)

select h.*
from latest_rules as h
inner join latest_jobs as l
    on h.data_source_key = l.data_source_key
    and coalesce(h.dbt_target, '') = coalesce(l.dbt_target, '')
    {#- rule names are letters, digits and hyphens: '"name"' is in the JSON array text only for that rule #}
where l.job_declared_rules is null
    or {{ dbt.position(dbt.concat(["'\"'", 'h.rule_name', "'\"'"]), 'l.job_declared_rules') }} > 0
