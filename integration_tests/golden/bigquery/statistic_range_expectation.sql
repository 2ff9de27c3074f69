-- rule big-id-min-stat: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_bigints`
),
dq_counts as (
  select count(*) as row_count, coalesce(sum(case when `big_id` is null then 1 else 0 end), 0) as null_count, min(`big_id`) as stat_value from dq_scope
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.big-id-min-stat.8429cd74e7' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_bigints' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('big-id-min-stat' as string) as rule_name,
  cast('statistic_range_expectation' as string) as rule_type,
  cast('big_id' as string) as rule_column,
  cast('ACCURACY' as string) as rule_dimension,
  cast(null as float64) as rule_threshold,
  cast(false as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(case when coalesce(stat_value is not null and (stat_value >= cast('-9007199254740992' as int64)), false) then 'PASSED' else 'FAILED' end as string) as rule_status,
  cast(row_count as bigint) as row_count,
  cast(null as bigint) as evaluated_count,
  cast(null as bigint) as passed_count,
  cast(null_count as bigint) as null_count,
  cast(null as float64) as pass_ratio,
  cast(coalesce(stat_value is not null and (stat_value >= cast('-9007199254740992' as int64)), false) as boolean) as passed,
  cast(null as bigint) as assertion_row_count,
  cast(cast(stat_value as float64) as float64) as statistic_value,
  cast(null as string) as failing_rows_query,
  cast('{"name": "big-id-min-stat", "description": "MIN is -9007199254740993, below -9007199254740992 (equal as doubles).", "column": "big_id", "dimension": "ACCURACY", "statistic_range_expectation": {"min_value": "-9007199254740992", "statistic": "MIN"}}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast(null as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(cast(stat_value as string) as string) as statistic_value_text
from dq_counts
