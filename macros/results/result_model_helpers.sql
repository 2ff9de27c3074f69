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

{#- The flattened rule results (the columns of dq_rule_results) of a results table `relation` (alias r),
    optionally filtered (`where`, on r's columns): the body of dq_rule_results, of the latest results table
    (dataplex_dq_latest_results) when it is built from the history, and of the writer's step that keeps it. -#}
{% macro rule_results_select(relation, where=none) %}
select
    r.data_quality_job_id,
    r.dbt_node_unique_id,
    {#- the data source as the "latest" models key it: its relation, whatever dbt node wrote it -#}
    coalesce({{ dataplex_dq.struct_field('r.data_source', 'resource_name', dbt.type_string()) }}, r.dbt_node_unique_id) as data_source_key,
    r.dbt_target,
    {{ dataplex_dq.struct_field('r.data_source', 'resource_name', dbt.type_string()) }} as data_source_resource_name,
    {{ dataplex_dq.struct_field('r.data_source', 'table_project_id', dbt.type_string()) }} as table_project_id,
    {{ dataplex_dq.struct_field('r.data_source', 'dataset_id', dbt.type_string()) }} as dataset_id,
    {{ dataplex_dq.struct_field('r.data_source', 'table_id', dbt.type_string()) }} as table_id,
    {{ dataplex_dq.struct_field('r.data_quality_scan', 'data_scan_id', dbt.type_string()) }} as data_scan_id,
    r.job_start_time,
    r.job_end_time,
    {{ dataplex_dq.struct_field('r.job_quality_result', 'score', dataplex_dq.type_double()) }} as job_score,
    {{ dataplex_dq.struct_field('r.job_quality_result', 'passed', dbt.type_boolean()) }} as job_passed,
    {{ dataplex_dq.struct_field('r.job_quality_result', 'incremental_start', dbt.type_string()) }} as job_incremental_start,
    {{ dataplex_dq.struct_field('r.job_quality_result', 'incremental_end', dbt.type_string()) }} as job_incremental_end,
    r.job_row_weighted_score,
    r.job_rows_scanned,
    r.rule_name,
    r.rule_description,
    r.rule_type,
    r.rule_evaluation_type,
    r.rule_column,
    r.rule_dimension,
    r.rule_threshold_percent,
    {{ dataplex_dq.effective_rule_status('r') }} as rule_status,
    r.rule_passed,
    r.rule_suspended,
    r.rule_rows_evaluated,
    r.rule_rows_passed,
    r.rule_rows_null,
    r.rule_rows_passed_percent,
    r.rule_assertion_row_count,
    r.rule_statistic_value,
    r.rule_statistic_value_text,
    r.rule_message,
    r.rule_failed_records_query,
    r.dbt_invocation_id,
    r.dbt_test_unique_id,
    r.job_declared_rules,
    r.job_declared_rule_count,
    r.job_run_rule_count
from {{ relation }} as r{% if where %}
where {{ where }}{% endif %}
{%- endmacro %}
