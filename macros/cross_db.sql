{#- Cross-database helpers. Every piece that differs between warehouses is dispatched here:
    dataplex_dq.<name>() -> adapter.dispatch('<name>', 'dataplex_dq') -> default__ / duckdb__ /
    bigquery__ / postgres__. -#}

{#- A 64-bit float type (dbt.type_float() is a 32-bit REAL on DuckDB). -#}
{% macro type_double() %}{{ return(adapter.dispatch('type_double', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__type_double() %}double precision{% endmacro %}
{% macro duckdb__type_double() %}double{% endmacro %}
{% macro bigquery__type_double() %}float64{% endmacro %}

{#- A SQL string literal for any text coming from YAML. -#}
{% macro string_literal(value) %}{{ return(adapter.dispatch('string_literal', 'dataplex_dq')(value)) }}{% endmacro %}
{% macro default__string_literal(value) -%}
  {{- return("'" ~ (value | string).replace("'", "''") ~ "'") -}}
{%- endmacro %}
{% macro postgres__string_literal(value) -%}
  {#- E'' strings would interpret backslashes; standard strings keep them literal. -#}
  {{- return("'" ~ (value | string).replace("'", "''") ~ "'") -}}
{%- endmacro %}
{% macro bigquery__string_literal(value) -%}
  {%- set s = (value | string).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r") -%}
  {{- return("'" ~ s ~ "'") -}}
{%- endmacro %}

{#- Partial-match regular expression (GoogleSQL REGEXP_CONTAINS semantics, re2 syntax). -#}
{% macro regex_contains(text_expr, pattern) %}{{ return(adapter.dispatch('regex_contains', 'dataplex_dq')(text_expr, pattern)) }}{% endmacro %}
{% macro default__regex_contains(text_expr, pattern) -%}
  {{- return("regexp_matches(" ~ text_expr ~ ", " ~ dataplex_dq.string_literal(pattern) ~ ")") -}}
{%- endmacro %}
{% macro bigquery__regex_contains(text_expr, pattern) -%}
  {{- return("regexp_contains(" ~ text_expr ~ ", " ~ dataplex_dq.string_literal(pattern) ~ ")") -}}
{%- endmacro %}
{% macro postgres__regex_contains(text_expr, pattern) -%}
  {{- return("(" ~ text_expr ~ " ~ " ~ dataplex_dq.string_literal(pattern) ~ ")") -}}
{%- endmacro %}

{#- Read a column as text. -#}
{% macro cast_text(expr) %}{{ return(adapter.dispatch('cast_text', 'dataplex_dq')(expr)) }}{% endmacro %}
{% macro default__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as " ~ dbt.type_string() ~ ")") -}}{%- endmacro %}
{% macro bigquery__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as string)") -}}{%- endmacro %}
{% macro postgres__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as text)") -}}{%- endmacro %}

{#- A YAML bound converted to the column's type. `data_type` is the warehouse type of the column, or
    none when unknown (then the literal is left to the warehouse's own literal coercion). -#}
{% macro typed_literal(value, data_type) %}{{ return(adapter.dispatch('typed_literal', 'dataplex_dq')(value, data_type)) }}{% endmacro %}
{% macro default__typed_literal(value, data_type) -%}
  {%- if data_type is none -%}{{- return(dataplex_dq.string_literal(value)) -}}{%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ data_type ~ ")") -}}
{%- endmacro %}

{#- Numeric value of an expression as a double, NULL when it is not numeric (statistic_value). -#}
{% macro safe_cast_double(expr) %}{{ return(adapter.dispatch('safe_cast_double', 'dataplex_dq')(expr)) }}{% endmacro %}
{% macro default__safe_cast_double(expr) -%}{{- return("try_cast(" ~ expr ~ " as " ~ dataplex_dq.type_double() ~ ")") -}}{%- endmacro %}
{% macro bigquery__safe_cast_double(expr) -%}{{- return("safe_cast(" ~ expr ~ " as float64)") -}}{%- endmacro %}
{% macro postgres__safe_cast_double(expr) -%}{{- return("cast(" ~ expr ~ " as double precision)") -}}{%- endmacro %}

{#- The current time as a UTC timestamp without time zone. -#}
{% macro current_timestamp_utc() %}{{ return(adapter.dispatch('current_timestamp_utc', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__current_timestamp_utc() -%}{{- return("cast(current_timestamp as " ~ dbt.type_timestamp() ~ ")") -}}{%- endmacro %}
{% macro duckdb__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}
{% macro postgres__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}
{% macro bigquery__current_timestamp_utc() -%}{{- return("current_timestamp()") -}}{%- endmacro %}

{#- Select the rows of `from_sql` (a relation or a parenthesized subquery with alias) that satisfy
    `row_filter`, then sample `sampling_percent` of them. Filter first, then sample (SPEC 4). -#}
{% macro scope_select(from_sql, row_filter, sampling_percent) %}{{ return(adapter.dispatch('scope_select', 'dataplex_dq')(from_sql, row_filter, sampling_percent)) }}{% endmacro %}
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
{% macro bigquery__scope_select(from_sql, row_filter, sampling_percent) -%}
  {%- set sql = "select * from " ~ from_sql ~ (" where (" ~ row_filter ~ ")" if row_filter else "") -%}
  {%- if sampling_percent -%}
    {%- set sql = "select * from (" ~ sql ~ ") dq_filtered where rand() < " ~ (sampling_percent / 100.0) -%}
  {%- endif -%}
  {{- return(sql) -}}
{%- endmacro %}
