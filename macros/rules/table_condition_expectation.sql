{#- dataplex_dq.table_condition_expectation: Aggregate: `sql_expression`, evaluated once over the scope, is TRUE.
    Arguments: sql_expression, column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#table-condition-expectation. -#}
{% test table_condition_expectation(model, column_name=none, sql_expression=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('table_condition_expectation', model, column_name, {'sql_expression': sql_expression, 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- Aggregate: the user's SQL expression (`${data()}` expanded over the rule's scope), evaluated once
    over the scope, is TRUE. -#}

{#- The per-rule test's aggregates: row and null count, and condition_ok (1 when the expression is TRUE). -#}
{% macro table_condition_expectation_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {%- set condition -%}
dq_condition as (
  select coalesce(min(case when dq_value then 1 else 0 end), 1) as condition_ok from (
    select ({{ dataplex_dq.expand_data_reference(rule.params.sql_expression, data_sql) }}) as dq_value from dq_scope
  ) dq_values
)
  {%- endset -%}
  {{ return({'ctes': [dataplex_dq.plain_counts_cte(null_count), condition], 'from': 'dq_counts cross join dq_condition'}) }}
{% endmacro %}

{#- The fused scan: condition_ok, one expression of the scan's aggregate row. -#}
{% macro table_condition_expectation_scan(rule, ctx, column_sql, data_sql, scan) %}
  {%- set condition_ok -%}
case when ({{ dataplex_dq.expand_data_reference(rule.params.sql_expression, data_sql) }}) then 1 else 0 end
  {%- endset -%}
  {{ return({'condition_ok': dataplex_dq.scan_aggregate(scan, condition_ok)}) }}
{% endmacro %}

{% macro table_condition_expectation_metrics(rule, ctx, refs, column_sql) %}
  {{ return({'passed': refs.condition_ok ~ ' = 1'}) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params) -#}
{% macro table_condition_expectation_validate(params, where) %}{{ dataplex_dq.row_condition_expectation_validate(params, where) }}{% endmacro %}
