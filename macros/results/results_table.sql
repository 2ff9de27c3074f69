{#- The results table (docs/SEMANTICS.md §9): one row per rule per job, the columns of Dataplex's BigQuery export in
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
    ('job_notification_result', json),
    ('rule_statistic_value_text', string),
    ('dbt_target', string),
    ('job_declared_rules', string),
    ('job_declared_rule_count', int64),
    ('job_run_rule_count', int64),
    ('rule_execution_seconds', float64),
    ('rule_bytes_processed', int64),
    ('rule_bytes_billed', int64),
    ('rule_slot_ms', int64),
    ('job_execution_seconds', float64),
    ('job_bytes_processed', int64),
    ('job_bytes_billed', int64),
    ('job_slot_ms', int64),
    ('job_query_count', int64),
    ('dbt_test_cost', json),
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
  {#- `limit 0` rather than `where 1 = 0`: BigQuery refuses a WHERE without FROM. -#}
  {{ return("select\n  " ~ (cols | join(",\n  ")) ~ "\nlimit 0") }}
{% endmacro %}

{#- CREATE TABLE of the results table: the columns in order, with their warehouse types; on BigQuery
    partitioned by DATE(job_start_time) as Dataplex's export table. -#}
{% macro create_results_table_sql(relation) %}
  {{ return(adapter.dispatch('create_results_table_sql', 'dataplex_dq')(relation)) }}
{% endmacro %}
{% macro default__create_results_table_sql(relation) %}
  {%- set cols = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do cols.append(name ~ " " ~ dataplex_dq.results_type(t)) -%}
  {%- endfor -%}
  {{ return("create table " ~ relation ~ " (\n  " ~ (cols | join(",\n  ")) ~ "\n)") }}
{% endmacro %}
{% macro bigquery__create_results_table_sql(relation) %}
  {{ return(dataplex_dq.default__create_results_table_sql(relation) ~ "\npartition by date(job_start_time)") }}
{% endmacro %}

{#- Create the results table if it does not exist (used by the post-hook). -#}
{% macro ensure_results_table(relation) %}
  {{ return(adapter.dispatch('ensure_results_table', 'dataplex_dq')(relation)) }}
{% endmacro %}
{% macro default__ensure_results_table(relation) %}
  {%- set existing = adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
  {%- if existing is none -%}
    {% do adapter.create_schema(relation) %}
    {% do run_query(dataplex_dq.create_results_table_sql(relation)) %}
    {{ return(true) }}
  {%- endif -%}
  {{ return(false) }}
{% endmacro %}

{#- Delete the rows of the given jobs (so that reporting the same invocation again is idempotent). -#}
{% macro delete_results(relation, job_ids) %}
  {% do run_query(dataplex_dq.delete_results_sql(relation, job_ids)) %}
{% endmacro %}

{% macro delete_results_sql(relation, job_ids) %}
  {%- set ids = [] -%}
  {%- for j in job_ids -%}{%- do ids.append(dataplex_dq.string_literal(j)) -%}{%- endfor -%}
  {{ return(adapter.dispatch('delete_results_sql', 'dataplex_dq')(relation, ids | join(", "))) }}
{% endmacro %}
{% macro default__delete_results_sql(relation, id_list) %}
  {{ return("delete from " ~ relation ~ " where data_quality_job_id in (" ~ id_list ~ ")") }}
{% endmacro %}
{% macro bigquery__delete_results_sql(relation, id_list) %}
  {#- The same rows as DELETE ... WHERE, written as the MERGE form of a delete (as dbt's own
      insert_overwrite does): one DML statement that the local BigQuery emulator of the test suite
      also runs (it has MERGE but no DELETE). -#}
  {{ return("merge into " ~ relation ~ " as dq_target\nusing (select 1 as dq_one) as dq_source\non false\nwhen not matched by source and dq_target.data_quality_job_id in (" ~ id_list ~ ") then delete") }}
{% endmacro %}

{#- The results table's column names, comma-separated: every INSERT names its columns, so a table
    whose columns are in another order still gets each value in its column. -#}
{% macro results_column_list() %}
  {%- set names = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}{%- do names.append(name) -%}{%- endfor -%}
  {{ return(names | join(", ")) }}
{% endmacro %}

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
{#- BigQuery: each DML statement is atomic; concurrent MERGE/INSERT on one table are serialized by
    BigQuery (a conflicting MERGE fails with "Could not serialize access" and is retried by the next
    report); the DELETE (a MERGE) and INSERT of a job are two statements, see README. -#}

{#- Insert rows given as one JSON array (objects keyed by column name, nested as the schema). -#}
{% macro insert_results_json(relation, rows_json) %}
  {% do run_query(dataplex_dq.insert_results_json_sql(relation, rows_json)) %}
{% endmacro %}

{% macro insert_results_json_sql(relation, rows_json) %}
  {{ return(adapter.dispatch('insert_results_json_sql', 'dataplex_dq')(relation, rows_json)) }}
{% endmacro %}

{% macro default__insert_results_json_sql(relation, rows_json) %}
  {{ exceptions.raise_compiler_error("dataplex_dq: exporting results is not implemented for the " ~ adapter.type() ~ " adapter; add a macro " ~ adapter.type() ~ "__insert_results_json_sql (see macros/results/results_table.sql for DuckDB, PostgreSQL and BigQuery)") }}
{% endmacro %}

{% macro duckdb__insert_results_json_sql(relation, rows_json) %}
  {%- set structure = {} -%}
  {%- set names = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do structure.update({name: dataplex_dq.duckdb_json_structure(t)}) -%}
    {%- do names.append('dq_row.' ~ name) -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ " (" ~ dataplex_dq.results_column_list() ~ ")\nselect " ~ (names | join(", ")) ~ "\nfrom (select unnest(from_json(" ~ dataplex_dq.string_literal(rows_json) ~ ", " ~ dataplex_dq.string_literal(tojson([structure])) ~ ")) as dq_row) dq_rows") }}
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
      {#- a JSON null becomes SQL NULL, as on DuckDB and BigQuery -#}
      {%- do exprs.append("nullif(dq_row -> " ~ dataplex_dq.string_literal(name) ~ ", 'null'::jsonb)") -%}
    {%- else -%}
      {%- do exprs.append("cast(dq_row ->> " ~ dataplex_dq.string_literal(name) ~ " as " ~ dataplex_dq.results_type(t) ~ ")") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ " (" ~ dataplex_dq.results_column_list() ~ ")\nselect " ~ (exprs | join(",\n  ")) ~ "\nfrom jsonb_array_elements(cast(" ~ dataplex_dq.string_literal(rows_json) ~ " as jsonb)) as dq_row") }}
{% endmacro %}

{#- BigQuery: the JSON array as a string literal, one row per element (JSON_QUERY_ARRAY), each column
    extracted with its type: scalars by JSON_VALUE + CAST, JSON columns by PARSE_JSON(JSON_QUERY),
    STRUCTs field by field, ARRAYs of STRUCT by a correlated ARRAY(SELECT AS STRUCT ...) in order. -#}
{% macro bigquery__insert_results_json_sql(relation, rows_json) %}
  {%- set names = [] -%}
  {%- set exprs = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do names.append(name) -%}
    {%- do exprs.append(dataplex_dq.bigquery_json_extract('dq_row', '$.' ~ name, t, 0) ~ " as " ~ name) -%}
  {%- endfor -%}
  {{ return("insert into " ~ relation ~ " (" ~ (names | join(", ")) ~ ")\nselect\n  " ~ (exprs | join(",\n  ")) ~ "\nfrom unnest(json_query_array(" ~ dataplex_dq.string_literal(rows_json) ~ ")) as dq_row") }}
{% endmacro %}

{#- BigQuery expression reading JSON path `path` of the JSON text `src` as results type `t`. -#}
{% macro bigquery_json_extract(src, path, t, depth) %}
  {%- set p = dataplex_dq.string_literal(path) -%}
  {%- if t is mapping and 'struct' in t -%}
    {%- set fields = [] -%}
    {%- for name, sub in t.struct -%}
      {%- do fields.append(dataplex_dq.bigquery_json_extract(src, path ~ '.' ~ name, sub, depth) ~ " as " ~ name) -%}
    {%- endfor -%}
    {{ return("if(" ~ dataplex_dq.bigquery_json_query(src, p) ~ " is null, null, struct(" ~ (fields | join(", ")) ~ "))") }}
  {%- elif t is mapping -%}
    {%- set e = 'dq_e' ~ depth -%}
    {%- set o = 'dq_o' ~ depth -%}
    {%- set inner = t.array -%}
    {%- if inner is mapping and 'struct' in inner -%}
      {%- set fields = [] -%}
      {%- for name, sub in inner.struct -%}
        {%- do fields.append(dataplex_dq.bigquery_json_extract(e, '$.' ~ name, sub, depth + 1) ~ " as " ~ name) -%}
      {%- endfor -%}
      {%- set item = "select as struct " ~ (fields | join(", ")) -%}
    {%- else -%}
      {%- set item = "select " ~ dataplex_dq.bigquery_json_extract(e, '$', inner, depth + 1) -%}
    {%- endif -%}
    {{ return("array(" ~ item ~ " from unnest(json_query_array(" ~ src ~ ", " ~ p ~ ")) as " ~ e ~ " with offset as " ~ o ~ " order by " ~ o ~ ")") }}
  {%- elif t == 'json' -%}
    {{ return("parse_json(" ~ dataplex_dq.bigquery_json_query(src, p) ~ ")") }}
  {%- elif t == 'string' -%}
    {{ return("json_value(" ~ src ~ ", " ~ p ~ ")") }}
  {%- endif -%}
  {{ return("cast(json_value(" ~ src ~ ", " ~ p ~ ") as " ~ dataplex_dq.bigquery__results_type(t) ~ ")") }}
{% endmacro %}

{#- JSON_QUERY with a JSON null read as SQL NULL. BigQuery's JSON_QUERY on a STRING already returns
    SQL NULL there; the NULLIF keeps it so where an implementation returns the text 'null'. -#}
{% macro bigquery_json_query(src, quoted_path) %}
  {{ return("nullif(json_query(" ~ src ~ ", " ~ quoted_path ~ "), 'null')") }}
{% endmacro %}

{#- The rows of one dbt invocation (`dataplex-dq report --from-results-table`). -#}
{% macro results_of_invocation_sql(relation, invocation_id) %}
  {{ return("select * from " ~ relation ~ " where dbt_invocation_id = " ~ dataplex_dq.string_literal(invocation_id)) }}
{% endmacro %}

{#- The invocation of the most recent job in the results table (`--latest`). -#}
{% macro latest_invocation_sql(relation) %}
  {{ return("select dbt_invocation_id from " ~ relation ~ " where dbt_invocation_id is not null group by dbt_invocation_id order by max(job_start_time) desc, dbt_invocation_id desc limit 1") }}
{% endmacro %}

{#- The notification outcome each of some jobs recorded (`dataplex-dq report` sends a job's notification
    once; job_notification_result as JSON text). -#}
{% macro notification_results_sql(relation, job_ids) %}
  {%- set ids = [] -%}
  {%- for j in job_ids -%}{%- do ids.append(dataplex_dq.string_literal(j)) -%}{%- endfor -%}
  {{ return("select data_quality_job_id, " ~ dataplex_dq.json_text('job_notification_result') ~ " as job_notification_result from " ~ relation
            ~ " where data_quality_job_id in (" ~ (ids | join(', ')) ~ ") and job_notification_result is not null") }}
{% endmacro %}

{#- Per job of one invocation, its column scores and its column-and-dimension scores (dimension NULL for
    the column's own), over the evaluated rules: the same counts and score as the result models
    dq_column_scores / dq_column_dimension_scores (rule_count_columns, group_score_columns), read by
    `dataplex-dq report` for the DataQualityResult protos. -#}
{% macro column_scores_sql(relation, invocation_id) %}
  {%- set status = dataplex_dq.effective_rule_status() -%}
  {%- set where = "dbt_invocation_id = " ~ dataplex_dq.string_literal(invocation_id) ~ " and rule_column is not null and " ~ status ~ " in ('PASSED', 'FAILED')" -%}
  {%- set sql -%}
select dq_c.data_quality_job_id, dq_c.column_name, dq_c.rule_dimension, dq_c.rules_evaluated, dq_c.rules_passed,
    {{ dataplex_dq.group_score_columns('dq_c') }}
from (
    select data_quality_job_id, rule_column as column_name, cast(null as {{ dbt.type_string() }}) as rule_dimension,
        {{ dataplex_dq.rule_count_columns(status) }}
    from {{ relation }}
    where {{ where }}
    group by data_quality_job_id, rule_column
    union all
    select data_quality_job_id, rule_column as column_name, rule_dimension,
        {{ dataplex_dq.rule_count_columns(status) }}
    from {{ relation }}
    where {{ where }} and rule_dimension is not null
    group by data_quality_job_id, rule_column, rule_dimension
) as dq_c
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- A copy of some jobs' rows into another results table (post_scan_actions.bigquery_export): created
    when missing, refused when it exists without the results columns (copy_results_check_columns), the
    jobs' rows there replaced under the table's lock (lock_results_table: two copies of one job at once
    leave each rule once). `pause` (seconds, default 0) is a test hook only: the race test of
    integration_tests/tests/test_export_safety.py waits that long between the DELETE and the INSERT. -#}
{% macro copy_results(source, target, job_ids, pause=0) %}
  {%- if not job_ids -%}{{ return(0) }}{%- endif -%}
  {%- if not dataplex_dq.ensure_results_table(target) -%}
    {%- do dataplex_dq.copy_results_check_columns(target) -%}
  {%- endif -%}
  {%- set ids = [] -%}
  {%- for j in job_ids -%}{%- do ids.append(dataplex_dq.string_literal(j)) -%}{%- endfor -%}
  {%- do dataplex_dq.hook_begin() -%}
  {%- do dataplex_dq.lock_results_table(target) -%}
  {%- do run_query(dataplex_dq.delete_results_sql(target, job_ids)) -%}
  {%- if pause | float > 0 -%}{%- do dataplex_dq.copy_results_test_pause(pause | float) -%}{%- endif -%}
  {%- do run_query("insert into " ~ target ~ " (" ~ dataplex_dq.results_column_list() ~ ")\nselect " ~ dataplex_dq.results_column_list() ~ " from " ~ source ~ " where data_quality_job_id in (" ~ (ids | join(', ')) ~ ")") -%}
  {%- do dataplex_dq.hook_commit() -%}
  {{ return(job_ids | length) }}
{% endmacro %}

{#- An existing target of copy_results lacking some of the results columns (another version's table, or
    one made by hand) is refused, on one line naming the table and the columns, before any row is deleted;
    columns beyond ours do not matter (every INSERT names its columns). -#}
{% macro copy_results_check_columns(relation) %}
  {%- set existing = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
  {%- set missing = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- if name not in existing -%}{%- do missing.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {%- if missing -%}
    {{ exceptions.raise_compiler_error("dataplex_dq: the results table " ~ relation ~ " does not have the expected columns: missing column(s) "
        ~ (missing | join(', ')) ~ ". It was made by another version of dataplex_dq or by hand: add the missing columns (new ones go at the end), or drop the table and let `dataplex-dq report` create it.") }}
  {%- endif -%}
{% endmacro %}

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

{#- Record a job's notification outcome (JSON text) in its rows of a results table. -#}
{% macro record_notification(relation, job_id, result_json) %}
  {%- do dataplex_dq.hook_begin() -%}
  {%- do run_query(dataplex_dq.update_results_sql(relation, "job_notification_result = " ~ dataplex_dq.hook_json_text(dataplex_dq.string_literal(result_json)),
                                                   "data_quality_job_id = " ~ dataplex_dq.string_literal(job_id))) -%}
  {%- do dataplex_dq.hook_commit() -%}
  {{ return('') }}
{% endmacro %}

{#- UPDATE `relation` SET `set_sql` for the rows matching `where_sql` (both over the table's own columns). -#}
{% macro update_results_sql(relation, set_sql, where_sql) %}
  {{ return(adapter.dispatch('update_results_sql', 'dataplex_dq')(relation, set_sql, where_sql)) }}
{% endmacro %}
{% macro default__update_results_sql(relation, set_sql, where_sql) %}
  {{ return("update " ~ relation ~ " set " ~ set_sql ~ " where " ~ where_sql) }}
{% endmacro %}
{#- BigQuery: the MERGE form (as delete_results_sql), one DML statement the test suite's emulator also runs;
    the source has no column but dq_one, so the condition's names are the target's. -#}
{% macro bigquery__update_results_sql(relation, set_sql, where_sql) %}
  {{ return("merge into " ~ relation ~ " as dq_target\nusing (select 1 as dq_one) as dq_source\non " ~ where_sql ~ "\nwhen matched then update set " ~ set_sql) }}
{% endmacro %}
