{#- Select the rows of `from_sql` (a relation, or dbt's `where` subquery with alias) that satisfy
    `row_filter`, then sample `sampling_percent` of them (docs/SEMANTICS.md §4: filter first, then sample).

    Where the warehouse can sample a base table (a seed, snapshot, source, or a model materialized as
    table or incremental, read without dbt's `where` subquery), its own sampler is used:
      DuckDB      USING SAMPLE p PERCENT (bernoulli, 42), after the filter;
      PostgreSQL  TABLESAMPLE BERNOULLI (p) REPEATABLE (42) on the table, then the filter;
      BigQuery    TABLESAMPLE SYSTEM (p PERCENT) on the table, then the filter (Dataplex's own
                  method: blocks of rows, so a small table is sampled whole or not at all).
    TABLESAMPLE belongs to the table in FROM, so it runs before WHERE there. For Bernoulli sampling
    (each row kept independently with probability p) and for block sampling alike, whether a row is
    kept does not depend on the filter, so "sample, then filter" selects the same rows as "filter,
    then sample". Views and dbt `where` subqueries cannot be TABLESAMPLEd: there each filtered row is
    kept with probability p (random() / rand(); DuckDB keeps its seeded sample). -#}
{% macro scope_select(from_sql, row_filter, sampling_percent) %}
  {#- Dataplex: sampling is not applied when sampling_percent is unset, 0 or 100. -#}
  {%- set sampling = sampling_percent if sampling_percent and sampling_percent < 100 else none -%}
  {{ return(adapter.dispatch('scope_select', 'dataplex_dq')(from_sql, row_filter, sampling)) }}
{% endmacro %}

{% macro default__scope_select(from_sql, row_filter, sampling_percent) -%}
  {%- set sql = "select * from " ~ from_sql ~ (" where (" ~ row_filter ~ ")" if row_filter else "") -%}
  {%- if sampling_percent -%}
    {%- set sql = "select * from (" ~ sql ~ ") dq_filtered where random() < " ~ (sampling_percent / 100.0) -%}
  {%- endif -%}
  {{- return(sql) -}}
{%- endmacro %}

{% macro duckdb__scope_select(from_sql, row_filter, sampling_percent) -%}
  {%- set sql = "select * from " ~ from_sql ~ (" where (" ~ row_filter ~ ")" if row_filter else "") -%}
  {%- if sampling_percent -%}
    {#- Bernoulli sampling after the filter, with a fixed seed so one run is reproducible. -#}
    {%- set sql = sql ~ " using sample " ~ sampling_percent ~ " percent (bernoulli, 42)" -%}
  {%- endif -%}
  {{- return(sql) -}}
{%- endmacro %}

{% macro postgres__scope_select(from_sql, row_filter, sampling_percent) -%}
  {%- set where = (" where (" ~ row_filter ~ ")" if row_filter else "") -%}
  {%- if sampling_percent and dataplex_dq.samples_base_table(from_sql) -%}
    {{- return("select * from " ~ from_sql ~ " tablesample bernoulli (" ~ sampling_percent ~ ") repeatable (42)" ~ where) -}}
  {%- endif -%}
  {{- return(dataplex_dq.default__scope_select(from_sql, row_filter, sampling_percent)) -}}
{%- endmacro %}

{% macro bigquery__scope_select(from_sql, row_filter, sampling_percent) -%}
  {%- set where = (" where (" ~ row_filter ~ ")" if row_filter else "") -%}
  {%- if sampling_percent and dataplex_dq.samples_base_table(from_sql) -%}
    {{- return("select * from " ~ from_sql ~ " tablesample system (" ~ sampling_percent ~ " percent)" ~ where) -}}
  {%- endif -%}
  {%- set sql = "select * from " ~ from_sql ~ where -%}
  {%- if sampling_percent -%}
    {%- set sql = "select * from (" ~ sql ~ ") dq_filtered where rand() < " ~ (sampling_percent / 100.0) -%}
  {%- endif -%}
  {{- return(sql) -}}
{%- endmacro %}
