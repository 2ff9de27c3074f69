{#- {bytes, how} of what the test's query would bill, {bytes: none, how: why} when it cannot tell, or none
    where the warehouse bills no bytes. -#}
{% macro estimate_bytes_billed(source_node, sql) %}
  {{ return(adapter.dispatch('estimate_bytes_billed', 'dataplex_dq')(source_node, sql)) }}
{% endmacro %}

{% macro default__estimate_bytes_billed(source_node, sql) %}
  {{ return(none) }}
{% endmacro %}

{% macro bigquery__estimate_bytes_billed(source_node, sql) %}
  {%- set relation = dataplex_dq.data_source_relation(source_node) -%}
  {%- set table = adapter.get_bq_table(relation) -%}
  {%- set size = table.num_bytes if table is not none else none -%}
  {%- if size is none or (table.table_type or 'TABLE') != 'TABLE' -%}
    {{ return({'bytes': none, 'how': "BigQuery reports no size for " ~ relation.render() ~ (" (a " ~ (table.table_type | lower) ~ ")" if table is not none and table.table_type else "")}) }}
  {%- endif -%}
  {%- set minimum = 10 * 1024 * 1024 -%}
  {{ return({'bytes': [size, minimum] | max, 'how': "the table's " ~ dataplex_dq.bytes_text(size) ~ ", every column read once, at least BigQuery's 10 MB per table"}) }}
{% endmacro %}
