{#- Member `key` (a plain identifier) of the JSON object in text `expr`, as a JSON column value. -#}
{% macro hook_json_member(expr, key) %}{{ return(adapter.dispatch('hook_json_member', 'dataplex_dq')(expr, key)) }}{% endmacro %}

{% macro default__hook_json_member(expr, key) %}{{ return("(cast(" ~ expr ~ " as jsonb) -> '" ~ key ~ "')") }}{% endmacro %}

{% macro duckdb__hook_json_member(expr, key) %}{{ return("json_extract(cast(" ~ expr ~ " as json), '$." ~ key ~ "')") }}{% endmacro %}

{#- BigQuery: JSON_QUERY takes a constant path, which `key` is. -#}
{% macro bigquery__hook_json_member(expr, key) %}{{ return("parse_json(json_query(" ~ expr ~ ", '$." ~ key ~ "'))") }}{% endmacro %}
