{#- What a profile of `relation` would read: {bytes, sampling_percent, is_table, how}. Where the warehouse
    bills bytes (BigQuery), the sampling percent is chosen so the estimate stays within `max_bytes` unless
    one is given (TABLESAMPLE SYSTEM bills the sampled blocks: the table's bytes x percent, at least
    BigQuery's 10 MB per table); elsewhere bytes is none and nothing is sampled unless asked. -#}
{% macro profile_bytes_estimate(relation, sampling_percent, max_bytes) %}{{ return(adapter.dispatch('profile_bytes_estimate', 'dataplex_dq')(relation, sampling_percent, max_bytes)) }}{% endmacro %}

{% macro default__profile_bytes_estimate(relation, sampling_percent, max_bytes) -%}
  {%- set found = adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
  {{- return({'bytes': none, 'sampling_percent': sampling_percent, 'is_table': found is not none and found.is_table, 'how': none}) -}}
{%- endmacro %}

{% macro bigquery__profile_bytes_estimate(relation, sampling_percent, max_bytes) -%}
  {%- set table = adapter.get_bq_table(relation) -%}
  {%- set is_table = table is not none and (table.table_type or 'TABLE') == 'TABLE' -%}
  {%- if not is_table -%}
    {{- return({'bytes': none, 'sampling_percent': sampling_percent, 'is_table': false, 'how': "BigQuery reports no size for " ~ relation.render() ~ " (a view or external table: every row is read, unsampled by TABLESAMPLE)"}) -}}
  {%- endif -%}
  {#- the top values read the grouped columns a second time (profile_top_values): at most twice the table -#}
  {%- set size = (table.num_bytes or 0) * 2 -%}
  {%- set minimum = 10 * 1024 * 1024 -%}
  {%- set percent = sampling_percent -%}
  {%- if percent is none and max_bytes and size > max_bytes -%}
    {%- set percent = [((max_bytes * 100.0 / size) | round(3, 'floor')), 0.001] | max -%}
  {%- endif -%}
  {%- set read = (size * percent / 100.0) if percent and percent < 100 else size -%}
  {{- return({'bytes': ([read | int, minimum] | max), 'sampling_percent': percent, 'is_table': true, 'how': "twice the table's " ~ dataplex_dq.bytes_text(table.num_bytes or 0) ~ (" x " ~ percent ~ " % (TABLESAMPLE SYSTEM)" if percent and percent < 100 else "") ~ ", at least BigQuery's 10 MB per table"}) -}}
{%- endmacro %}
