-- rule events-count-matches-data: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')
),
dq_counts as (
  select count(*) as row_count, null as null_count from dq_scope
),
dq_condition as (
  select coalesce(min(case when dq_value then 1 else 0 end), 1) as condition_ok from (
    select (count(*) = (select count(*) from (select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')))) as dq_value from dq_scope
  ) dq_values
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.events-count-matches-data.0ca89a6aa2' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_events' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('events-count-matches-data' as string) as rule_name,
  cast('table_condition_expectation' as string) as rule_type,
  cast(null as string) as rule_column,
  cast('CONSISTENCY' as string) as rule_dimension,
  cast(null as float64) as rule_threshold,
  cast(false as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(case when condition_ok = 1 then 'PASSED' else 'FAILED' end as string) as rule_status,
  cast(row_count as bigint) as row_count,
  cast(null as bigint) as evaluated_count,
  cast(null as bigint) as passed_count,
  cast(null_count as bigint) as null_count,
  cast(null as float64) as pass_ratio,
  cast(condition_ok = 1 as boolean) as passed,
  cast(null as bigint) as assertion_row_count,
  cast(null as float64) as statistic_value,
  cast(null as string) as failing_rows_query,
  cast('{"name": "events-count-matches-data", "dimension": "CONSISTENCY", "table_condition_expectation": {"sql_expression": "count(*) = (select count(*) from ${data()})"}}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast('source_system <> \'test\'' as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(null as string) as statistic_value_text
from dq_counts cross join dq_condition
