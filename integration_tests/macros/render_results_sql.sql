{#- For the SQL tests (tests/test_bigquery_sql.py, tests/test_results_table.py, tests/test_export_safety.py),
    through tests/dbt_harness.py's render_results_sql:
      dbt run-operation render_results_sql --args '{identifier: ..., rows_json: ...}'
    logs, as one JSON object, the statements the post-hook runs against the results table on the
    current target (CREATE TABLE, the delete of a job's rows, the INSERT of rows given as JSON),
    rendered by the package's macros without running them. With `create: true` it also runs
    dataplex_dq.ensure_results_table on that relation (the post-hook's "create if missing"). -#}
{% macro render_results_sql(identifier, rows_json='[]', job_ids=['job-1'], create=false, schema=none, database=none) %}
  {%- set relation = api.Relation.create(
      database=database if database is not none else target.database,
      schema=schema if schema is not none else target.schema,
      identifier=identifier) -%}
  {%- set out = {
      'relation': relation | string,
      'create': dataplex_dq.create_results_table_sql(relation),
      'delete': dataplex_dq.delete_results_sql(relation, job_ids),
      'insert': dataplex_dq.insert_results_json_sql(relation, rows_json),
  } -%}
  {%- if create -%}
    {%- do out.update({'created': dataplex_dq.ensure_results_table(relation)}) -%}
  {%- endif -%}
  {{ log('DATAPLEX_DQ_RENDERED ' ~ tojson(out), info=True) }}
{% endmacro %}
