-- data_quality_scan sample_scan: every rule type on a sampled base table, ${data()} rules

  with dq_scope as (
  select * from `dq-local`.`dq_it`.`sample_rows` tablesample system (50 percent) where (grp <> 'x')
),
dq_scope_w as (
  select dq_scope.*, count(*) over (partition by `id`) as dq_u0 from dq_scope
),
dq_agg as (
  select
    count(*) as dq_m0,
    coalesce(sum(case when `val` is null then 1 else 0 end), 0) as dq_m1,
    sum(case when (`val` >= cast('0' as int64) and `val` <= cast('400' as int64)) then 1 else 0 end) as dq_m2,
    sum(case when (`val` is not null) then 1 else 0 end) as dq_m3,
    coalesce(sum(case when `grp` is null then 1 else 0 end), 0) as dq_m4,
    sum(case when (`grp` in ('a')) then 1 else 0 end) as dq_m5,
    sum(case when (regexp_contains(cast(`grp` as string), '^a$')) then 1 else 0 end) as dq_m6,
    coalesce(sum(case when `id` is null then 1 else 0 end), 0) as dq_m7,
    sum(case when `id` is not null and dq_u0 = 1 then 1 else 0 end) as dq_m8,
    coalesce(sum(case when `score` is null then 1 else 0 end), 0) as dq_m9,
    max(`id`) as dq_m10,
    sum(case when (id >= (select min(id) from (select * from dq_scope))) then 1 else 0 end) as dq_m11,
    case when (count(*) >= 0 and (select count(*) from (select * from dq_scope) where grp = 'x') = 0) then 1 else 0 end as dq_m12
  from dq_scope_w
),
dq_u1 as (
  select count(*) as dq_u1 from (
    select `score` from dq_scope where `score` is not null group by `score` having count(*) = 1
  ) dq_singletons
),
dq_assertions as (
  select
    (select count(*) from (
select id from (select * from dq_scope) where grp = 'x' or id not in (select id from (select * from dq_scope))
  ) dq_assertion_rows) as dq_a0
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
  cast('test.sampling.sample_scan.dfa7d58e70' as string) as dq_test_unique_id,
  cast('seed.sampling.sample_rows' as string) as dq_data_source,
  cast(dq_rules.rule_index as INT64) as rule_index,
  cast(case dq_rules.rule_index when 0 then 'scan-range'
    when 1 then 'scan-not-null'
    when 2 then 'scan-set'
    when 3 then 'scan-regex'
    when 4 then 'scan-unique-id'
    when 5 then 'scan-unique-score'
    when 6 then 'scan-max-id'
    when 7 then 'scan-row-data-ref'
    when 8 then 'scan-table-data-ref'
    when 9 then 'scan-assertion-data-ref' end as string) as rule_name,
  cast(case dq_rules.rule_index when 0 then 'range_expectation'
    when 1 then 'non_null_expectation'
    when 2 then 'set_expectation'
    when 3 then 'regex_expectation'
    when 4 then 'uniqueness_expectation'
    when 5 then 'uniqueness_expectation'
    when 6 then 'statistic_range_expectation'
    when 7 then 'row_condition_expectation'
    when 8 then 'table_condition_expectation'
    when 9 then 'sql_assertion' end as string) as rule_type,
  cast(case dq_rules.rule_index when 0 then 'val'
    when 1 then 'val'
    when 2 then 'grp'
    when 3 then 'grp'
    when 4 then 'id'
    when 5 then 'score'
    when 6 then 'id'
    when 7 then null
    when 8 then null
    when 9 then null end as string) as rule_column,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then null
    when 5 then 'UNIQUENESS'
    when 6 then null
    when 7 then null
    when 8 then null
    when 9 then null end as string) as rule_dimension,
  cast(case dq_rules.rule_index when 0 then 1.0
    when 1 then 0.5
    when 2 then 1.0
    when 3 then 1.0
    when 4 then 1.0
    when 5 then 1.0
    when 6 then null
    when 7 then 1.0
    when 8 then null
    when 9 then null end as float64) as rule_threshold,
  cast(case dq_rules.rule_index when 0 then true
    when 1 then false
    when 2 then false
    when 3 then false
    when 4 then false
    when 5 then false
    when 6 then false
    when 7 then false
    when 8 then false
    when 9 then false end as boolean) as rule_ignore_null,
  cast(false as boolean) as rule_suspended,
  cast(dq_m0 as bigint) as row_count,
  cast(case dq_rules.rule_index when 0 then (dq_m0 - coalesce(dq_m1, 0))
    when 1 then dq_m0
    when 2 then dq_m0
    when 3 then dq_m0
    when 4 then dq_m0
    when 5 then dq_m0
    when 6 then null
    when 7 then dq_m0
    when 8 then null
    when 9 then null end as bigint) as evaluated_count,
  cast(case dq_rules.rule_index when 0 then coalesce(dq_m2, 0)
    when 1 then coalesce(dq_m3, 0)
    when 2 then coalesce(dq_m5, 0)
    when 3 then coalesce(dq_m6, 0)
    when 4 then coalesce(dq_m8, 0)
    when 5 then coalesce(dq_u1.dq_u1, 0)
    when 6 then null
    when 7 then coalesce(dq_m11, 0)
    when 8 then null
    when 9 then null end as bigint) as passed_count,
  cast(case dq_rules.rule_index when 0 then dq_m1
    when 1 then dq_m1
    when 2 then dq_m4
    when 3 then dq_m4
    when 4 then dq_m7
    when 5 then dq_m9
    when 6 then dq_m7
    when 7 then null
    when 8 then null
    when 9 then null end as bigint) as null_count,
  cast(case dq_rules.rule_index when 0 then case when (dq_m0 - coalesce(dq_m1, 0)) = 0 then 1.0 else cast(coalesce(dq_m2, 0) as float64) / (dq_m0 - coalesce(dq_m1, 0)) end
    when 1 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m3, 0) as float64) / dq_m0 end
    when 2 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m5, 0) as float64) / dq_m0 end
    when 3 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m6, 0) as float64) / dq_m0 end
    when 4 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m8, 0) as float64) / dq_m0 end
    when 5 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_u1.dq_u1, 0) as float64) / dq_m0 end
    when 6 then null
    when 7 then case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m11, 0) as float64) / dq_m0 end
    when 8 then null
    when 9 then null end as float64) as pass_ratio,
  cast(case dq_rules.rule_index when 0 then (case when (dq_m0 - coalesce(dq_m1, 0)) = 0 then 1.0 else cast(coalesce(dq_m2, 0) as float64) / (dq_m0 - coalesce(dq_m1, 0)) end) >= cast(1.0 as float64)
    when 1 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m3, 0) as float64) / dq_m0 end) >= cast(0.5 as float64)
    when 2 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m5, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 3 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m6, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 4 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m8, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 5 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_u1.dq_u1, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 6 then coalesce(dq_m10 is not null and (dq_m10 <= cast('400' as int64)), false)
    when 7 then (case when dq_m0 = 0 then 1.0 else cast(coalesce(dq_m11, 0) as float64) / dq_m0 end) >= cast(1.0 as float64)
    when 8 then dq_m12 = 1
    when 9 then dq_a0 = 0 end as boolean) as passed,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then null
    when 5 then null
    when 6 then null
    when 7 then null
    when 8 then null
    when 9 then dq_a0 end as bigint) as assertion_row_count,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then null
    when 5 then null
    when 6 then cast(dq_m10 as float64)
    when 7 then null
    when 8 then null
    when 9 then null end as float64) as statistic_value,
  cast(case dq_rules.rule_index when 0 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where not coalesce((`val` is null or (`val` >= cast(\'0\' as int64) and `val` <= cast(\'400\' as int64))), false)'
    when 1 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where not coalesce((`val` is not null), false)'
    when 2 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where not coalesce((`grp` in (\'a\')), false)'
    when 3 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where not coalesce((regexp_contains(cast(`grp` as string), \'^a$\')), false)'
    when 4 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where `id` in (select `id` from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where `id` is not null group by `id` having count(*) > 1) or `id` is null'
    when 5 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where `score` in (select `score` from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where `score` is not null group by `score` having count(*) > 1) or `score` is null'
    when 6 then null
    when 7 then 'select * from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')) dq_scope where not coalesce((id >= (select min(id) from (select * from `dq-local`.`dq_it`.`sample_rows` where (grp <> \'x\')))), false)'
    when 8 then null
    when 9 then null end as string) as failing_rows_query,
  cast(case dq_rules.rule_index when 0 then '{"name": "scan-range", "column": "val", "ignore_null": true, "range_expectation": {"min_value": "0", "max_value": "400"}}'
    when 1 then '{"name": "scan-not-null", "column": "val", "threshold": 0.5, "non_null_expectation": {}}'
    when 2 then '{"name": "scan-set", "column": "grp", "set_expectation": {"values": ["a"]}}'
    when 3 then '{"name": "scan-regex", "column": "grp", "regex_expectation": {"regex": "^a$"}}'
    when 4 then '{"name": "scan-unique-id", "column": "id", "uniqueness_expectation": {}}'
    when 5 then '{"name": "scan-unique-score", "column": "score", "dimension": "UNIQUENESS", "uniqueness_expectation": {}}'
    when 6 then '{"name": "scan-max-id", "column": "id", "statistic_range_expectation": {"max_value": "400", "statistic": "MAX"}}'
    when 7 then '{"name": "scan-row-data-ref", "row_condition_expectation": {"sql_expression": "id >= (select min(id) from ${data()})"}, "debug_queries": [{"sql_statement": "select count(*) as n from ${data()}", "description": "sampled rows"}, {"sql_statement": "select count(*) as n from ${data()} d join ${data()} e on d.id = e.id", "description": "a self-join"}]}'
    when 8 then '{"name": "scan-table-data-ref", "table_condition_expectation": {"sql_expression": "count(*) >= 0 and (select count(*) from ${data()} where grp = \'x\') = 0"}}'
    when 9 then '{"name": "scan-assertion-data-ref", "sql_assertion": {"sql_statement": "select id from ${data()} where grp = \'x\' or id not in (select id from ${data()})"}}' end as string) as rule_spec,
  cast(null as string) as rule_attributes,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then null
    when 5 then null
    when 6 then null
    when 7 then '[{"description": "sampled rows", "sql_statement": "select count(*) as n from (select * from `dq-local`.`dq_it`.`sample_rows` tablesample system (50 percent) where (grp <> \'x\'))"}, {"description": "a self-join", "sql_statement": "select count(*) as n from (select * from (select * from (select * from `dq-local`.`dq_it`.`sample_rows`) as dq_source where (grp <> \'x\')) dq_filtered where rand() < 0.5) d join (select * from (select * from (select * from `dq-local`.`dq_it`.`sample_rows`) as dq_source where (grp <> \'x\')) dq_filtered where rand() < 0.5) e on d.id = e.id"}]'
    when 8 then null
    when 9 then null end as string) as debug_queries_sql,
  cast('grp <> \'x\'' as string) as scope_row_filter,
  cast(50 as float64) as scope_sampling_percent,
  current_timestamp() as evaluated_at,
  cast(null as string) as incremental_field,
  cast(null as string) as incremental_start,
  cast(null as string) as incremental_end,
  cast(case dq_rules.rule_index when 0 then null
    when 1 then null
    when 2 then null
    when 3 then null
    when 4 then null
    when 5 then null
    when 6 then cast(dq_m10 as string)
    when 7 then null
    when 8 then null
    when 9 then null end as string) as statistic_value_text
from dq_agg
cross join dq_u1
cross join dq_assertions
cross join (select rule_index from unnest(generate_array(0, 9)) as rule_index) as dq_rules
) dq_rows
