{#- dataplex_dq.set_expectation: Row-level: each value of the column is one of `values` (converted to the column's type).
    Arguments: values, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#set-expectation. -#}
{% test set_expectation(model, column_name=none, values=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('set_expectation', model, column_name, {'values': values, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}
