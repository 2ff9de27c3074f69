{#- The bytes-billed guard (docs/SEMANTICS.md §9, cost columns): `meta.dataplex_dq.max_bytes_billed` on a
    dataplex_dq test (a per-rule test or a data_quality_scan) fails it before its query runs when the
    estimate of what the query would bill is over the cap.

      data_tests:
        - dataplex_dq.data_quality_scan:
            name: orders_scan
            arguments: {rules: [...]}
            config:
              meta: {dataplex_dq: {max_bytes_billed: 1000000000}}   # bytes

    The estimate (estimate_bytes_billed, dispatched; a project may define its own
    `bigquery__estimate_bytes_billed(source_node, sql)` and dbt uses it first):
      BigQuery  the data source's logical bytes (tables.get numBytes), at least the 10 MB BigQuery bills
                a query per table: what reading every column once bills, so an upper bound of the
                rule's query. Not a dry run: dbt-bigquery 1.12 gives Jinja none (its dry run,
                `validate_sql`, is not available to macros). A size BigQuery does not report (a view,
                the test suite's emulator) cannot be checked: the test runs, with a warning in dbt's log.
      others    none: DuckDB and PostgreSQL bill no bytes; the setting is checked (a positive whole
                number) and does nothing there, so one project can run on every target. -#}

{% macro bytes_billed_guard(node, source_node, sql, where) %}
  {%- set cfg_meta = ((node.get('config') or {}).get('meta') or {}).get('dataplex_dq') -%}
  {%- set meta = cfg_meta if cfg_meta is mapping else ((node.get('meta') or {}).get('dataplex_dq') or {}) -%}
  {%- if meta is not mapping -%}{{ return('') }}{%- endif -%}
  {%- set key = 'max_bytes_billed' if 'max_bytes_billed' in meta else 'maxBytesBilled' -%}
  {%- set cap = meta.get(key) -%}
  {%- if cap is none -%}{{ return('') }}{%- endif -%}
  {%- if cap is boolean or cap is not integer or cap <= 0 -%}
    {{ dataplex_dq.raise_rule_error(where, 'meta.dataplex_dq.' ~ key, "must be a positive whole number of bytes, got " ~ (cap | tojson)) }}
    {{ return('') }}
  {%- endif -%}
  {%- set estimate = dataplex_dq.estimate_bytes_billed(source_node, sql) -%}
  {%- if estimate is none -%}{{ return('') }}{%- endif -%}
  {%- if estimate.bytes is none -%}
    {{ log("dataplex_dq: " ~ where.source ~ ", " ~ (where.label or ("rule '" ~ where.rule ~ "'")) ~ ": max_bytes_billed not checked: " ~ estimate.how, info=true) }}
    {{ return('') }}
  {%- endif -%}
  {%- if estimate.bytes > cap -%}
    {{ dataplex_dq.raise_rule_error(where, 'meta.dataplex_dq.' ~ key, "the query would bill up to " ~ dataplex_dq.bytes_text(estimate.bytes) ~ " (" ~ estimate.how ~ "), over the cap of " ~ dataplex_dq.bytes_text(cap) ~ "; it was not run") }}
  {%- endif -%}
{% endmacro %}

{#- Bytes in BigQuery's units (MB, GB, TB = 2^20, 2^30, 2^40 bytes), with the exact count. -#}
{% macro bytes_text(n) %}
  {%- set ns = namespace(value=n | float, unit='bytes') -%}
  {%- for unit in ['KiB', 'MiB', 'GiB', 'TiB'] -%}
    {%- if ns.value >= 1024 -%}{%- set ns.value = ns.value / 1024 -%}{%- set ns.unit = unit -%}{%- endif -%}
  {%- endfor -%}
  {{ return((n | string) ~ " bytes" if ns.unit == 'bytes' else ('%.1f' | format(ns.value)) ~ " " ~ ns.unit ~ " (" ~ ("{:,}".format(n | int)) ~ " bytes)") }}
{% endmacro %}
