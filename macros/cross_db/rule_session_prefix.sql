{#- The session settings a per-rule test's query needs, made just before it runs (the comment naming them
    heads its SQL, as the scan's: scan_prepare_session, macros/scan_cross_db.sql), or ''. -#}
{% macro rule_session_prefix(rule, data_type, source_node) %}
  {%- if rule.suspended -%}{{ return('') }}{%- endif -%}
  {{ return(adapter.dispatch('rule_session_prefix', 'dataplex_dq')(rule, data_type, source_node)) }}
{% endmacro %}

{% macro default__rule_session_prefix(rule, data_type, source_node) %}{{ return('') }}{% endmacro %}

{#- DuckDB: a uniqueness rule groups by its column, and a duplicate-key SQL assertion
    (duplicate_key_assertion, macros/rules/sql_assertion.sql) by a column of the data source: both are
    hash aggregates of ~N groups (10M rows: ~0.9 s each) that DuckDB perfect-hashes (~0.45 s) when the
    key's range fits perfect_ht_threshold; the same bounded setting as the scan's. A setting only: the
    query and its counts are the same either way (the assertion is never rewritten here). -#}
{% macro duckdb__rule_session_prefix(rule, data_type, source_node) %}
  {%- if rule.rule_type not in ('uniqueness_expectation', 'sql_assertion') -%}{{ return('') }}{%- endif -%}
  {%- set relation = dataplex_dq.data_source_relation(source_node) -%}
  {%- if rule.rule_type == 'uniqueness_expectation' -%}
    {{ return(adapter.dispatch('scan_prepare_session', 'dataplex_dq')(relation, [dataplex_dq.column_sql(rule)], [data_type])) }}
  {%- elif rule.rule_type == 'sql_assertion' -%}
    {%- set shape = dataplex_dq.duplicate_key_assertion(rule.params.sql_statement) -%}
    {%- if shape is none -%}{{ return('') }}{%- endif -%}
    {%- set types = dataplex_dq.cached_column_types(source_node) -%}
    {%- set column = dataplex_dq.resolve_column(shape.column, types.keys() | list) -%}
    {%- if column is none -%}{{ return('') }}{%- endif -%}
    {{ return(adapter.dispatch('scan_prepare_session', 'dataplex_dq')(relation, [dataplex_dq.quote_column(column)], [types[column]])) }}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}
