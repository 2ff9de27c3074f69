-- data_quality_scan dq_all_null_scan: uniqueness on a FLOAT64 column

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`dq_all_null`
),
dq_agg as (
  select
    count(*) as dq_m0,
    coalesce(sum(case when `val` is null then 1 else 0 end), 0) as dq_m1,
    sum(case when (coalesce(val, 0) = 0) then 1 else 0 end) as dq_m2,
    sum(case when (`val` is not null) then 1 else 0 end) as dq_m3,
    sum(case when (`val` >= cast('0' as float64)) then 1 else 0 end) as dq_m4,
    max(`val`) as dq_m5,
    coalesce(sum(case when `note` is null then 1 else 0 end), 0) as dq_m6,
    sum(case when (regexp_contains(cast(`note` as string), '.*')) then 1 else 0 end) as dq_m7,
    sum(case when (`note` in ('a')) then 1 else 0 end) as dq_m8
  from dq_scope
),
dq_u0 as (
  select count(*) as dq_u0 from (
    select `val` from dq_scope where `val` is not null group by `val` having count(*) = 1
  ) dq_singletons
)
select
  dq_invocation_id,
  dq_test_unique_id,
  dq_data_source,
  rule_index,
  rule_name,
  rule_type,
  rule_column,
  rule_dimension,
  rule_threshold,
  rule_ignore_null,
  rule_suspended,
  cast(case when rule_suspended then 'SUSPENDED' when passed then 'PASSED' else 'FAILED' end as string) as rule_status,
  row_count,
  evaluated_count,
  passed_count,
  null_count,
  pass_ratio,
  passed,
  assertion_row_count,
  statistic_value,
  failing_rows_query,
  rule_spec,
  rule_attributes,
  debug_queries_sql,
  scope_row_filter,
  scope_sampling_percent,
  evaluated_at,
  incremental_field,
  incremental_start,
  incremental_end,
  statistic_value_text
