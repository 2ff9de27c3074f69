{#- Warehouse type of one column type descriptor. -#}
{% macro results_type(t) %}{{ return(adapter.dispatch('results_type', 'dataplex_dq')(t)) }}{% endmacro %}

{% macro default__results_type(t) %}
  {%- if t is mapping -%}{{ return('jsonb') }}{%- endif -%}
  {{ return({'string': 'text', 'int64': 'bigint', 'float64': 'double precision', 'bool': 'boolean', 'timestamp': 'timestamp', 'json': 'jsonb'}[t]) }}
{% endmacro %}

{% macro duckdb__results_type(t) %}
  {%- if t is mapping and 'struct' in t -%}
    {%- set fields = [] -%}
    {%- for name, sub in t.struct -%}{%- do fields.append(name ~ ' ' ~ dataplex_dq.duckdb__results_type(sub)) -%}{%- endfor -%}
    {{ return('STRUCT(' ~ (fields | join(', ')) ~ ')') }}
  {%- elif t is mapping -%}
    {{ return(dataplex_dq.duckdb__results_type(t.array) ~ '[]') }}
  {%- endif -%}
  {{ return({'string': 'VARCHAR', 'int64': 'BIGINT', 'float64': 'DOUBLE', 'bool': 'BOOLEAN', 'timestamp': 'TIMESTAMP', 'json': 'JSON'}[t]) }}
{% endmacro %}

{% macro bigquery__results_type(t) %}
  {%- if t is mapping and 'struct' in t -%}
    {%- set fields = [] -%}
    {%- for name, sub in t.struct -%}{%- do fields.append(name ~ ' ' ~ dataplex_dq.bigquery__results_type(sub)) -%}{%- endfor -%}
    {{ return('STRUCT<' ~ (fields | join(', ')) ~ '>') }}
  {%- elif t is mapping -%}
    {{ return('ARRAY<' ~ dataplex_dq.bigquery__results_type(t.array) ~ '>') }}
  {%- endif -%}
  {{ return({'string': 'STRING', 'int64': 'INT64', 'float64': 'FLOAT64', 'bool': 'BOOL', 'timestamp': 'TIMESTAMP', 'json': 'JSON'}[t]) }}
{% endmacro %}
