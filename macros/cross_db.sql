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
  {#- GoogleSQL escapes: backslash first, then the quote and the characters a quoted literal cannot hold. -#}
  {%- set s = (value | string).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") -%}
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
  {#- No cast for text columns: the literal already is text, and a cast to the column's declared
      type could truncate it (dbt reports PostgreSQL's unbounded varchar as character varying(256)). -#}
  {%- if data_type is none or dataplex_dq.is_text_type(data_type) -%}{{- return(dataplex_dq.string_literal(value)) -}}{%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ data_type ~ ")") -}}
{%- endmacro %}

{#- Type families of a warehouse type name as dbt's get_columns_in_relation reports it: DuckDB
    (INTEGER, DECIMAL(10,2), VARCHAR, TIMESTAMP WITH TIME ZONE), PostgreSQL (integer, numeric(10,2),
    double precision, character varying(256), timestamp without time zone) and BigQuery (INT64,
    NUMERIC, FLOAT64, STRING, TIMESTAMP, DATETIME). -#}
{% macro is_text_type(data_type) -%}
  {{- return(modules.re.match('^(varchar|character|char|nchar|nvarchar|bpchar|text|string|str)\\b', (data_type | string | trim | lower)) is not none) -}}
{%- endmacro %}
{% macro is_numeric_type(data_type) -%}
  {{- return(modules.re.match('^(tinyint|smallint|integer|int|bigint|hugeint|ubigint|uinteger|usmallint|utinyint|uhugeint|int2|int4|int8|int64|long|short|signed|decimal|numeric|double|float|real|bignumeric|float64|float4|float8|number)\\b', (data_type | string | trim | lower)) is not none) -}}
{%- endmacro %}

{#- Numeric value of an expression as a double, NULL when it is not numeric (statistic_value).
    `data_type`, when known, decides at compile time: a numeric type is cast, any other type gives
    NULL (BigQuery refuses even SAFE_CAST from DATE to FLOAT64 when it compiles the query). -#}
{% macro safe_cast_double(expr, data_type=none) %}
  {%- if data_type is not none -%}
    {{ return("cast(" ~ expr ~ " as " ~ dataplex_dq.type_double() ~ ")" if dataplex_dq.is_numeric_type(data_type) else "cast(null as " ~ dataplex_dq.type_double() ~ ")") }}
  {%- endif -%}
  {{ return(adapter.dispatch('safe_cast_double', 'dataplex_dq')(expr)) }}
{% endmacro %}
{% macro default__safe_cast_double(expr) -%}{{- return("try_cast(" ~ expr ~ " as " ~ dataplex_dq.type_double() ~ ")") -}}{%- endmacro %}
{% macro bigquery__safe_cast_double(expr) -%}{{- return("safe_cast(" ~ expr ~ " as float64)") -}}{%- endmacro %}
{% macro postgres__safe_cast_double(expr) -%}
  {#- PostgreSQL has no TRY_CAST: cast only text that looks like a number. -#}
  {%- set t = "cast(" ~ expr ~ " as text)" -%}
  {{- return("case when " ~ t ~ " ~ '^\\s*[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?\\s*$' then cast(" ~ t ~ " as double precision) end") -}}
{%- endmacro %}

{#- The current time as a UTC timestamp without time zone. -#}
{% macro current_timestamp_utc() %}{{ return(adapter.dispatch('current_timestamp_utc', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__current_timestamp_utc() -%}{{- return("cast(current_timestamp as " ~ dbt.type_timestamp() ~ ")") -}}{%- endmacro %}
{% macro duckdb__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}
{% macro postgres__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}
{% macro bigquery__current_timestamp_utc() -%}{{- return("current_timestamp()") -}}{%- endmacro %}

{#- Select the rows of `from_sql` (a relation, or dbt's `where` subquery with alias) that satisfy
    `row_filter`, then sample `sampling_percent` of them (SPEC 4: filter first, then sample).

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

{#- Whether `from_sql` is a base table that TABLESAMPLE can read: not dbt's `where` subquery, and the
    data source of the test being compiled is a seed, snapshot, source, or a table/incremental model. -#}
{% macro samples_base_table(from_sql) %}
  {%- if (from_sql | string | trim).startswith('(') -%}{{ return(false) }}{%- endif -%}
  {%- set test_node = dataplex_dq.current_test_node() -%}
  {%- if test_node is not mapping and test_node.get is not defined -%}{{ return(false) }}{%- endif -%}
  {%- set source_node = dataplex_dq.data_source_node(test_node) -%}
  {%- if source_node is none -%}{{ return(false) }}{%- endif -%}
  {%- if source_node.resource_type in ['seed', 'snapshot', 'source'] -%}{{ return(true) }}{%- endif -%}
  {{ return(source_node.resource_type == 'model' and (source_node.get('config') or {}).get('materialized') in ['table', 'incremental']) }}
{% endmacro %}
