{#- A STRUCT column of the results table from field expressions ({field: SQL}), typed as the table. -#}
{% macro hook_struct(column, fields) %}{{ return(adapter.dispatch('hook_struct', 'dataplex_dq')(column, fields)) }}{% endmacro %}

{#- PostgreSQL (and the default): STRUCT columns are jsonb objects, every field present. -#}
{% macro default__hook_struct(column, fields) %}
  {%- set parts = [] -%}
  {%- for name, t in dataplex_dq.hook_struct_fields(column) -%}
    {%- do parts.append(dataplex_dq.string_literal(name) ~ ", " ~ fields.get(name, 'null')) -%}
  {%- endfor -%}
  {{ return("jsonb_build_object(" ~ (parts | join(", ")) ~ ")") }}
{% endmacro %}

{#- DuckDB: struct_pack with each field cast to the table's field type. -#}
{% macro duckdb__hook_struct(column, fields) %}
  {%- set parts = [] -%}
  {%- for name, t in dataplex_dq.hook_struct_fields(column) -%}
    {%- do parts.append('"' ~ name ~ '" := cast(' ~ fields.get(name, 'null') ~ ' as ' ~ dataplex_dq.duckdb__results_type(t) ~ ')') -%}
  {%- endfor -%}
  {{ return("struct_pack(" ~ (parts | join(", ")) ~ ")") }}
{% endmacro %}

{#- BigQuery: STRUCT(cast(expr as T) as field, ...). -#}
{% macro bigquery__hook_struct(column, fields) %}
  {%- set parts = [] -%}
  {%- for name, t in dataplex_dq.hook_struct_fields(column) -%}
    {%- do parts.append('cast(' ~ fields.get(name, 'null') ~ ' as ' ~ dataplex_dq.bigquery__results_type(t) ~ ') as ' ~ name) -%}
  {%- endfor -%}
  {{ return("struct(" ~ (parts | join(", ")) ~ ")") }}
{% endmacro %}