from (
select
  cast('<invocation_id>' as string) as dq_invocation_id,
  cast('test.dataplex_dq_scan_tests.dq_all_null_scan.0bac046225' as string) as dq_test_unique_id,
  cast('seed.dataplex_dq_scan_tests.dq_all_null' as string) as dq_data_source,
  cast(dq_rules.rule_index as INT64) as rule_index,
  cast(case dq_rules.rule_index when 0 then 'all-null-val-coalesce'
    when 1 then 'all-null-val-not-null'
    when 2 then 'all-null-val-range-ignore-null'
    when 3 then 'all-null-val-range'
    when 4 then 'all-null-val-max'
    when 5 then 'all-null-val-unique-ignore-null'
    when 6 then 'all-null-val-unique'
    when 7 then 'all-null-note-regex'
    when 8 then 'all-null-note-set' end as string) as rule_name,
  cast(case dq_rules.rule_index when 0 then 'row_condition_expectation'
    when 1 then 'non_null_expectation'
    when 2 then 'range_expectation'
    when 3 then 'range_expectation'
    when 4 then 'statistic_range_expectation'
    when 5 then 'uniqueness_expectation'
    when 6 then 'uniqueness_expectation'
    when 7 then 'regex_expectation'
    when 8 then 'set_expectation' end as string) as rule_type,
  cast(case dq_rules.rule_index when 0 then 'val'
    when 1 then 'val'
    when 2 then 'val'
    when 3 then 'val'
    when 4 then 'val'
    when 5 then 'val'
    when 6 then 'val'
    when 7 then 'note'
    when 8 then 'note' end as string) as rule_column,
  cast(case dq_rules.rule_index when 0 then 'COMPLETENESS'
    when 1 then 'COMPLETENESS'
    when 2 then 'VALIDITY'
    when 3 then 'VALIDITY'
    when 4 then 'ACCURACY'
    when 5 then 'UNIQUENESS'
    when 6 then 'UNIQUENESS'
    when 7 then 'VALIDITY'
    when 8 then null end as string) as rule_dimension,
  cast(case dq_rules.rule_index when 0 then 1.0
    when 1 then 1.0
    when 2 then 1.0
    when 3 then 1.0
    when 4 then null
    when 5 then 1.0
    when 6 then 1.0
    when 7 then 1.0
    when 8 then 1.0 end as float64) as rule_threshold,
  cast(case dq_rules.rule_index when 0 then false
    when 1 then false
    when 2 then true
    when 3 then false
    when 4 then false
    when 5 then true
    when 6 then false
    when 7 then true
    when 8 then true end as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(dq_m0 as bigint) as row_count,
  cast(case dq_rules.rule_index when 0 then dq_m0
    when 1 then dq_m0
    when 2 then (dq_m0 - coalesce(dq_m1, 0))
    when 3 then dq_m0
    when 4 then null
    when 5 then (dq_m0 - coalesce(dq_m1, 0))
    when 6 then dq_m0
    when 7 then (dq_m0 - coalesce(dq_m6, 0))
    when 8 then (dq_m0 - coalesce(dq_m6, 0)) end as bigint) as evaluated_count,
  cast(case dq_rules.rule_index when 0 then coalesce(dq_m2, 0)
    when 1 then coalesce(dq_m3, 0)
    when 2 then coalesce(dq_m4, 0)
    when 3 then coalesce(dq_m4, 0)
    when 4 then null
    when 5 then coalesce(dq_u0.dq_u0, 0)
    when 6 then coalesce(dq_u0.dq_u0, 0)
    when 7 then coalesce(dq_m7, 0)
    when 8 then coalesce(dq_m8, 0) end as bigint) as passed_count,
  cast(case dq_rules.rule_index when 0 then dq_m1
    when 1 then dq_m1
    when 2 then dq_m1
    when 3 then dq_m1
    when 4 then dq_m1
    when 5 then dq_m1
    when 6 then dq_m1
    when 7 then dq_m6
    when 8 then dq_m6 end as bigint) as null_count,
  cast(case dq_rules.rule_index when 0 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m2, 0) as float64) / dq_m0 end
    when 1 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m3, 0) as float64) / dq_m0 end
    when 2 then case when (dq_m0 - coalesce(dq_m1, 0)) = 0 then 1.0 else cast(coalesce(dq_m4, 0) as float64) / (dq_m0 - coalesce(dq_m1, 0)) end
    when 3 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m4, 0) as float64) / dq_m0 end
    when 4 then null
    when 5 then case when (dq_m0 - coalesce(dq_m1, 0)) = 0 then 1.0 else cast(coalesce(dq_u0.dq_u0, 0) as float64) / (dq_m0 - coalesce(dq_m1, 0)) end
    when 6 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_u0.dq_u0, 0) as float64) / dq_m0 end
    when 7 then case when (dq_m0 - coalesce(dq_m6, 0)) = 0 then 1.0 else cast(coalesce(dq_m7, 0) as float64) / (dq_m0 - coalesce(dq_m6, 0)) end
    when 8 then case when (dq_m0 - coalesce(dq_m6, 0)) = 0 then 1.0 else cast(coalesce(dq_m8, 0) as float64) / (dq_m0 - coalesce(dq_m6, 0)) end end as float64) as pass_ratio,
  cast(case dq_rules.rule_index when 0 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m2, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 1 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m3, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 2 then (case when (dq_m0 - coalesce(dq_m1, 0)) = 0 then 1.0 else cast(coalesce(dq_m4, 0) as float64) / (dq_m0 - coalesce(dq_m1, 0)) end) >= cast(1.0 as float64)
    when 3 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m4, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 4 then coalesce(dq_m5 is not null and (dq_m5 <= cast('10' as float64)), false)
    when 5 then (case when (dq_m0 - coalesce(dq_m1, 0)) = 0 then 1.0 else cast(coalesce(dq_u0.dq_u0, 0) as float64) / (dq_m0 - coalesce(dq_m1, 0)) end) >= cast(1.0 as float64)
    when 6 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_u0.dq_u0, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 7 then (case when (dq_m0 - coalesce(dq_m6, 0)) = 0 then 1.0 else cast(coalesce(dq_m7, 0) as float64) / (dq_m0 - coalesce(dq_m6, 0)) end) >= cast(1.0 as float64)
    when 8 then (case when (dq_m0 - coalesce(dq_m6, 0)) = 0 then 1.0 else cast(coalesce(dq_m8, 0) as float64) / (dq_m0 - coalesce(dq_m6, 0)) end) >= cast(1.0 as float64) end as boolean) as passed,
  cast(null as bigint) as assertion_row_count,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then cast(dq_m5 as float64)
    when 5 then null
    when 6 then null
    when 7 then null
    when 8 then null end as float64) as statistic_value,
  cast(case dq_rules.rule_index when 0 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where not coalesce((coalesce(val, 0) = 0), false)'
    when 1 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where not coalesce((`val` is not null), false)'
    when 2 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where not coalesce((`val` is null or (`val` >= cast(\'0\' as float64))), false)'
    when 3 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where not coalesce((`val` >= cast(\'0\' as float64)), false)'
    when 4 then null
    when 5 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where `val` in (select `val` from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where `val` is not null group by `val` having count(*) > 1)'
    when 6 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where `val` in (select `val` from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where `val` is not null group by `val` having count(*) > 1) or `val` is null'
    when 7 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where not coalesce((`note` is null or (regexp_contains(cast(`note` as string), \'.*\'))), false)'
    when 8 then 'select * from (select * from `dq-local`.`dq_it`.`dq_all_null`) dq_scope where not coalesce((`note` is null or (`note` in (\'a\'))), false)' end as string) as failing_rows_query,
  cast(case dq_rules.rule_index when 0 then '{"name": "all-null-val-coalesce", "column": "val", "dimension": "COMPLETENESS", "row_condition_expectation": {"sql_expression": "coalesce(val, 0) = 0"}}'
    when 1 then '{"name": "all-null-val-not-null", "column": "val", "dimension": "COMPLETENESS", "non_null_expectation": {}}'
    when 2 then '{"name": "all-null-val-range-ignore-null", "column": "val", "dimension": "VALIDITY", "ignore_null": true, "range_expectation": {"min_value": "0"}}'
    when 3 then '{"name": "all-null-val-range", "column": "val", "dimension": "VALIDITY", "range_expectation": {"min_value": "0"}}'
    when 4 then '{"name": "all-null-val-max", "description": "MAX of no values is NULL, and a NULL statistic fails.", "column": "val", "dimension": "ACCURACY", "statistic_range_expectation": {"max_value": "10", "statistic": "MAX"}}'
    when 5 then '{"name": "all-null-val-unique-ignore-null", "column": "val", "dimension": "UNIQUENESS", "ignore_null": true, "uniqueness_expectation": {}}'
    when 6 then '{"name": "all-null-val-unique", "column": "val", "dimension": "UNIQUENESS", "uniqueness_expectation": {}}'
    when 7 then '{"name": "all-null-note-regex", "column": "note", "dimension": "VALIDITY", "ignore_null": true, "regex_expectation": {"regex": ".*"}}'
    when 8 then '{"name": "all-null-note-set", "column": "note", "ignore_null": true, "set_expectation": {"values": ["a"]}}' end as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(null as string) as debug_queries_sql,
  cast(null as string) as scope_row_filter,
  cast(null as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then cast(dq_m5 as string)
    when 5 then null
    when 6 then null
    when 7 then null
    when 8 then null end as string) as statistic_value_text
from dq_agg
cross join dq_u0
cross join (select rule_index from unnest(generate_array(0, 8)) as rule_index) as dq_rules
) dq_rows
