{#- dataplex_dq.non_null_expectation: Row-level: each value of the column is not NULL.
    Arguments: dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#non-null-expectation. -#}
{% test non_null_expectation(model, column_name=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('non_null_expectation', model, column_name, {'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- The predicate: the value is not NULL. Everything else: the row-level builders,
    macros/rules/_row_level.sql. -#}
{% macro non_null_expectation_predicate(rule, column_sql, data_type, data_sql) %}
  {%- set predicate -%}({{ column_sql }} is not null){%- endset -%}
  {{ return(predicate) }}
{% endmacro %}
