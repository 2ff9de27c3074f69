{#- dataplex_dq.range_expectation: Row-level: each value of the column lies between min_value and max_value (converted to the column's type).
    Arguments: min_value, max_value, strict_min_enabled, strict_max_enabled, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#range-expectation. -#}
{% test range_expectation(model, column_name=none, min_value=none, max_value=none, strict_min_enabled=none, strict_max_enabled=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('range_expectation', model, column_name, {'min_value': min_value, 'max_value': max_value, 'strict_min_enabled': strict_min_enabled, 'strict_max_enabled': strict_max_enabled, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- The predicate: the value lies between the bounds (strict or not), each bound converted to the
    column's type. Everything else: the row-level builders, macros/rules/_row_level.sql. -#}
{% macro range_expectation_predicate(rule, column_sql, data_type, data_sql) %}
  {{ return(dataplex_dq.bounds_predicate(column_sql, rule.params, data_type)) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params): min_value / max_value and the strict flags -#}
{% macro range_expectation_validate(params, where) %}{{ dataplex_dq.validate_bounds(params, where) }}{% endmacro %}
