{#- Around the statements that read hundreds of metrics relations in one UNION ALL. DuckDB: its
    optimizer passes cost about half of such a statement's time and gain nothing on a plain UNION
    ALL of filtered scans: they are switched off for these statements only (the names asked of
    DuckDB itself, so that a version with other passes works too). Elsewhere nothing to do. -#}
{% macro hook_read_many_begin() %}{{ return(adapter.dispatch('hook_read_many_begin', 'dataplex_dq')()) }}{% endmacro %}

{% macro default__hook_read_many_begin() %}{{ return('') }}{% endmacro %}

{#- DuckDB also runs them on one thread: each one-row branch is a pipeline of its own, and scheduling
    hundreds of them over several threads cost 2.4x the single-threaded time (1,000 relations: 0.83 s
    against 0.34 s on two cores). The connection's thread count is restored afterwards. -#}
{% macro duckdb__hook_read_many_begin() %}
  {%- set found = run_query("select (select string_agg(name, ',') from duckdb_optimizers() where name <> 'expression_rewriter'), current_setting('threads')") -%}
  {%- set names = found.columns[0].values()[0] -%}
  {#- both settings in one statement (dbt-duckdb runs a statement list as DuckDB does): each statement costs dbt ~5 ms -#}
  {%- do run_query(("set disabled_optimizers = " ~ dataplex_dq.string_literal(names) ~ ";\n" if names else "") ~ "set threads = 1") -%}
  {{ return({'threads': found.columns[1].values()[0]}) }}
{% endmacro %}
