{#- Queries of the HTML report (`dataplex-dq report --html`, docs/SEMANTICS.md §15): the recent history of the data
    sources in the results table, and a bounded sample of a failing-rows query. Portable SQL except
    the STRUCT field reads (struct_field) and JSON-as-text (json_text), which are dispatched. -#}

{#- The last `last_jobs` jobs of each data source (dbt node) in `node_ids`, newest first. -#}
{% macro report_recent_jobs_sql(relation, node_ids, last_jobs) %}
  {%- set ids = [] -%}
  {%- for n in node_ids -%}{%- do ids.append(dataplex_dq.string_literal(n)) -%}{%- endfor -%}
  {%- set sql -%}
select dq_jobs.data_quality_job_id
from (
    select
        data_quality_job_id,
        row_number() over (partition by dbt_node_unique_id order by max(job_start_time) desc, data_quality_job_id desc) as dq_recency
    from {{ relation }}
    where dbt_node_unique_id in ({{ ids | join(', ') }})
    group by dbt_node_unique_id, data_quality_job_id
) as dq_jobs
where dq_jobs.dq_recency <= {{ last_jobs | int }}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- One row per job and dimension (NULL: rules without a dimension) of those recent jobs: the job's score,
    pass/fail and rows scanned, and the rule counts per status of the group. -#}
{% macro report_job_history_sql(relation, node_ids, last_jobs) %}
  {%- set sql -%}
select
    r.dbt_node_unique_id,
    r.data_quality_job_id,
    r.dbt_invocation_id,
    max(r.job_start_time) as job_start_time,
    max({{ dataplex_dq.struct_field('r.job_quality_result', 'score', dataplex_dq.type_double()) }}) as job_score,
    {#- max over a boolean is not portable (PostgreSQL has bool_or); every row of a job carries the same value;
        NULL when the job was not evaluated (no rule PASSED or FAILED: docs/SEMANTICS.md §7), never a fail -#}
    {%- set job_passed = dataplex_dq.struct_field('r.job_quality_result', 'passed', dbt.type_boolean()) %}
    max(case when {{ job_passed }} then 1 when not {{ job_passed }} then 0 end) as job_passed,
    max(r.job_rows_scanned) as job_rows_scanned,
    r.rule_dimension,
    {{ dataplex_dq.rule_count_columns(dataplex_dq.effective_rule_status('r')) }}
from {{ relation }} as r
where r.data_quality_job_id in ({{ dataplex_dq.report_recent_jobs_sql(relation, node_ids, last_jobs) }})
group by r.dbt_node_unique_id, r.data_quality_job_id, r.dbt_invocation_id, r.rule_dimension
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- One row per rule with rule_attributes in those recent jobs (anomaly checks and other marked rules):
    its status, statistic value, parameters (the band it was judged against) and attributes as JSON text. -#}
{% macro report_rule_history_sql(relation, node_ids, last_jobs) %}
  {%- set sql -%}
select
    r.dbt_node_unique_id,
    r.data_quality_job_id,
    r.job_start_time,
    r.rule_name,
    {{ dataplex_dq.effective_rule_status('r') }} as rule_status,
    r.rule_statistic_value,
    r.rule_rows_passed_percent,
    {{ dataplex_dq.json_text('r.rule_parameters') }} as rule_parameters,
    {{ dataplex_dq.json_text('r.rule_attributes') }} as rule_attributes
from {{ relation }} as r
where r.rule_attributes is not null
    and r.data_quality_job_id in ({{ dataplex_dq.report_recent_jobs_sql(relation, node_ids, last_jobs) }})
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- At most `max_rows` rows of a failing-rows query (the query as the rule result carries it). -#}
{% macro sample_rows_sql(query, max_rows) %}
  {{ return("select * from (\n" ~ query ~ "\n) as dq_sample\nlimit " ~ (max_rows | int)) }}
{% endmacro %}
