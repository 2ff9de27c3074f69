{#- The metrics row(s) of `sql` (a SELECT of the contract's columns) as the test stores them: on
    DuckDB with one more, last column `dq_row`, the whole row as one JSON text (to_json of the row).
    Why: the on-run-end hook and the report read the metrics relations of all the invocation's tests
    in UNION ALLs, and DuckDB's binder pays per column of every relation: on 1,000 one-row relations,
    ~2.3 CPU-s to bind 31 columns each, ~0.4 s to bind one. They read `dq_row` alone and unpack the
    JSON once over the union (on_run_end.sql, hook_metrics_branch). Other
    warehouses store the contract's columns only (no such cost measured there: nothing to pack). -#}
{% macro metrics_packed(sql) %}{{ return(adapter.dispatch('metrics_packed', 'dataplex_dq')(sql)) }}{% endmacro %}

{% macro default__metrics_packed(sql) %}{{ return(sql) }}{% endmacro %}

{% macro duckdb__metrics_packed(sql) %}
  {{ return("select dq_metrics.*, to_json(dq_metrics) as dq_row\nfrom (\n" ~ sql ~ "\n) as dq_metrics") }}
{% endmacro %}
