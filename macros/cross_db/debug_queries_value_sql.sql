{% macro default__debug_queries_value_sql(literal) %}{{ return('cast(' ~ literal ~ ' as jsonb)') }}{% endmacro %}

{% macro duckdb__debug_queries_value_sql(literal) %}
  {{ return('from_json(' ~ literal ~ ', ' ~ dataplex_dq.string_literal(tojson(dataplex_dq.duckdb_json_structure(dataplex_dq.debug_queries_type()))) ~ ')') }}
{% endmacro %}

{% macro bigquery__debug_queries_value_sql(literal) %}
  {{ return(dataplex_dq.bigquery_json_extract(literal, '$', dataplex_dq.debug_queries_type(), 0)) }}
{% endmacro %}
