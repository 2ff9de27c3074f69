-- rule event-date-after-scope-min: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')
),
dq_counts as (
  select
    count(*) as row_count,
    coalesce(sum(case when `event_date` is null then 1 else 0 end), 0) as null_count,
    sum(case when (event_date > (select min(event_date) from (select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')))) then 1 else 0 end) as passed_count
  from dq_scope
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.event-date-after-scope-min.64e2c2d92b' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_events' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('event-date-after-scope-min' as string) as rule_name,
  cast('row_condition_expectation' as string) as rule_type,
  cast('event_date' as string) as rule_column,
  cast('CONSISTENCY' as string) as rule_dimension,
  cast(1.0 as float64) as rule_threshold,
  cast(false as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(case when (case when row_count = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / row_count end) >= cast(1.0 as float64) then 'PASSED' else 'FAILED' end as string) as rule_status,
  cast(row_count as bigint) as row_count,
  cast(row_count as bigint) as evaluated_count,
  cast(coalesce(passed_count, 0) as bigint) as passed_count,
  cast(null_count as bigint) as null_count,
  cast(case when row_count = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / row_count end as float64) as pass_ratio,
  cast((case when row_count = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / row_count end) >= cast(1.0 as float64) as boolean) as passed,
  cast(null as bigint) as assertion_row_count,
  cast(null as float64) as statistic_value,
  cast('select * from (select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> \'test\')) dq_scope where not coalesce((event_date > (select min(event_date) from (select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> \'test\')))), false)' as string) as failing_rows_query,
  cast('{"name": "event-date-after-scope-min", "description": "Compares with a ${data()} subquery, which must apply the row filter.", "column": "event_date", "dimension": "CONSISTENCY", "row_condition_expectation": {"sql_expression": "event_date > (select min(event_date) from ${data()})"}}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast('source_system <> \'test\'' as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(null as string) as statistic_value_text
from dq_counts
