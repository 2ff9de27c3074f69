{#- The latest results table (models/dataplex_dq_latest_results.sql, docs/SEMANTICS.md §10): for each data source
    (data_source_key, dbt_target) and rule name, the row(s) of its latest result, in dq_rule_results' columns. The
    "latest" models read it alone, so what they cost does not grow with the history. Built from the history when
    the model is first built (or with --full-refresh); after that the writer keeps it (hook_latest_step, in the
    same transaction as the rows it writes), and applies the retention setting (hook_retention_step). -#}

{#- The rows of `rows_sql` (flattened rule results) that are the latest result of their rule: per
    (data_source_key, dbt_target, rule_name), the job with the greatest job_start_time (ties: the greatest
    data_quality_job_id), every row of that job with that rule name. The definition dq_rule_results_latest had
    over the whole history (its `ranked` CTE). -#}
{% macro latest_rule_results_sql(rows_sql) %}
  {%- set sql -%}
select h.*
from (
{{ rows_sql }}
) as h
inner join (
    select
        data_quality_job_id,
        rule_name,
        row_number() over (
            partition by data_source_key, dbt_target, rule_name
            order by job_start_time desc, data_quality_job_id desc
        ) as recency
    from (
{{ rows_sql }}
    ) as k0
) as k
    on h.data_quality_job_id = k.data_quality_job_id
    and h.rule_name = k.rule_name
where k.recency = 1
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The latest results table's relation: where dbt builds the package model dataplex_dq_latest_results, none when
    the project has no such node (disabled) or the table does not exist (not built yet: the models that read it
    do not exist either). -#}
{% macro hook_latest_relation() %}
  {%- set node = graph.nodes.get('model.dataplex_dq.dataplex_dq_latest_results') -%}
  {%- if not node or not node.get('schema') -%}{{ return(none) }}{%- endif -%}
  {{ return(adapter.get_relation(database=node.get('database'), schema=node.get('schema'), identifier=node.get('alias') or 'dataplex_dq_latest_results')) }}
{% endmacro %}

{#- A NULL-safe equality of the key columns of two aliases (a NULL dbt_target is a target of its own). -#}
{% macro latest_key_match(a, b) %}
  {%- set parts = [] -%}
  {%- for c in ['data_source_key', 'dbt_target', 'rule_name'] -%}
    {%- do parts.append('(' ~ a ~ '.' ~ c ~ ' = ' ~ b ~ '.' ~ c ~ ' or (' ~ a ~ '.' ~ c ~ ' is null and ' ~ b ~ '.' ~ c ~ ' is null))') -%}
  {%- endfor -%}
  {{ return(parts | join(' and ')) }}
{% endmacro %}

{#- Writer step (record_invocation, inside hook_write's transaction, after the INSERT): the invocation's rows
    replace, in the latest results table, each rule's row that they are as recent as or more recent than, and
    become the latest result of the rules they are the first of. Nothing when the table does not exist.
    Returns the latest results table (or none), for hook_retention_step. -#}
{% macro hook_latest_step(plan, relation) %}
  {%- set latest = dataplex_dq.hook_latest_relation() -%}
  {%- if latest is none -%}{{ return(none) }}{%- endif -%}
  {%- set rows = dataplex_dq.rule_results_select(relation, 'r.dbt_invocation_id = ' ~ dataplex_dq.string_literal(plan.invocation)) -%}
  {%- set newest = dataplex_dq.latest_rule_results_sql(rows) -%}
  {%- set newer = "(n.job_start_time > l.job_start_time or (n.job_start_time = l.job_start_time and n.data_quality_job_id >= l.data_quality_job_id))" -%}
  {%- do run_query(dataplex_dq.latest_supersede_sql(latest, newest, newer)) -%}
  {%- set names = adapter.get_columns_in_relation(latest) | map(attribute='name') | list -%}
  {%- set cols = names | join(', ') -%}
  {%- set insert_sql -%}
insert into {{ latest }} ({{ cols }})
select {{ cols }}
from (
{{ newest }}
) as n
where not exists (select 1 from {{ latest }} as l where {{ dataplex_dq.latest_key_match('n', 'l') }})
  {%- endset -%}
  {%- do run_query(insert_sql) -%}
  {{ return(latest) }}
{% endmacro %}

{#- Writer step (after hook_latest_step): with the var dataplex_dq_retention_days = N, delete the rows of jobs
    that started more than N days before now (UTC), except the rows of this invocation and every job that holds
    the latest result of some rule (the jobs of the latest results table): the latest models never change
    because of retention, the history models lose the older jobs. `days`: the var's value; the writer calls this
    step only when the var is set (hook_write: without it, nothing, and dbt never compiles this macro). -#}
{% macro hook_retention_step(plan, relation, latest, days) %}
  {%- if not modules.re.match('^[0-9]+$', days | string) -%}
    {{ exceptions.raise_compiler_error("dataplex_dq on-run-end: var dataplex_dq_retention_days must be a whole number of days, not " ~ (days | string)) }}
  {%- endif -%}
  {%- set cutoff = modules.datetime.datetime.utcnow() - modules.datetime.timedelta(days=days | int) -%}
  {%- set keep_sql = ('select distinct data_quality_job_id from ' ~ latest) if latest is not none
      else 'select distinct data_quality_job_id from (\n' ~ dataplex_dq.latest_rule_results_sql(dataplex_dq.rule_results_select(relation)) ~ '\n) as dq_h' -%}
  {%- set old = "dq_target.job_start_time < " ~ dataplex_dq.hook_timestamp_sql(cutoff)
      ~ " and (dq_target.dbt_invocation_id is null or dq_target.dbt_invocation_id <> " ~ dataplex_dq.string_literal(plan.invocation) ~ ")" -%}
  {%- do run_query(dataplex_dq.retention_delete_sql(relation, keep_sql, old)) -%}
  {{ return('') }}
{% endmacro %}
