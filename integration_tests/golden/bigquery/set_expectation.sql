-- rule name-set-quoted: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_strings`
),
dq_counts as (
  select
    count(*) as row_count,
    coalesce(sum(case when `name` is null then 1 else 0 end), 0) as null_count,
    sum(case when (`name` in ('O\'Brien', 'She said "hi"', 'C:\\temp\\new', 'Zoë', '東京', '🎉 party')) then 1 else 0 end) as passed_count
  from dq_scope
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.name-set-quoted.c1129bc84d' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_strings' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('name-set-quoted' as string) as rule_name,
  cast('set_expectation' as string) as rule_type,
  cast('name' as string) as rule_column,
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
  cast('select * from (select * from `dq-local`.`dq_it`.`dq_strings`) dq_scope where not coalesce((`name` is null or (`name` in (\'O\\\'Brien\', \'She said "hi"\', \'C:\\\\temp\\\\new\', \'Zoë\', \'東京\', \'🎉 party\'))), false)' as string) as failing_rows_query,
  cast('{"name": "name-set-quoted", "description": "Set values with a single quote, double quotes, backslashes, unicode and an emoji.", "column": "name", "dimension": "VALIDITY", "ignore_null": true, "set_expectation": {"values": ["O\'Brien", "She said \\"hi\\"", "C:\\\\temp\\\\new", "Zo\\u00eb", "\\u6771\\u4eac", "\\ud83c\\udf89 party"]}}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast(null as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(null as string) as statistic_value_text
from dq_counts
