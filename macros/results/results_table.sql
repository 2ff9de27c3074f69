{#- The results table (docs/SEMANTICS.md §9): one row per rule per job, the columns of Dataplex's BigQuery export in
    their order, then our extension columns. One schema, rendered per warehouse:
      STRUCT / JSON / ARRAY where the warehouse has them (DuckDB, BigQuery), jsonb otherwise. -#}

{% macro results_columns() %}
  {#- one JSON text, not a Jinja list literal: dbt compiles a string constant far faster (rule_types) -#}
  {{ return(fromjson('[
      ["data_quality_scan", {"struct": [["resource_name", "string"], ["project_id", "string"], ["location", "string"], ["data_scan_id", "string"], ["display_name", "string"]]}],
      ["data_source", {"struct": [["resource_name", "string"], ["dataplex_entity_project_id", "string"], ["dataplex_entity_project_number", "int64"], ["dataplex_lake_id", "string"], ["dataplex_zone_id", "string"], ["dataplex_entity_id", "string"], ["table_project_id", "string"], ["table_project_number", "int64"], ["dataset_id", "string"], ["table_id", "string"]]}],
      ["data_quality_job_id", "string"],
      ["data_quality_job_configuration", "json"],
      ["job_labels", "json"],
      ["job_start_time", "timestamp"],
      ["job_end_time", "timestamp"],
      ["job_quality_result", {"struct": [["passed", "bool"], ["score", "float64"], ["incremental_start", "string"], ["incremental_end", "string"]]}],
      ["job_dimension_result", "json"],
      ["job_rows_scanned", "int64"],
      ["rule_name", "string"],
      ["rule_description", "string"],
      ["rule_type", "string"],
      ["rule_evaluation_type", "string"],
      ["rule_column", "string"],
      ["rule_dimension", "string"],
      ["rule_threshold_percent", "float64"],
      ["rule_parameters", "json"],
      ["rule_passed", "bool"],
      ["rule_rows_evaluated", "int64"],
      ["rule_rows_passed", "int64"],
      ["rule_rows_passed_percent", "float64"],
      ["rule_rows_null", "int64"],
      ["rule_failed_records_query", "string"],
      ["created_on", "timestamp"],
      ["last_updated", "timestamp"],
      ["rule_assertion_row_count", "int64"],
      ["debug_queries", {"array": {"struct": [["description", "string"], ["sql_statement", "string"], ["debug_query_results", {"array": {"struct": [["name", "string"], ["type", "string"], ["value", "string"]]}}]]}}],
      ["rule_suspended", "bool"],
      ["rule_attributes", "json"],
      ["rule_status", "string"],
      ["rule_message", "string"],
      ["rule_statistic_value", "float64"],
      ["job_row_weighted_score", "float64"],
      ["dbt_invocation_id", "string"],
      ["dbt_test_unique_id", "string"],
      ["dbt_node_unique_id", "string"],
      ["job_notification_result", "json"],
      ["rule_statistic_value_text", "string"],
      ["dbt_target", "string"],
      ["job_declared_rules", "string"],
      ["job_declared_rule_count", "int64"],
      ["job_run_rule_count", "int64"],
      ["rule_execution_seconds", "float64"],
      ["rule_bytes_processed", "int64"],
      ["rule_bytes_billed", "int64"],
      ["rule_slot_ms", "int64"],
      ["job_execution_seconds", "float64"],
      ["job_bytes_processed", "int64"],
      ["job_bytes_billed", "int64"],
      ["job_slot_ms", "int64"],
      ["job_query_count", "int64"],
      ["dbt_test_cost", "json"]
  ]')) }}
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

{#- The results table's column names, comma-separated: every INSERT names its columns, so a table
    whose columns are in another order still gets each value in its column. -#}
{% macro results_column_list() %}
  {%- set names = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}{%- do names.append(name) -%}{%- endfor -%}
  {{ return(names | join(", ")) }}
{% endmacro %}

{#- The JSON structure DuckDB's from_json reads a results column of type `t` with (debug_queries_value_sql). -#}
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

{#- The rows of one dbt invocation, read by `dataplex-dq report` (run/recorded.py): every column of each
    rule's row, except that the job's own nested columns (the same in every row of a job: its declared
    rules, data source, scan, configuration, labels, scores, notification) are read from one row per job
    (its least rule_name), marked dq_job_first, and are NULL on its other rows: a job of 1,000 rules no
    longer reads its list of 1,000 declared names 1,000 times. -#}
{% macro results_of_invocation_sql(relation, invocation_id) %}
  {%- set once = ['data_quality_scan', 'data_source', 'data_quality_job_configuration', 'job_labels', 'job_quality_result',
                  'job_dimension_result', 'job_notification_result', 'job_declared_rules'] -%}
  {%- set where = "dbt_invocation_id = " ~ dataplex_dq.string_literal(invocation_id) -%}
  {%- set cols = [] -%}
  {%- for name, t in dataplex_dq.results_columns() -%}
    {%- do cols.append(("case when dq_f.dq_rule is not null then dq_r." ~ name ~ " end as " ~ name) if name in once else "dq_r." ~ name) -%}
  {%- endfor -%}
  {{ return("select " ~ (cols | join(", ")) ~ ", dq_f.dq_rule is not null as dq_job_first from " ~ relation ~ " as dq_r left join (select data_quality_job_id as dq_job, min(rule_name) as dq_rule from " ~ relation ~ " where " ~ where ~ " group by data_quality_job_id) as dq_f on dq_r.data_quality_job_id = dq_f.dq_job and dq_r.rule_name = dq_f.dq_rule where dq_r." ~ where) }}
{% endmacro %}

{#- The invocation of the most recent job in the results table (`--latest`). -#}
{% macro latest_invocation_sql(relation) %}
  {{ return("select dbt_invocation_id from " ~ relation ~ " where dbt_invocation_id is not null group by dbt_invocation_id order by max(job_start_time) desc, dbt_invocation_id desc limit 1") }}
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

{#- Record a job's notification outcome (JSON text) in its rows of a results table. -#}
{% macro record_notification(relation, job_id, result_json) %}
  {%- do dataplex_dq.hook_begin() -%}
  {%- do run_query(dataplex_dq.update_results_sql(relation, "job_notification_result = " ~ dataplex_dq.hook_json_text(dataplex_dq.string_literal(result_json)),
                                                   "data_quality_job_id = " ~ dataplex_dq.string_literal(job_id))) -%}
  {%- do dataplex_dq.hook_commit() -%}
  {{ return('') }}
{% endmacro %}

