{#- Rows of values (each a list of texts or none) as SQL string literals, one 'a, b, ...' text per row
    (string_literal's escapes, applied in place); `null` the text of a NULL. One call for all the rows: the
    escapes are read once, not per row (a dispatch costs dbt ~1-2 ms; 1,000 skipped rules' rows paid it twice
    each). -#}
{% macro hook_literal_rows(rows) %}{{ return(adapter.dispatch('hook_literal_rows', 'dataplex_dq')(rows)) }}{% endmacro %}

{% macro default__hook_literal_rows(rows, null='null') %}
  {%- set e = dataplex_dq.string_literal_escapes() -%}
  {%- set open, table = e.open, e.table -%}
  {%- set out = [] -%}
  {%- for given in rows -%}
    {#- a JSON text's \u0000 escape, which PostgreSQL's JSON refuses (a NUL character itself is replaced by the
        table): rare, so looked for once in the row's values, which are then cleaned (hook_clean_text) -#}
    {%- set values = dataplex_dq.hook_clean_rows([given])[0] if '\\u0000' in (given | reject('none') | map('string') | join(' ')) else given -%}
    {%- set parts = [] -%}
    {%- for v in values -%}
      {%- do parts.append(null if v is none else open ~ (v | string).translate(table) ~ "'") -%}
    {%- endfor -%}
    {%- do out.append(parts | join(', ')) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- BigQuery: NULL typed as STRING (an untyped NULL is INT64 there). -#}
{% macro bigquery__hook_literal_rows(rows) %}{{ return(dataplex_dq.default__hook_literal_rows(rows, 'cast(null as string)')) }}{% endmacro %}
