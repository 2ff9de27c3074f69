{% macro hook_read_many_end(state=none) %}{{ return(adapter.dispatch('hook_read_many_end', 'dataplex_dq')(state)) }}{% endmacro %}

{% macro default__hook_read_many_end(state=none) %}{{ return('') }}{% endmacro %}

{% macro duckdb__hook_read_many_end(state=none) %}
  {#- the thread count begin found (a caller that kept no state: left as begin set it) -#}
  {%- do run_query("reset disabled_optimizers" ~ (";\nset threads = " ~ (state.threads | int) if state else "")) -%}
  {{ return('') }}
{% endmacro %}
