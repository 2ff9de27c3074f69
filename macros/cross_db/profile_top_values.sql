{#- The `k` most frequent non-NULL values of `column_sql` as JSON text `[{"value": "...", "count": n}, ...]`,
    an expression of the profile's aggregate select over `cte` (macros/profile/profile.sql). DuckDB and
    PostgreSQL: a scalar subquery grouping the materialized CTE (the table is read once, into the CTE).
    BigQuery: the same subquery; BigQuery evaluates a CTE at each reference, so the grouped columns are read
    a second time (profile_bytes_estimate counts it; approx_top_count would keep it to one pass, but the
    BigQuery emulator the suite runs on cannot run it). -#}
{% macro profile_top_values(column_sql, cte, k) %}{{ return(adapter.dispatch('profile_top_values', 'dataplex_dq')(column_sql, cte, k)) }}{% endmacro %}

{% macro default__profile_top_values(column_sql, cte, k) -%}
  {{- return("(select cast(json_agg(json_build_object('value', cast(v as text), 'count', n) order by n desc, cast(v as text)) as text) from (select " ~ column_sql ~ " as v, count(*) as n from " ~ cte ~ " where " ~ column_sql ~ " is not null group by " ~ column_sql ~ " order by count(*) desc, cast(" ~ column_sql ~ " as text) limit " ~ k ~ ") dq_top)") -}}
{%- endmacro %}

{% macro duckdb__profile_top_values(column_sql, cte, k) -%}
  {{- return("(select cast(to_json(list({'value': cast(v as varchar), 'count': n} order by n desc, cast(v as varchar))) as varchar) from (select " ~ column_sql ~ " as v, count(*) as n from " ~ cte ~ " where " ~ column_sql ~ " is not null group by " ~ column_sql ~ " order by count(*) desc, cast(" ~ column_sql ~ " as varchar) limit " ~ k ~ ") dq_top)") -}}
{%- endmacro %}

{% macro bigquery__profile_top_values(column_sql, cte, k) -%}
  {{- return("(select to_json_string(array_agg(struct(cast(v as string) as value, n as count) order by n desc, cast(v as string) limit " ~ k ~ ")) from (select " ~ column_sql ~ " as v, count(*) as n from " ~ cte ~ " where " ~ column_sql ~ " is not null group by " ~ column_sql ~ ") dq_top)") -}}
{%- endmacro %}
