{#- dataplex_dq.regex_expectation: Row-level: each value of the column, read as text, contains a match of `regex` (re2, partial match).
    Arguments: regex, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#regex-expectation. -#}
{% test regex_expectation(model, column_name=none, regex=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('regex_expectation', model, column_name, {'regex': regex, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- The predicate: the value, as text, contains a match of the RE2 pattern (GoogleSQL REGEXP_CONTAINS;
    per warehouse: regex_contains in macros/cross_db.sql). Everything else: the row-level builders,
    macros/rules/_row_level.sql. -#}
{% macro regex_expectation_predicate(rule, column_sql, data_type, data_sql) %}
  {%- set predicate -%}({{ adapter.dispatch('regex_contains', 'dataplex_dq')(adapter.dispatch('cast_text', 'dataplex_dq')(column_sql), rule.params.get('regex')) }}){%- endset -%}
  {{ return(predicate) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params) -#}
{% macro regex_expectation_validate(params, where) %}{{ dataplex_dq.validate_regex(params.get('regex'), where) }}{% endmacro %}
