{#- Helpers of the result models (models/dq_*.sql, docs/SEMANTICS.md §10 and §9). Everything that differs between
    warehouses is dispatched: dataplex_dq.<name>() -> adapter.dispatch('<name>', 'dataplex_dq'). -#}

{#- The status of a rule in a job: rule_status (PASSED, FAILED, ERROR, SKIPPED, SUSPENDED), or, for a
    row without it, derived from rule_suspended / rule_passed as Dataplex's own export has them. -#}
{% macro effective_rule_status(alias='') %}
  {%- set p = (alias ~ '.') if alias else '' -%}
  coalesce(
    upper({{ p }}rule_status),
    case
      when {{ p }}rule_suspended then 'SUSPENDED'
      when {{ p }}rule_passed then 'PASSED'
      when not {{ p }}rule_passed then 'FAILED'
    end
  )
{%- endmacro %}

{#- Rule counts of a GROUP BY over dq_rule_results (column rule_status). Evaluated = PASSED or FAILED:
    suspended, errored and skipped rules are in no score (docs/SEMANTICS.md §7). -#}
{% macro rule_count_columns(status_column='rule_status') %}
    count(*) as rules_total,
    count(case when {{ status_column }} in ('PASSED', 'FAILED') then 1 end) as rules_evaluated,
    count(case when {{ status_column }} = 'PASSED' then 1 end) as rules_passed,
    count(case when {{ status_column }} = 'FAILED' then 1 end) as rules_failed,
    count(case when {{ status_column }} = 'ERROR' then 1 end) as rules_errored,
    count(case when {{ status_column }} = 'SKIPPED' then 1 end) as rules_skipped,
    count(case when {{ status_column }} = 'SUSPENDED' then 1 end) as rules_suspended
{%- endmacro %}

{#- score and passed of a group from its rule counts (alias of the counts subquery): score NULL and
    passed NULL when no rule of the group was evaluated. -#}
{% macro group_score_columns(alias) %}
    {{ dataplex_dq.score_percent(alias ~ '.rules_passed', alias ~ '.rules_evaluated') }} as score,
    case when {{ alias }}.rules_evaluated > 0 then {{ alias }}.rules_failed = 0 end as passed
{%- endmacro %}

{#- The job and data-source columns every score model starts with (alias of a dq_job_scores row). -#}
{% macro job_key_columns(alias) %}
    {{ alias }}.data_quality_job_id,
    {{ alias }}.dbt_node_unique_id,
    {{ alias }}.data_source_key,
    {{ alias }}.dbt_target,
    {{ alias }}.data_source_resource_name,
    {{ alias }}.table_project_id,
    {{ alias }}.dataset_id,
    {{ alias }}.table_id,
    {{ alias }}.job_start_time,
    {{ alias }}.job_end_time
{%- endmacro %}
