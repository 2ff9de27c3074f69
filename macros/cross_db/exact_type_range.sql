{#- The values an exact-number column type holds, as a grid (docs/SEMANTICS.md §5): {scale: its digits after the
    point, lo and hi: its smallest and largest value times 10^scale (integers), int64: whether every value
    is a 64-bit integer}; none when it is not known or not bounded (PostgreSQL's unconstrained `numeric`,
    DuckDB's HUGEINT). A bound is rounded onto this grid on the side of its comparison and compared
    within it (bound_comparison, macros/predicates.sql), so it never widens the column's type. -#}
{% macro exact_type_range(data_type) %}{{ return(adapter.dispatch('exact_type_range', 'dataplex_dq')(data_type)) }}{% endmacro %}

{#- DECIMAL(p, s) / NUMERIC(p, s) (DuckDB, PostgreSQL; PostgreSQL's bare numeric is unbounded: none); the
    integer types of at most 64 bits by name. -#}
{% macro default__exact_type_range(data_type) %}
  {%- set t = (data_type | string | trim | lower) -%}
  {%- set m = modules.re.match('^(?:decimal|numeric|dec)\\s*\\(\\s*([0-9]+)\\s*(?:,\\s*([0-9]+)\\s*)?\\)$', t) -%}
  {%- if m -%}
    {%- set p, s = m.group(1) | int, (m.group(2) or '0') | int -%}
    {%- if s > p -%}{{ return(none) }}{%- endif -%}
    {{ return({'scale': s, 'hi': 10 ** p - 1, 'lo': 1 - 10 ** p, 'int64': false}) }}
  {%- endif -%}
  {%- set bits = {'tinyint': 7, 'int1': 7, 'smallint': 15, 'int2': 15, 'short': 15, 'smallserial': 15,
                  'integer': 31, 'int': 31, 'int4': 31, 'signed': 31, 'serial': 31,
                  'bigint': 63, 'int8': 63, 'long': 63, 'int64': 63, 'bigserial': 63} -%}
  {%- set ubits = {'utinyint': 8, 'usmallint': 16, 'uinteger': 32} -%}
  {%- if t in bits -%}{{ return({'scale': 0, 'hi': 2 ** bits[t] - 1, 'lo': -(2 ** bits[t]), 'int64': true}) }}{%- endif -%}
  {%- if t in ubits -%}{{ return({'scale': 0, 'hi': 2 ** ubits[t] - 1, 'lo': 0, 'int64': true}) }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- DuckDB: a bare DECIMAL is DECIMAL(18, 3). -#}
{% macro duckdb__exact_type_range(data_type) %}
  {%- if (data_type | string | trim | lower) == 'decimal' -%}
    {{ return({'scale': 3, 'hi': 10 ** 18 - 1, 'lo': 1 - 10 ** 18, 'int64': false}) }}
  {%- endif -%}
  {{ return(dataplex_dq.default__exact_type_range(data_type)) }}
{% endmacro %}

{#- BigQuery: NUMERIC is NUMERIC(38, 9); BIGNUMERIC holds scale 38 between -2^255 and 2^255 - 1 (times
    10^-38); NUMERIC(p[, s]) / BIGNUMERIC(p[, s]) as declared; INT64. -#}
{% macro bigquery__exact_type_range(data_type) %}
  {%- set t = (data_type | string | trim | lower) -%}
  {%- if t in ['numeric', 'decimal'] -%}{{ return({'scale': 9, 'hi': 10 ** 38 - 1, 'lo': 1 - 10 ** 38, 'int64': false}) }}{%- endif -%}
  {%- if t in ['bignumeric', 'bigdecimal'] -%}{{ return({'scale': 38, 'hi': 2 ** 255 - 1, 'lo': -(2 ** 255), 'int64': false}) }}{%- endif -%}
  {%- set m = modules.re.match('^(?:big)?(?:numeric|decimal)\\s*\\(\\s*([0-9]+)\\s*(?:,\\s*([0-9]+)\\s*)?\\)$', t) -%}
  {%- if m -%}
    {%- set p, s = m.group(1) | int, (m.group(2) or '0') | int -%}
    {%- if s > p -%}{{ return(none) }}{%- endif -%}
    {{ return({'scale': s, 'hi': 10 ** p - 1, 'lo': 1 - 10 ** p, 'int64': false}) }}
  {%- endif -%}
  {%- if t == 'int64' -%}{{ return({'scale': 0, 'hi': 2 ** 63 - 1, 'lo': -(2 ** 63), 'int64': true}) }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}
