{#- dataplex_dq.sql_assertion: Aggregate: `sql_statement` returns no rows; its row count is `assertion_row_count`.
    Arguments: sql_statement, column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#sql-assertion. -#}
{% test sql_assertion(model, sql_statement=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('sql_assertion', model, none, {'sql_statement': sql_statement, 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}
