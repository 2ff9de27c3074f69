{#- For test_on_run_end.py: the session settings hook_read_many_begin changes for the many-relation
    reads, inside and after (DuckDB): logged as DATAPLEX_DQ_RENDERED {json}. -#}
{% macro probe_read_many_settings(threads=3) %}
  {%- set read = "select cast(current_setting('threads') as varchar), cast(current_setting('disabled_optimizers') as varchar)" -%}
  {%- do run_query("set threads = " ~ threads) -%}
  {%- set state = dataplex_dq.hook_read_many_begin() -%}
  {%- set inside = run_query(read).rows[0] -%}
  {%- do dataplex_dq.hook_read_many_end(state) -%}
  {%- set after = run_query(read).rows[0] -%}
  {{ log('DATAPLEX_DQ_RENDERED ' ~ tojson({'inside': [inside[0], inside[1]], 'after': [after[0], after[1]]}), info=true) }}
{% endmacro %}
