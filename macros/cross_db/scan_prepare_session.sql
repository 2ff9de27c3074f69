{#- Session settings the scan's query needs, made just before it runs; returns a SQL comment naming them
    ('' when none), which the scan puts at the head of its query so the compiled SQL says how it ran.
    `relation`: the data source; `columns`: the quoted columns the scan groups by (uniqueness counts),
    `data_types`: their warehouse types (or none). Only DuckDB has one (perfect hashing, below). -#}
{% macro scan_prepare_session(relation, columns, data_types) %}
  {{ return(adapter.dispatch('scan_prepare_session', 'dataplex_dq')(relation, columns, data_types)) }}
{% endmacro %}

{% macro default__scan_prepare_session(relation, columns, data_types) %}{{ return('') }}{% endmacro %}

{#- DuckDB groups by a key with a hash table unless the key's value range (from the column's storage
    statistics) fits in `perfect_ht_threshold` bits (default 12), when it uses a perfect-hash aggregate:
    one slot per possible value, no hashing, no probing. A uniqueness count on an integer id is the
    scan's slowest step (10M rows: 1.6 s of hash aggregate against 0.08 s perfect-hashed, and a SQL
    assertion grouping by the same id likewise). So: read the integer keys' ranges first (one
    min/max query), and when the widest needs at most `dataplex_dq_perfect_hash_max_bits` bits (var,
    default 24: 16M slots per thread, a few hundred MB at most), raise the session's threshold to
    exactly those bits. Never on wide keys, never lowered, and bounded: any GROUP BY this session runs
    afterwards gets a perfect hash only for a key range within those bits (the setting stays on the
    connection; DuckDB has no per-statement setting). Counts are the same either way. -#}
{% macro duckdb__scan_prepare_session(relation, columns, data_types) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set keys = [] -%}
  {%- for col in columns -%}
    {%- set t = (data_types[loop.index0] or '') | string | trim | upper -%}
    {%- if t in ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'INT1', 'INT2', 'INT4', 'INT8', 'INT', 'LONG'] and col not in keys -%}
      {%- do keys.append(col) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set max_bits = var('dataplex_dq_perfect_hash_max_bits', 24) | int -%}
  {%- if (keys | length) == 0 or max_bits <= 0 -%}{{ return('') }}{%- endif -%}
  {%- set ranges = [] -%}
  {%- for col in keys -%}
    {%- do ranges.append("cast(max(" ~ col ~ ") as hugeint) - cast(min(" ~ col ~ ") as hugeint)") -%}
  {%- endfor -%}
  {%- set sql = "select (select cast(value as integer) from duckdb_settings() where name = 'perfect_ht_threshold') as current_bits, greatest(" ~ (ranges | join(', ')) ~ ") as key_range from " ~ relation -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- if row[1] is none -%}{{ return('') }}{%- endif -%}
  {#- the fewest bits holding the range plus one slot for NULL (DuckDB 2.0: a range of 10M needs 24) -#}
  {%- set need = {'bits': max_bits + 1} -%}
  {%- for b in range(1, max_bits + 1) if need.bits > max_bits and (2 ** b) > (row[1] | int) + 1 -%}
    {%- do need.update({'bits': b}) -%}
  {%- endfor -%}
  {%- if need.bits > max_bits or need.bits <= (row[0] | int) -%}{{ return('') }}{%- endif -%}
  {%- do run_query("set perfect_ht_threshold = " ~ need.bits) -%}
  {{ return("-- dataplex_dq: perfect_ht_threshold = " ~ need.bits ~ "\n") }}
{% endmacro %}
