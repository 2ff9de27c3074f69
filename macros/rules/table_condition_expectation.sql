{#- dataplex_dq.table_condition_expectation: Aggregate: `sql_expression`, evaluated once over the scope, is TRUE.
    Arguments: sql_expression, column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#table-condition-expectation. -#}
{% test table_condition_expectation(model, sql_expression=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('table_condition_expectation', model, none, {'sql_expression': sql_expression, 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}
