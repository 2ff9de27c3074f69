{#- Test hook of copy_results (its `pause` argument): wait `seconds` between the DELETE and the INSERT, so
    that the race test can run two copies of one job into one table at once. PostgreSQL only (the one
    warehouse where two copies run concurrently); elsewhere nothing. -#}
{% macro copy_results_test_pause(seconds) %}
  {{ return(adapter.dispatch('copy_results_test_pause', 'dataplex_dq')(seconds)) }}
{% endmacro %}

{% macro default__copy_results_test_pause(seconds) %}{{ return('') }}{% endmacro %}

{% macro postgres__copy_results_test_pause(seconds) %}
  {%- do run_query("select pg_sleep(" ~ (seconds | float) ~ ")") -%}
  {{ return('') }}
{% endmacro %}
