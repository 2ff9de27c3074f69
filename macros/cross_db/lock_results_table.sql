{#- Before the DELETE + INSERT of an export: make the pair atomic against a concurrent export of the
    same job (two reports of one invocation at once would otherwise both delete, then both insert). -#}
{% macro lock_results_table(relation) %}
  {{ return(adapter.dispatch('lock_results_table', 'dataplex_dq')(relation)) }}
{% endmacro %}

{% macro default__lock_results_table(relation) %}
  {#- DuckDB: one process holds the database file's write lock, so a second writer cannot even open
      it; within the process the export runs in one transaction. Other adapters: nothing to take. -#}
{% endmacro %}

{% macro postgres__lock_results_table(relation) %}
  {#- A transaction-scoped advisory lock keyed by the table's name: a second export of the same table
      waits until the first commits, then deletes its rows and inserts its own (READ COMMITTED alone
      lets both DELETEs see no row and both INSERTs land). Held until the export's COMMIT; readers
      are not blocked. Unlike LOCK TABLE it cannot fail outside a transaction block (right after the
      table was created, dbt's create_schema has committed). -#}
  {% do run_query("select pg_advisory_xact_lock(hashtext(" ~ dataplex_dq.string_literal(relation | string) ~ "))") %}
{% endmacro %}
