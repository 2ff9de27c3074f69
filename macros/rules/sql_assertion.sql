{#- dataplex_dq.sql_assertion: Aggregate: `sql_statement` returns no rows; its row count is `assertion_row_count`.
    Arguments: sql_statement, column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#sql-assertion. -#}
{% test sql_assertion(model, sql_statement=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('sql_assertion', model, none, {'sql_statement': sql_statement, 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- Aggregate: the user's SELECT (`${data()}` expanded over the rule's scope) returns no rows; its row
    count is assertion_row_count. -#}

{#- The count of the statement's rows, as a scalar subquery. -#}
{% macro sql_assertion_row_count(rule, data_sql) %}
  {%- set row_count -%}
(select count(*) from (
{{ dataplex_dq.expand_data_reference(rule.params.sql_statement, data_sql) }}
  ) dq_assertion_rows)
  {%- endset -%}
  {{ return(row_count) }}
{% endmacro %}

{#- The per-rule test's aggregates: row and null count, and the statement's row count. -#}
{% macro sql_assertion_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {%- set assertion -%}
dq_assertion as (
  select count(*) as assertion_row_count from (
{{ dataplex_dq.expand_data_reference(rule.params.sql_statement, data_sql) }}
  ) dq_assertion_rows
)
  {%- endset -%}
  {{ return({'ctes': [dataplex_dq.plain_counts_cte(null_count), assertion], 'from': 'dq_counts cross join dq_assertion'}) }}
{% endmacro %}

{#- The fused scan: the statement's row count, one scalar subquery of the scan's dq_assertions row. -#}
{% macro sql_assertion_scan(rule, ctx, column_sql, data_sql, scan) %}
  {{ return({'assertion_row_count': dataplex_dq.scan_assertion(scan, dataplex_dq.sql_assertion_row_count(rule, data_sql))}) }}
{% endmacro %}

{% macro sql_assertion_metrics(rule, ctx, refs, column_sql) %}
  {{ return({'assertion_row_count': refs.assertion_row_count, 'passed': refs.assertion_row_count ~ ' = 0'}) }}
{% endmacro %}
