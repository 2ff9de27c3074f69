{#- The debug_queries column from the rule spec's declared `debug_queries` (description, sql_statement),
    each with an empty debug_query_results (the results need the queries run: `dataplex-dq report`). -#}
{% macro hook_debug_queries(spec_expr) %}{{ return(adapter.dispatch('hook_debug_queries', 'dataplex_dq')(spec_expr)) }}{% endmacro %}

{% macro default__hook_debug_queries(spec_expr) %}
  {{ return("coalesce((select jsonb_agg(jsonb_build_object('description', dq_q.value -> 'description', 'sql_statement', dq_q.value -> 'sql_statement', "
            ~ "'debug_query_results', '[]'::jsonb) order by dq_q.ordinality) from jsonb_array_elements(cast(" ~ spec_expr ~ " as jsonb) -> 'debug_queries') "
            ~ "with ordinality as dq_q(value, ordinality)), '[]'::jsonb)") }}
{% endmacro %}

{% macro duckdb__hook_debug_queries(spec_expr) %}
  {%- set result_type = dataplex_dq.duckdb__results_type({'array': {'struct': [('name', 'string'), ('type', 'string'), ('value', 'string')]}}) -%}
  {{ return("coalesce(list_transform(from_json(json_extract(cast(" ~ spec_expr ~ " as json), '$.debug_queries'), "
            ~ "'[{\"description\": \"VARCHAR\", \"sql_statement\": \"VARCHAR\"}]'), lambda dq_q: struct_pack(description := dq_q.description, "
            ~ "sql_statement := dq_q.sql_statement, debug_query_results := cast([] as " ~ result_type ~ "))), [])") }}
{% endmacro %}

{% macro bigquery__hook_debug_queries(spec_expr) %}
  {{ return("array(select as struct json_value(dq_q, '$.description') as description, json_value(dq_q, '$.sql_statement') as sql_statement, "
            ~ "cast([] as array<struct<name string, type string, value string>>) as debug_query_results "
            ~ "from unnest(json_query_array(" ~ spec_expr ~ ", '$.debug_queries')) as dq_q with offset as dq_o order by dq_o)") }}
{% endmacro %}
