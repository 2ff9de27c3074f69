-- rule events-before-2024: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')
),
dq_counts as (
  select count(*) as row_count, coalesce(sum(case when `event_date` is null then 1 else 0 end), 0) as null_count from dq_scope
),
dq_assertion as (
  select count(*) as assertion_row_count from (
select event_date from (select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')) where event_date < date '2024-01-01'
  ) dq_assertion_rows
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.events-before-2024.62828c460d' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_events' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('events-before-2024' as string) as rule_name,
  cast('sql_assertion' as string) as rule_type,
  cast('event_date' as string) as rule_column,
  cast('TIMELINESS' as string) as rule_dimension,
  cast(null as float64) as rule_threshold,
  cast(false as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(case when assertion_row_count = 0 then 'PASSED' else 'FAILED' end as string) as rule_status,
  cast(row_count as bigint) as row_count,
  cast(null as bigint) as evaluated_count,
  cast(null as bigint) as passed_count,
  cast(null_count as bigint) as null_count,
  cast(null as float64) as pass_ratio,
  cast(assertion_row_count = 0 as boolean) as passed,
  cast(assertion_row_count as bigint) as assertion_row_count,
  cast(null as float64) as statistic_value,
  cast(null as string) as failing_rows_query,
  cast('{"name": "events-before-2024", "column": "event_date", "dimension": "TIMELINESS", "sql_assertion": {"sql_statement": "select event_date from ${data()} where event_date < date \'2024-01-01\'"}}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast('source_system <> \'test\'' as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(null as string) as statistic_value_text
from dq_counts cross join dq_assertion
