{#- The `k` most frequent non-NULL values of `column_sql` as JSON text `[{"value": "...", "count": n}, ...]`,
    an expression of the profile's aggregate select over `cte` (macros/profile/profile.sql). DuckDB and
    PostgreSQL: a scalar subquery grouping the materialized CTE (the table is read once, into the CTE);
    BigQuery: approx_top_count, an aggregate of the same pass (a CTE is not materialized there, and a
    second reference would read the table again). -#}
{% macro profile_top_values(column_sql, cte, k) %}{{ return(adapter.dispatch('profile_top_values', 'dataplex_dq')(column_sql, cte, k)) }}{% endmacro %}

{% macro default__profile_top_values(column_sql, cte, k) -%}
  {{- return("(select cast(json_agg(json_build_object('value', cast(v as text), 'count', n) order by n desc, cast(v as text)) as text) from (select " ~ column_sql ~ " as v, count(*) as n from " ~ cte ~ " where " ~ column_sql ~ " is not null group by " ~ column_sql ~ " order by count(*) desc, cast(" ~ column_sql ~ " as text) limit " ~ k ~ ") dq_top)") -}}
{%- endmacro %}

{% macro duckdb__profile_top_values(column_sql, cte, k) -%}
  {{- return("(select cast(to_json(list({'value': cast(v as varchar), 'count': n} order by n desc, cast(v as varchar))) as varchar) from (select " ~ column_sql ~ " as v, count(*) as n from " ~ cte ~ " where " ~ column_sql ~ " is not null group by " ~ column_sql ~ " order by count(*) desc, cast(" ~ column_sql ~ " as varchar) limit " ~ k ~ ") dq_top)") -}}
{%- endmacro %}

{% macro bigquery__profile_top_values(column_sql, cte, k) -%}
  {{- return("to_json_string(approx_top_count(" ~ column_sql ~ ", " ~ (k + 1) ~ "))") -}}
{%- endmacro %}
