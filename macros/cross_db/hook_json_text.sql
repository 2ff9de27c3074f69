{#- A JSON column from JSON text (NULL stays NULL). -#}
{% macro hook_json_text(expr) %}{{ return(adapter.dispatch('hook_json_text', 'dataplex_dq')(expr)) }}{% endmacro %}

{% macro default__hook_json_text(expr) %}{{ return("cast(" ~ expr ~ " as jsonb)") }}{% endmacro %}

{% macro duckdb__hook_json_text(expr) %}{{ return("cast(" ~ expr ~ " as json)") }}{% endmacro %}

{% macro bigquery__hook_json_text(expr) %}{{ return("parse_json(" ~ expr ~ ")") }}{% endmacro %}
