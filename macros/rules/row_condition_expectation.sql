{#- dataplex_dq.row_condition_expectation: Row-level: `sql_expression` is TRUE for each row (NULL and FALSE fail).
    Arguments: sql_expression, column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#row-condition-expectation. -#}
{% test row_condition_expectation(model, column_name=none, sql_expression=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('row_condition_expectation', model, column_name, {'sql_expression': sql_expression, 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- The predicate: the user's SQL expression, `${data()}` expanded over the rule's scope. Everything
    else: the row-level builders, macros/rules/_row_level.sql. -#}
{% macro row_condition_expectation_predicate(rule, column_sql, data_type, data_sql) %}
  {%- set predicate -%}({{ dataplex_dq.expand_data_reference(rule.params.get('sql_expression'), data_sql) }}){%- endset -%}
  {{ return(predicate) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params) -#}
{% macro row_condition_expectation_validate(params, where) %}
  {%- if not dataplex_dq._is_sql_text(params.get('sql_expression')) -%}
    {{ dataplex_dq.raise_rule_error(where, 'sql_expression', "is required (a SQL boolean expression)") }}
  {%- endif -%}
{% endmacro %}
