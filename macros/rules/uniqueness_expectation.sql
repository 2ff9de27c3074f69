{#- dataplex_dq.uniqueness_expectation: Row-level: each non-NULL value of the column occurs exactly once in scope; every copy of a duplicate fails.
    Arguments: dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#uniqueness-expectation. -#}
{% test uniqueness_expectation(model, column_name=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('uniqueness_expectation', model, column_name, {'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}
