{#- The latest result of every rule of every data source (docs/SEMANTICS.md §10): per (data_source_key, dbt_target,
    rule_name), the row(s) of the job that last ran it, in dq_rule_results' columns. The "latest" models
    (dq_rule_results_latest, dq_latest_scores) read this table alone, so their cost does not grow with the history.

    Built from the whole history when it is first built (an existing results table upgrades in place) and with
    `dbt build --select dataplex_dq_latest_results+ --full-refresh` (after rows were written into the results table
    by hand: it is derived data, a rebuild loses nothing; `+`: PostgreSQL drops the views over it); after that the results table's one writer keeps it, in the same transaction as the rows it writes
    (hook_latest_step, macros/results/latest_results.sql). So an incremental run adds nothing (an empty, typed body). -#}
{{ config(
    materialized='incremental',
    on_schema_change='append_new_columns',
) }}

{% if is_incremental() %}
{{ dataplex_dq.rule_results_select(ref('dataplex_dq_results'), 'false') }}
{% else %}
{{ dataplex_dq.latest_rule_results_sql(dataplex_dq.rule_results_select(ref('dataplex_dq_results'))) }}
{% endif %}
