{#- Rows of values (each a list of texts or none) as SQL string literals, one 'a, b, ...' text per row
    (string_literal's escapes, applied in place); `null` the text of a NULL. One call for all the rows: the
    escapes are read once, not per row (a dispatch costs dbt ~1-2 ms; 1,000 skipped rules' rows paid it twice
    each). -#}
{% macro hook_literal_rows(rows) %}{{ return(adapter.dispatch('hook_literal_rows', 'dataplex_dq')(rows)) }}{% endmacro %}

{% macro default__hook_literal_rows(rows, null='null') %}
  {%- set e = dataplex_dq.string_literal_escapes() -%}
  {%- set open, table = e.open, e.table -%}
  {%- set out = [] -%}
  {%- for values in rows -%}
    {%- set parts = [] -%}
    {%- for v in values -%}
      {%- do parts.append(null if v is none else open ~ (v | string).translate(table) ~ "'") -%}
    {%- endfor -%}
    {%- set row = parts | join(', ') -%}
    {#- a JSON text's \u0000 escape, which PostgreSQL's JSON refuses (a NUL character itself is replaced by the
        table): rare, so looked for once in the row, and the row written again from its cleaned values -#}
    {%- if '\\u0000' in row -%}
      {%- set parts = [] -%}
      {%- for v in dataplex_dq.hook_clean_rows([values])[0] -%}
        {%- do parts.append(null if v is none else open ~ (v | string).translate(table) ~ "'") -%}
      {%- endfor -%}
      {%- set row = parts | join(', ') -%}
    {%- endif -%}
    {%- do out.append(row) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- BigQuery: NULL typed as STRING (an untyped NULL is INT64 there). -#}
{% macro bigquery__hook_literal_rows(rows) %}{{ return(dataplex_dq.default__hook_literal_rows(rows, 'cast(null as string)')) }}{% endmacro %}
