{#- dataplex_dq.uniqueness_expectation: Row-level: each non-NULL value of the column occurs exactly once in scope; every copy of a duplicate fails.
    Arguments: dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#uniqueness-expectation. -#}
{% test uniqueness_expectation(model, column_name=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('uniqueness_expectation', model, column_name, {'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- Uniqueness: a row passes when its value is not NULL and occurs exactly once in the scope, so it
    is counted from the values' counts, not from a per-row predicate. Its metrics are the row-level
    ones (row_level_metrics, macros/rules/_row_level.sql) over the count of such rows. -#}

{#- A CTE `name` holding, in its column `count_name`, the number of values occurring exactly once. -#}
{% macro uniqueness_singletons_cte(name, count_name, column_sql) %}
  {%- set cte -%}
{{ name }} as (
  select count(*) as {{ count_name }} from (
    select {{ column_sql }} from dq_scope where {{ column_sql }} is not null group by {{ column_sql }} having count(*) = 1
  ) dq_singletons
)
  {%- endset -%}
  {{ return(cte) }}
{% endmacro %}

{#- The per-rule test's aggregates: row and null count, and the count of singletons. -#}
{% macro uniqueness_expectation_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {{ return({'ctes': [dataplex_dq.plain_counts_cte(null_count), dataplex_dq.uniqueness_singletons_cte('dq_unique', 'passed_count', column_sql)],
             'from': 'dq_counts cross join dq_unique'}) }}
{% endmacro %}

{#- The fused scan: one count per column (rules on the same column share it), in the same query as
    every other rule, by the scan's strategy (scan_uniqueness_strategy, macros/scan_cross_db.sql):
    'window' counts each value with a window over the scope, the others with a grouped count. -#}
{% macro uniqueness_expectation_scan(rule, ctx, column_sql, data_sql, scan) %}
  {%- if column_sql not in scan.unique -%}
    {%- set u = 'dq_u' ~ (scan.unique | length) -%}
    {%- if column_sql in scan.shared['keys'] -%}
      {#- one grouping shared with a SQL assertion grouping by the same key (scan_shared_groupings) -#}
      {%- do scan.unique.update({column_sql: dataplex_dq.scan_key_grouping(scan, column_sql).once}) -%}
    {%- elif dataplex_dq.scan_column_uniqueness_strategy(scan.strategy, ctx.data_type) == 'window' -%}
      {%- do scan.window_sql.append("count(*) over (partition by " ~ column_sql ~ ") as " ~ u) -%}
      {%- set singletons -%}sum(case when {{ column_sql }} is not null and {{ u }} = 1 then 1 else 0 end){%- endset -%}
      {%- do scan.unique.update({column_sql: dataplex_dq.scan_aggregate(scan, singletons)}) -%}
    {%- else -%}
      {%- do scan.grouped_sql.append(dataplex_dq.uniqueness_singletons_cte(u, u, column_sql)) -%}
      {#- qualified: BigQuery resolves a bare `dq_u0` to the FROM item (a STRUCT), not its column -#}
      {%- do scan.unique.update({column_sql: u ~ '.' ~ u}) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return({'passed_count': scan.unique[column_sql]}) }}
{% endmacro %}

{#- The failing rows: every copy of a duplicated value, and NULLs unless ignore_null. -#}
{% macro uniqueness_expectation_failing_rows(rule, ctx, column_sql) %}
  {%- set base = dataplex_dq.scope_select(ctx.from_sql, ctx.row_filter, none) -%}
  {%- set duplicates -%}
select {{ column_sql }} from ({{ base }}) dq_scope where {{ column_sql }} is not null group by {{ column_sql }} having count(*) > 1
  {%- endset -%}
  {%- set sql -%}
select * from ({{ base }}) dq_scope where {{ column_sql }} in ({{ duplicates }})
    {%- if not rule.ignore_null %} or {{ column_sql }} is null{% endif -%}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
