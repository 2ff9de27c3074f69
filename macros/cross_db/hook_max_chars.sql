{#- BigQuery's bound (1,024K characters) with room for the INSERT's own text; PostgreSQL binds a long
    VALUES list row by row, so it keeps the same bound. DuckDB reads the tests' facts from one JSON
    literal whatever its length: only the number of relations per statement bounds its batches (its
    binder pays more than linearly for a longer UNION ALL). -#}
{% macro default__hook_max_chars() %}{{ return(400000) }}{% endmacro %}

{% macro duckdb__hook_max_chars() %}{{ return(100000000) }}{% endmacro %}
