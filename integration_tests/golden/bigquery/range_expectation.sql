-- rule qty-range-strict-both: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_numbers`
),
dq_counts as (
  select
    count(*) as row_count,
    coalesce(sum(case when `qty` is null then 1 else 0 end), 0) as null_count,
    sum(case when (`qty` > cast('10' as int64) and `qty` < cast('20' as int64)) then 1 else 0 end) as passed_count
  from dq_scope
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.qty-range-strict-both.fa1443bf69' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_numbers' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('qty-range-strict-both' as string) as rule_name,
  cast('range_expectation' as string) as rule_type,
  cast('qty' as string) as rule_column,
  cast('VALIDITY' as string) as rule_dimension,
  cast(1.0 as float64) as rule_threshold,
  cast(true as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(case when (case when (row_count - coalesce(null_count, 0)) = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / (row_count - coalesce(null_count, 0)) end) >= cast(1.0 as float64) then 'PASSED' else 'FAILED' end as string) as rule_status,
  cast(row_count as bigint) as row_count,
  cast((row_count - coalesce(null_count, 0)) as bigint) as evaluated_count,
  cast(coalesce(passed_count, 0) as bigint) as passed_count,
  cast(null_count as bigint) as null_count,
  cast(case when (row_count - coalesce(null_count, 0)) = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / (row_count - coalesce(null_count, 0)) end as float64) as pass_ratio,
  cast((case when (row_count - coalesce(null_count, 0)) = 0 then 1.0 else cast(coalesce(passed_count, 0) as float64) / (row_count - coalesce(null_count, 0)) end) >= cast(1.0 as float64) as boolean) as passed,
  cast(null as bigint) as assertion_row_count,
  cast(null as float64) as statistic_value,
  cast('select * from (select * from `dq-local`.`dq_it`.`dq_numbers`) dq_scope where not coalesce((`qty` is null or (`qty` > cast(\'10\' as int64) and `qty` < cast(\'20\' as int64))), false)' as string) as failing_rows_query,
  cast('{"name": "qty-range-strict-both", "column": "qty", "dimension": "VALIDITY", "ignore_null": true, "range_expectation": {"min_value": "10", "max_value": "20", "strict_min_enabled": true, "strict_max_enabled": true}, "debug_queries": [{"sql_statement": "select count(*) as at_or_above_max, max(qty) as max_qty from ${data()} where qty >= 20", "description": "rows at or above the max, and the largest qty"}]}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast('[{"description": "rows at or above the max, and the largest qty", "sql_statement": "select count(*) as at_or_above_max, max(qty) as max_qty from (select * from `dq-local`.`dq_it`.`dq_numbers`) where qty >= 20"}]' as string) as debug_queries_sql,
  cast(null as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(null as string) as statistic_value_text
from dq_counts
