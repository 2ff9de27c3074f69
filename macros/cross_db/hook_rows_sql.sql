{#- Rows of values (each a list of texts or none) as a query with columns `names`, typed by `types`
    (results types). -#}
{% macro hook_rows_sql(names, types, rows) %}{{ return(adapter.dispatch('hook_rows_sql', 'dataplex_dq')(names, types, rows)) }}{% endmacro %}

{#- PostgreSQL and the default: a VALUES list of SQL literals. -#}
{% macro default__hook_rows_sql(names, types, rows) %}
  {%- set sql_types = dataplex_dq.hook_types() -%}
  {%- set casts = [] -%}
  {%- for name in names -%}{%- do casts.append('cast(dq_v.' ~ name ~ ' as ' ~ sql_types[types[loop.index0]] ~ ') as ' ~ name) -%}{%- endfor -%}
  {%- set texts = dataplex_dq.hook_literal_rows(rows) -%}
  {{ return('select ' ~ (casts | join(', ')) ~ '\nfrom (values\n(' ~ (texts | join('),\n(')) ~ ')\n) as dq_v (' ~ (names | join(', ')) ~ ')') }}
{% endmacro %}

{#- DuckDB: the rows as ONE JSON string literal, unnested: binding a VALUES list costs DuckDB about
    0.5 ms per row (1,000 tests: half a second), binding one literal nothing, and Jinja's `tojson`
    escapes the rows at once instead of value by value. -#}
{% macro duckdb__hook_rows_sql(names, types, rows) %}
  {%- set sql_types = dataplex_dq.hook_types() -%}
  {%- set casts = [] -%}
  {%- for name in names -%}{%- do casts.append('cast(dq_v.dq_row[' ~ loop.index ~ '] as ' ~ sql_types[types[loop.index0]] ~ ') as ' ~ name) -%}{%- endfor -%}
  {%- set json = rows | tojson -%}
  {#- a NUL or a JSON text's \u0000 escape in a value (hook_clean_text): rare, looked for once -#}
  {%- if '\\u0000' in json -%}{%- set json = dataplex_dq.hook_clean_rows(rows) | tojson -%}{%- endif -%}
  {{ return('select ' ~ (casts | join(', ')) ~ '\nfrom (select unnest(from_json(' ~ dataplex_dq.string_literal(json) ~ ", '[[\"VARCHAR\"]]')) as dq_row) as dq_v") }}
{% endmacro %}

{#- BigQuery has no VALUES: a UNION ALL of SELECTs of literals. -#}
{% macro bigquery__hook_rows_sql(names, types, rows) %}
  {%- set sql_types = dataplex_dq.hook_types() -%}
  {%- set casts = [] -%}
  {%- set first = [] -%}
  {%- for name in names -%}
    {%- do casts.append('cast(dq_v.' ~ name ~ ' as ' ~ sql_types[types[loop.index0]] ~ ') as ' ~ name) -%}
    {%- do first.append('cast(null as string) as ' ~ name) -%}
  {%- endfor -%}
  {%- set texts = dataplex_dq.hook_literal_rows(rows) -%}
  {#- the first SELECT names the columns (and types them: a column of NULLs only would be INT64) -#}
  {{ return('select ' ~ (casts | join(', ')) ~ '\nfrom (\nselect ' ~ (first | join(', ')) ~ ' from unnest([1]) where false\nunion all\nselect ' ~ (texts | join('\nunion all\nselect ')) ~ '\n) as dq_v') }}
{% endmacro %}
