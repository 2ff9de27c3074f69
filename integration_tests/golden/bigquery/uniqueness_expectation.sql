-- rule customer-ref-unique-where: dbt's compiled test SQL on BigQuery

  with dq_scope as (
  select * from (select * from `dq-local`.`dq_it`.`dq_strings` where id >= 3) dbt_subquery
),
dq_counts as (
  select count(*) as row_count, coalesce(sum(case when `customer_ref` is null then 1 else 0 end), 0) as null_count from dq_scope
),
dq_unique as (
  select count(*) as passed_count from (
    select `customer_ref` from dq_scope where `customer_ref` is not null group by `customer_ref` having count(*) = 1
  ) dq_singletons
)
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_integration_tests.customer-ref-unique-where.95036e71c7' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_integration_tests.dq_strings' as string) as dq_data_source,
  cast(0 as INT64) as rule_index,
  cast('customer-ref-unique-where' as string) as rule_name,
  cast('uniqueness_expectation' as string) as rule_type,
  cast('customer_ref' as string) as rule_column,
  cast('UNIQUENESS' as string) as rule_dimension,
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
  cast('select * from (select * from (select * from `dq-local`.`dq_it`.`dq_strings` where id >= 3) dbt_subquery) dq_scope where `customer_ref` in (select `customer_ref` from (select * from (select * from `dq-local`.`dq_it`.`dq_strings` where id >= 3) dbt_subquery) dq_scope where `customer_ref` is not null group by `customer_ref` having count(*) > 1)' as string) as failing_rows_query,
  cast('{"name": "customer-ref-unique-where", "description": "With id >= 3 the first C2 is out of scope, so the other C2 is unique.", "column": "customer_ref", "dimension": "UNIQUENESS", "ignore_null": true, "uniqueness_expectation": {}}' as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast(null as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(null as string) as statistic_value_text
from dq_counts cross join dq_unique
