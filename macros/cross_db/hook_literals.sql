{#- One row's values (texts or none) as SQL string literals 'a, b, ...' (string_literal's escapes,
    applied in place: this runs once per value of every test); `null` the text of a NULL. -#}
{% macro hook_literals(values) %}{{ return(adapter.dispatch('hook_literals', 'dataplex_dq')(values)) }}{% endmacro %}

{% macro default__hook_literals(values, null='null', cleaned=false) %}
  {%- set e = dataplex_dq.string_literal_escapes() -%}
  {%- set open, table = e.open, e.table -%}
  {%- set parts = [] -%}
  {%- for v in values -%}
    {%- do parts.append(null if v is none else open ~ (v | string).translate(table) ~ "'") -%}
  {%- endfor -%}
  {#- a JSON text's \u0000 escape, which PostgreSQL's JSON refuses (a NUL character itself is replaced
      by the table): rare, so looked for once in the row -#}
  {%- set row = parts | join(', ') -%}
  {%- if not cleaned and '\\u0000' in row -%}
    {{ return(dataplex_dq.default__hook_literals(dataplex_dq.hook_clean_rows([values])[0], null, true)) }}
  {%- endif -%}
  {{ return(row) }}
{% endmacro %}

{#- BigQuery: NULL typed as STRING (an untyped NULL is INT64 there). -#}
{% macro bigquery__hook_literals(values) %}{{ return(dataplex_dq.default__hook_literals(values, 'cast(null as string)')) }}{% endmacro %}
