-- rule event-ts-not-null: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> 'test')
),
dq_counts as (
  select
    count(*) as row_count,
    coalesce(sum(case when `event_ts` is null then 1 else 0 end), 0) as null_count,
    sum(case when (`event_ts` is not null) then 1 else 0 end) as passed_count
  from dq_scope
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.event-ts-not-null.560fcbf58e' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_events' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('event-ts-not-null' as string) as rule_name,
  cast('non_null_expectation' as string) as rule_type,
  cast('event_ts' as string) as rule_column,
  cast('COMPLETENESS' as string) as rule_dimension,
  cast(0.9 as float64) as rule_threshold,
  cast(false as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(case when (case when row_count = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / row_count end) >= cast(0.9 as float64) then 'PASSED' else 'FAILED' end as string) as rule_status,
  cast(row_count as bigint) as row_count,
  cast(row_count as bigint) as evaluated_count,
  cast(coalesce(passed_count, 0) as bigint) as passed_count,
  cast(null_count as bigint) as null_count,
  cast(case when row_count = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / row_count end as float64) as pass_ratio,
  cast((case when row_count = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / row_count end) >= cast(0.9 as float64) as boolean) as passed,
  cast(null as bigint) as assertion_row_count,
  cast(null as float64) as statistic_value,
  cast('select * from (select * from `dq-local`.`dq_it`.`dq_events` where (source_system <> \'test\')) dq_scope where not coalesce((`event_ts` is not null), false)' as string) as failing_rows_query,
  cast('{"name": "event-ts-not-null", "column": "event_ts", "dimension": "COMPLETENESS", "threshold": 0.9, "non_null_expectation": {}}' as string) as rule_spec,
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
