{#- The results table (docs/SEMANTICS.md §9): one row per rule per job. `dbt build` creates it empty; the post-hook
    (`dataplex-dq report`) inserts the rows. Incremental with an always-empty body, so reruns (and
    --full-refresh, which full_refresh=false ignores) never touch existing rows; on_schema_change adds
    the columns a newer package version brings. Partitioned by day on job_start_time on BigQuery: for a
    TIMESTAMP field dbt-bigquery renders this partition_by as TIMESTAMP_TRUNC(job_start_time, DAY), the
    same daily partitioning as the DATE(job_start_time) of ensure_results_table (macros/results/), and the same
    clustering (dbt_invocation_id, data_source: one invocation's rows, one data source's history). BigQuery
    keeps a table's clustering as created: a results table created before this clusters nothing. -#}
{{ config(
    materialized='incremental',
    full_refresh=false,
    on_schema_change='append_new_columns',
    partition_by={'field': 'job_start_time', 'data_type': 'timestamp', 'granularity': 'day'} if target.type == 'bigquery' else none,
    cluster_by=['dbt_invocation_id', 'data_source'] if target.type == 'bigquery' else none
) }}

{{ dataplex_dq.results_table_sql() }}
