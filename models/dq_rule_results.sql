{#- Every rule result of every job, flattened: the history behind the other result models. -#}
{{ config(materialized='view') }}

{{ dataplex_dq.rule_results_select(ref('dataplex_dq_results')) }}
