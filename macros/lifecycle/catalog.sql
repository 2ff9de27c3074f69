{#- Catalog publishing (docs/SEMANTICS.md §14), run by the post-hook (python/dataplex_dq/outputs/catalog.py): the latest
    score and pass/fail go onto the data source's own table metadata.

    catalog_table_info(relation) -> {kind: 'table' | 'view' | 'missing', comment: text or none,
                                     alterable: bool, reason: text or none}
      DuckDB      duckdb_tables() / duckdb_views(): a table of an attached read-only database is not alterable;
      PostgreSQL  pg_class: COMMENT ON needs the owner (or a member of the owning role);
      BigQuery    read through the API by the post-hook (labels and description), not here.
    catalog_publish_sql(relation, comment, labels) -> the one statement that publishes:
      DuckDB, PostgreSQL  COMMENT ON TABLE ... IS '<comment>' (labels do not exist there);
      BigQuery            ALTER TABLE ... SET OPTIONS (description = ..., labels = [...]); SET OPTIONS
                          replaces the whole label set, so the post-hook passes the table's labels merged. -#}

{#- Run the publishing statement (the post-hook commits). -#}
{% macro catalog_publish(relation, comment, labels) %}
  {% do run_query(dataplex_dq.catalog_publish_sql(relation, comment, labels)) %}
  {{ return(true) }}
{% endmacro %}
