{#- The results table (SPEC 7): one row per rule per job, the columns of Dataplex's BigQuery export in
    their order, then our extension columns. One schema, rendered per warehouse:
      STRUCT / JSON / ARRAY where the warehouse has them (DuckDB, BigQuery), jsonb otherwise. -#}

{% macro results_columns() %}
  {%- set string, int64, float64, bool, ts, json = 'string', 'int64', 'float64', 'bool', 'timestamp', 'json' -%}
  {{ return([
    ('data_quality_scan', {'struct': [('resource_name', string), ('project_id', string), ('location', string), ('data_scan_id', string), ('display_name', string)]}),
    ('data_source', {'struct': [('resource_name', string), ('dataplex_entity_project_id', string), ('dataplex_entity_project_number', int64),
                                ('dataplex_lake_id', string), ('dataplex_zone_id', string), ('dataplex_entity_id', string),
                                ('table_project_id', string), ('table_project_number', int64), ('dataset_id', string), ('table_id', string)]}),
    ('data_quality_job_id', string),
    ('data_quality_job_configuration', json),
    ('job_labels', json),
    ('job_start_time', ts),
    ('job_end_time', ts),
    ('job_quality_result', {'struct': [('passed', bool), ('score', float64), ('incremental_start', string), ('incremental_end', string)]}),
    ('job_dimension_result', json),
    ('job_rows_scanned', int64),
    ('rule_name', string),
    ('rule_description', string),
    ('rule_type', string),
    ('rule_evaluation_type', string),
    ('rule_column', string),
    ('rule_dimension', string),
    ('rule_threshold_percent', float64),
    ('rule_parameters', json),
    ('rule_passed', bool),
    ('rule_rows_evaluated', int64),
    ('rule_rows_passed', int64),
    ('rule_rows_passed_percent', float64),
    ('rule_rows_null', int64),
    ('rule_failed_records_query', string),
    ('created_on', ts),
    ('last_updated', ts),
    ('rule_assertion_row_count', int64),
    ('debug_queries', {'array': {'struct': [('description', string), ('sql_statement', string),
                                            ('debug_query_results', {'array': {'struct': [('name', string), ('type', string), ('value', string)]}})]}}),
    ('rule_suspended', bool),
    ('rule_attributes', json),
    ('rule_status', string),
    ('rule_message', string),
    ('rule_statistic_value', float64),
    ('job_row_weighted_score', float64),
    ('dbt_invocation_id', string),
    ('dbt_test_unique_id', string),
    ('dbt_node_unique_id', string),
  ]) }}
{% endmacro %}

{#- Warehouse type of one column type descriptor. -#}
{% macro results_type(t) %}{{ return(adapter.dispatch('results_type', 'dataplex_dq')(t)) }}{% endmacro %}

{% macro default__results_type(t) %}
  {%- if t is mapping -%}{{ return('jsonb') }}{%- endif -%}
  {{ return({'string': 'text', 'int64': 'bigint', 'float64': 'double precision', 'bool': 'boolean', 'timestamp': 'timestamp', 'json': 'jsonb'}[t]) }}
{% endmacro %}

{% macro duckdb__results_type(t) %}
  {%- if t is mapping and 'struct' in t -%}
    {%- set fields = [] -%}
    {%- for name, sub in t.struct -%}{%- do fields.append(name ~ ' ' ~ dataplex_dq.duckdb__results_type(sub)) -%}{%- endfor -%}
    {{ return('STRUCT(' ~ (fields | join(', ')) ~ ')') }}
  {%- elif t is mapping -%}
    {{ return(dataplex_dq.duckdb__results_type(t.array) ~ '[]') }}
  {%- endif -%}
  {{ return({'string': 'VARCHAR', 'int64': 'BIGINT', 'float64': 'DOUBLE', 'bool': 'BOOLEAN', 'timestamp': 'TIMESTAMP', 'json': 'JSON'}[t]) }}
{% endmacro %}

{% macro bigquery__results_type(t) %}
  {%- if t is mapping and 'struct' in t -%}
    {%- set fields = [] -%}
    {%- for name, sub in t.struct -%}{%- do fields.append(name ~ ' ' ~ dataplex_dq.bigquery__results_type(sub)) -%}{%- endfor -%}
    {{ return('STRUCT<' ~ (fields | join(', ')) ~ '>') }}
  {%- elif t is mapping -%}
    {{ return('ARRAY<' ~ dataplex_dq.bigquery__results_type(t.array) ~ '>') }}
  {%- endif -%}
  {{ return({'string': 'STRING', 'int64': 'INT64', 'float64': 'FLOAT64', 'bool': 'BOOL', 'timestamp': 'TIMESTAMP', 'json': 'JSON'}[t]) }}
{% endmacro %}

{#- A typed, empty SELECT with the results table's columns: the body of the `dataplex_dq_results`
    model and of the table the post-hook creates when it is missing. -#}
{% macro results_table_sql() %}
  {%- set cols = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do cols.append("cast(null as " ~ dataplex_dq.results_type(t) ~ ") as " ~ name) -%}
  {%- endfor -%}
  {{ return("select\n  " ~ (cols | join(",\n  ")) ~ "\nwhere 1 = 0") }}
{% endmacro %}

{#- Create the results table if it does not exist (used by the post-hook). -#}
{% macro ensure_results_table(relation) %}
  {{ return(adapter.dispatch('ensure_results_table', 'dataplex_dq')(relation)) }}
{% endmacro %}
{% macro default__ensure_results_table(relation) %}
  {%- set existing = adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
  {%- if existing is none -%}
    {% do adapter.create_schema(relation) %}
    {% do run_query("create table " ~ relation ~ " as " ~ dataplex_dq.results_table_sql()) %}
    {{ return(true) }}
  {%- endif -%}
  {{ return(false) }}
{% endmacro %}

{#- Delete the rows of the given jobs (so that reporting the same invocation again is idempotent). -#}
{% macro delete_results(relation, job_ids) %}
  {%- set ids = [] -%}
  {%- for j in job_ids -%}{%- do ids.append(dataplex_dq.string_literal(j)) -%}{%- endfor -%}
  {% do run_query("delete from " ~ relation ~ " where data_quality_job_id in (" ~ (ids | join(", ")) ~ ")") %}
{% endmacro %}

{#- Insert rows given as one JSON array (objects keyed by column name, nested as the schema). -#}
{% macro insert_results_json(relation, rows_json) %}
  {% do run_query(adapter.dispatch('insert_results_json_sql', 'dataplex_dq')(relation, rows_json)) %}
{% endmacro %}

{% macro duckdb__insert_results_json_sql(relation, rows_json) %}
  {%- set structure = {} -%}
  {%- set names = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do structure.update({name: dataplex_dq.duckdb_json_structure(t)}) -%}
    {%- do names.append('dq_row.' ~ name) -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ "\nselect " ~ (names | join(", ")) ~ "\nfrom (select unnest(from_json(" ~ dataplex_dq.string_literal(rows_json) ~ ", " ~ dataplex_dq.string_literal(tojson([structure])) ~ ")) as dq_row) dq_rows") }}
{% endmacro %}

{% macro duckdb_json_structure(t) %}
  {%- if t is mapping and 'struct' in t -%}
    {%- set d = {} -%}
    {%- for name, sub in t.struct -%}{%- do d.update({name: dataplex_dq.duckdb_json_structure(sub)}) -%}{%- endfor -%}
    {{ return(d) }}
  {%- elif t is mapping -%}
    {{ return([dataplex_dq.duckdb_json_structure(t.array)]) }}
  {%- endif -%}
  {{ return(dataplex_dq.duckdb__results_type(t)) }}
{% endmacro %}

{% macro postgres__insert_results_json_sql(relation, rows_json) %}
  {%- set exprs = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- if t is mapping or t == 'json' -%}
      {%- do exprs.append("(dq_row -> " ~ dataplex_dq.string_literal(name) ~ ")") -%}
    {%- else -%}
      {%- do exprs.append("cast(dq_row ->> " ~ dataplex_dq.string_literal(name) ~ " as " ~ dataplex_dq.results_type(t) ~ ")") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ "\nselect " ~ (exprs | join(",\n  ")) ~ "\nfrom jsonb_array_elements(cast(" ~ dataplex_dq.string_literal(rows_json) ~ " as jsonb)) as dq_row") }}
{% endmacro %}
