{#- The FROM item the profile reads: the relation, or `sampling_percent` of its rows. DuckDB Bernoulli with a
    fixed seed; PostgreSQL TABLESAMPLE BERNOULLI ... REPEATABLE on a table; BigQuery TABLESAMPLE SYSTEM on a
    table (blocks: what is billed is what is sampled); a view is filtered row by row with random(). -#}
{% macro profile_sample_from(relation, sampling_percent, is_table) %}
  {%- if not sampling_percent or sampling_percent >= 100 -%}{{ return(relation ~ "") }}{%- endif -%}
  {#- a whole percent as an integer literal (50, not 50.0), as a user writes it -#}
  {%- set pct = (sampling_percent | int) if sampling_percent == (sampling_percent | int) else sampling_percent -%}
  {{ return(adapter.dispatch('profile_sample_from', 'dataplex_dq')(relation, pct, is_table)) }}
{% endmacro %}

{% macro default__profile_sample_from(relation, sampling_percent, is_table) -%}
  {%- if is_table -%}{{- return(relation ~ " tablesample bernoulli (" ~ sampling_percent ~ ") repeatable (42)") -}}{%- endif -%}
  {{- return("(select * from " ~ relation ~ " where random() < " ~ (sampling_percent / 100.0) ~ ") dq_sampled") -}}
{%- endmacro %}

{% macro duckdb__profile_sample_from(relation, sampling_percent, is_table) -%}
  {{- return("(select * from " ~ relation ~ " using sample " ~ sampling_percent ~ " percent (bernoulli, 42)) dq_sampled") -}}
{%- endmacro %}

{% macro bigquery__profile_sample_from(relation, sampling_percent, is_table) -%}
  {%- if is_table -%}{{- return(relation ~ " tablesample system (" ~ sampling_percent ~ " percent)") -}}{%- endif -%}
  {{- return("(select * from " ~ relation ~ " where rand() < " ~ (sampling_percent / 100.0) ~ ") dq_sampled") -}}
{%- endmacro %}
