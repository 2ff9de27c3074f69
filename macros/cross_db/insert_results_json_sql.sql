{% macro insert_results_json_sql(relation, rows_json) %}
  {{ return(adapter.dispatch('insert_results_json_sql', 'dataplex_dq')(relation, rows_json)) }}
{% endmacro %}

{% macro default__insert_results_json_sql(relation, rows_json) %}
  {{ exceptions.raise_compiler_error("dataplex_dq: exporting results is not implemented for the " ~ adapter.type() ~ " adapter; add a macro " ~ adapter.type() ~ "__insert_results_json_sql (see macros/results/results_table.sql for DuckDB, PostgreSQL and BigQuery)") }}
{% endmacro %}

{% macro duckdb__insert_results_json_sql(relation, rows_json) %}
  {%- set structure = {} -%}
  {%- set names = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do structure.update({name: dataplex_dq.duckdb_json_structure(t)}) -%}
    {%- do names.append('dq_row.' ~ name) -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ " (" ~ dataplex_dq.results_column_list() ~ ")\nselect " ~ (names | join(", ")) ~ "\nfrom (select unnest(from_json(" ~ dataplex_dq.string_literal(rows_json) ~ ", " ~ dataplex_dq.string_literal(tojson([structure])) ~ ")) as dq_row) dq_rows") }}
{% endmacro %}

{% macro postgres__insert_results_json_sql(relation, rows_json) %}
  {%- set exprs = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- if t is mapping or t == 'json' -%}
      {#- a JSON null becomes SQL NULL, as on DuckDB and BigQuery -#}
      {%- do exprs.append("nullif(dq_row -> " ~ dataplex_dq.string_literal(name) ~ ", 'null'::jsonb)") -%}
    {%- else -%}
      {%- do exprs.append("cast(dq_row ->> " ~ dataplex_dq.string_literal(name) ~ " as " ~ dataplex_dq.results_type(t) ~ ")") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ " (" ~ dataplex_dq.results_column_list() ~ ")\nselect " ~ (exprs | join(",\n  ")) ~ "\nfrom jsonb_array_elements(cast(" ~ dataplex_dq.string_literal(rows_json) ~ " as jsonb)) as dq_row") }}
{% endmacro %}

{#- BigQuery: the JSON array as a string literal, one row per element (JSON_QUERY_ARRAY), each column
    extracted with its type: scalars by JSON_VALUE + CAST, JSON columns by PARSE_JSON(JSON_QUERY),
    STRUCTs field by field, ARRAYs of STRUCT by a correlated ARRAY(SELECT AS STRUCT ...) in order. -#}
{% macro bigquery__insert_results_json_sql(relation, rows_json) %}
  {%- set names = [] -%}
  {%- set exprs = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do names.append(name) -%}
    {%- do exprs.append(dataplex_dq.bigquery_json_extract('dq_row', '$.' ~ name, t, 0) ~ " as " ~ name) -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ " (" ~ (names | join(", ")) ~ ")\nselect\n  " ~ (exprs | join(",\n  ")) ~ "\nfrom unnest(json_query_array(" ~ dataplex_dq.string_literal(rows_json) ~ ")) as dq_row") }}
{% endmacro %}
