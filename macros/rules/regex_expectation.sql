{#- dataplex_dq.regex_expectation: Row-level: each value of the column, read as text, contains a match of `regex` (re2, partial match).
    Arguments: regex, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#regex-expectation. -#}
{% test regex_expectation(model, column_name=none, regex=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('regex_expectation', model, column_name, {'regex': regex, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}
