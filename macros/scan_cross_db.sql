{#- Helpers of the fused data_quality_scan (macros/scan.sql) around its dispatched primitives (macros/cross_db/:
    scan_uniqueness_strategy, window_partitionable, scan_cte_materialized, ...). -#}

{#- The strategy for one uniqueness column of `data_type` (the warehouse type, or none when unknown):
    the scan's strategy, unless the warehouse cannot partition a window by that type; then the grouped
    count, which every warehouse accepts for a groupable type. -#}
{% macro scan_column_uniqueness_strategy(strategy, data_type) %}
  {%- if strategy == 'window' and not adapter.dispatch('window_partitionable', 'dataplex_dq')(data_type) -%}{{ return('grouped') }}{%- endif -%}
  {{ return(strategy) }}
{% endmacro %}

{#- Whether a relation name of an SQL statement (1 to 3 unquoted parts) binds, on this DuckDB connection,
    to `relation` and nothing else: three parts equal to its database, schema and name; one or two parts
    (schema.name) only when the connection's default database and schema are the relation's, the
    search_path is DuckDB's default, and no other table or view of that name exists in any attached
    database or schema (temp included): then the name can only mean the relation. One metadata query. -#}
{% macro duckdb_names_relation(parts, relation) %}
  {%- set name = (relation.identifier or '') | lower -%}
  {%- if not name or (parts[-1] | lower) != name or not relation.database or not relation.schema -%}{{ return(false) }}{%- endif -%}
  {%- if (parts | length) == 3 -%}
    {{ return((parts[0] | lower) == (relation.database | lower) and (parts[1] | lower) == (relation.schema | lower)) }}
  {%- endif -%}
  {%- if (parts | length) == 2 and (parts[0] | lower) != (relation.schema | lower) -%}{{ return(false) }}{%- endif -%}
  {#- (the name is letters, digits and _ only: duplicate_key_assertion) -#}
  {%- set sql -%}
select current_database() as db, current_schema() as sch, current_setting('search_path') as search_path,
  (select count(*) from (select table_name as n from duckdb_tables() union all select view_name from duckdb_views()) where lower(n) = '{{ name }}') as same_name
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {{ return((row[0] | lower) == (relation.database | lower) and (row[1] | lower) == (relation.schema | lower)
            and (row[2] or '') == '' and (row[3] | int) == 1) }}
{% endmacro %}

