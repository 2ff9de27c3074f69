{% macro catalog_table_info(relation) %}{{ return(adapter.dispatch('catalog_table_info', 'dataplex_dq')(relation)) }}{% endmacro %}

{% macro default__catalog_table_info(relation) %}
  {{ return({'kind': 'missing', 'comment': none, 'alterable': false, 'reason': 'catalog publishing is not implemented for the ' ~ target.type ~ ' adapter'}) }}
{% endmacro %}

{% macro duckdb__catalog_table_info(relation) %}
  {%- set where -%}
    database_name = {{ dataplex_dq.string_literal(relation.database) }} and schema_name = {{ dataplex_dq.string_literal(relation.schema) }}
  {%- endset -%}
  {%- set sql -%}
    select 'table' as kind, comment, (select readonly from duckdb_databases() d where d.database_name = t.database_name) as readonly
    from duckdb_tables() t where {{ where }} and table_name = {{ dataplex_dq.string_literal(relation.identifier) }}
    union all
    select 'view', comment, false from duckdb_views() where {{ where }} and view_name = {{ dataplex_dq.string_literal(relation.identifier) }}
  {%- endset -%}
  {%- set rows = run_query(sql).rows -%}
  {%- if rows | length == 0 -%}{{ return({'kind': 'missing', 'comment': none, 'alterable': false, 'reason': 'no such table'}) }}{%- endif -%}
  {%- set r = rows[0] -%}
  {%- if r[2] -%}{{ return({'kind': r[0], 'comment': r[1], 'alterable': false, 'reason': 'its database is attached read-only'}) }}{%- endif -%}
  {{ return({'kind': r[0], 'comment': r[1], 'alterable': true, 'reason': none}) }}
{% endmacro %}

{% macro postgres__catalog_table_info(relation) %}
  {%- set sql -%}
    select case when c.relkind in ('r', 'p') then 'table' when c.relkind in ('v', 'm') then 'view' else c.relkind::text end,
           obj_description(c.oid, 'pg_class'),
           pg_has_role(current_user, c.relowner, 'MEMBER'),
           pg_get_userbyid(c.relowner)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = {{ dataplex_dq.string_literal(relation.schema) }} and c.relname = {{ dataplex_dq.string_literal(relation.identifier) }}
  {%- endset -%}
  {%- set rows = run_query(sql).rows -%}
  {%- if rows | length == 0 -%}{{ return({'kind': 'missing', 'comment': none, 'alterable': false, 'reason': 'no such table'}) }}{%- endif -%}
  {%- set r = rows[0] -%}
  {%- if not r[2] -%}
    {{ return({'kind': r[0], 'comment': r[1], 'alterable': false, 'reason': 'it is owned by ' ~ r[3] ~ ', not by ' ~ target.user ~ ' (COMMENT ON needs the owner)'}) }}
  {%- endif -%}
  {{ return({'kind': r[0], 'comment': r[1], 'alterable': true, 'reason': none}) }}
{% endmacro %}
