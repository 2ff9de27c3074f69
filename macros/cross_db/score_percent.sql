{#- 100 x passed / evaluated rules, rounded half away from zero to 2 decimals, as a double; NULL when
    nothing was evaluated (docs/SEMANTICS.md §7). Computed as floor((20000 p + e) / 2e) / 100 so that it equals the
    Python post-hook's exact rounding (dataplex_dq.run.scoring.percent: 2 of 3 -> 66.67, 1 of 8 -> 12.5)
    on every warehouse (PostgreSQL has no round(double, int); a binary 100.0 * p / e can land just
    below a .xx5 boundary). -#}
{% macro score_percent(passed_expr, evaluated_expr) %}
  {{- return(adapter.dispatch('score_percent', 'dataplex_dq')(passed_expr, evaluated_expr)) -}}
{% endmacro %}

{% macro default__score_percent(passed_expr, evaluated_expr) -%}
  {%- set dbl = dataplex_dq.type_double() -%}
  {{- return("cast(floor(cast(20000 * (" ~ passed_expr ~ ") + (" ~ evaluated_expr ~ ") as " ~ dbl ~ ")"
             ~ " / cast(nullif(2 * (" ~ evaluated_expr ~ "), 0) as " ~ dbl ~ ")) / 100 as " ~ dbl ~ ")") -}}
{%- endmacro %}
