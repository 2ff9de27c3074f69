{#- round(x, 6) of a double (PostgreSQL has round(numeric, int) only). -#}
{% macro hook_round6(expr) %}{{ return(adapter.dispatch('hook_round6', 'dataplex_dq')(expr)) }}{% endmacro %}

{% macro default__hook_round6(expr) %}{{ return("round(" ~ expr ~ ", 6)") }}{% endmacro %}

{% macro postgres__hook_round6(expr) %}{{ return("cast(round(cast(" ~ expr ~ " as numeric), 6) as double precision)") }}{% endmacro %}
