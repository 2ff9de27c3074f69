{#- Whether `partition by <column of data_type>` is valid in a window (unknown types: assumed valid). -#}
{% macro window_partitionable(data_type) %}{{ return(adapter.dispatch('window_partitionable', 'dataplex_dq')(data_type)) }}{% endmacro %}

{% macro default__window_partitionable(data_type) %}{{ return(true) }}{% endmacro %}

{% macro bigquery__window_partitionable(data_type) %}
  {#- BigQuery: "Partitioning by expressions of type FLOAT64 is not allowed"; GROUP BY accepts FLOAT64,
      so a FLOAT64 column is counted with a grouped count. (ARRAY, JSON and GEOGRAPHY columns can be
      neither partitioned nor grouped: uniqueness on them fails on BigQuery either way.) -#}
  {%- if data_type is none -%}{{ return(true) }}{%- endif -%}
  {{ return(modules.re.match('^(float64|float|double)\\b', (data_type | string | trim | lower)) is none) }}
{% endmacro %}
