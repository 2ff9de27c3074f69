{#- Cross-database helpers. Every piece that differs between warehouses is dispatched here:
    dataplex_dq.<name>() -> adapter.dispatch('<name>', 'dataplex_dq') -> default__ / duckdb__ /
    bigquery__ / postgres__. -#}

{#- A 64-bit float type (dbt.type_float() is a 32-bit REAL on DuckDB). -#}
{% macro type_double() %}{{ return(adapter.dispatch('type_double', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__type_double() %}double precision{% endmacro %}
{% macro duckdb__type_double() %}double{% endmacro %}
{% macro bigquery__type_double() %}float64{% endmacro %}

{#- A SQL string literal for any text coming from YAML: the warehouse's opening quote, the text with
    string_literal_escapes' characters replaced, a closing quote. -#}
{% macro string_literal(value) %}
  {%- set e = adapter.dispatch('string_literal_escapes', 'dataplex_dq')() -%}
  {%- set text = value | string -%}
  {#- a short text (a rule's names, values, expressions) with one str.translate: one call for every
      replacement, where the loop below costs ~50 us a text in Jinja; a long one (the export's rows
      as JSON, megabytes: macros/results/results_table.sql) one character at a time with str.replace, in
      the table's order (the same text: string_literal_escapes), since str.translate looks each character
      up in the table (~70 ns a character: 9 s for 10,000 rows) and str.replace scans for one (~1-2 ns). -#}
  {%- if text | length < 1000 -%}{{- return(e.open ~ text.translate(e.table) ~ "'") -}}{%- endif -%}
  {%- set text = namespace(s=text) -%}
  {%- for code, replacement in e.table.items() -%}
    {%- set text.s = text.s.replace('%c' | format(code), replacement) -%}
  {%- endfor -%}
  {{- return(e.open ~ text.s ~ "'") -}}
{% endmacro %}

{#- How a text becomes a string literal on this warehouse, as data: {open: the opening quote, table: the
    characters to replace, as str.translate's table (code point: replacement)}; the literal closes with
    '. Data rather than a macro per warehouse, so the places that quote many texts at once (a rule's
    metrics row, macros/metrics.sql; every value of the on-run-end hook) apply it inline: a macro call
    costs dbt a copy of the node's context, str.translate one call for all the replacements of a short
    text. Sequential replacement (string_literal, for texts of 1,000 characters and more) gives the same
    text when the backslash comes first in the table: the other replacements insert backslashes, not each
    other's characters. -#}
{% macro string_literal_escapes() %}{{ return(adapter.dispatch('string_literal_escapes', 'dataplex_dq')()) }}{% endmacro %}
{#- ' -> '' (39 = ') -#}
{% macro default__string_literal_escapes() %}{{ return({'open': "'", 'table': {39: "''"}}) }}{% endmacro %}
{#- PostgreSQL: an E'' string with backslashes doubled (92 = \), read the same whatever
    `standard_conforming_strings` is (with it off, a backslash in a plain '' string escapes the next
    character, so a value ending in a backslash could close the literal early; E'' always reads
    backslash escapes). -#}
{% macro postgres__string_literal_escapes() %}{{ return({'open': "E'", 'table': {92: "\\\\", 39: "''"}}) }}{% endmacro %}
{#- GoogleSQL escapes: backslash (92), the quote (39) and the characters a quoted literal cannot hold:
    newline (10), carriage return (13), tab (9). -#}
{% macro bigquery__string_literal_escapes() %}
  {{ return({'open': "'", 'table': {92: "\\\\", 39: "\\'", 10: "\\n", 13: "\\r", 9: "\\t"}}) }}
{% endmacro %}

{#- A column name from YAML without the quotes a user may have written ('"Mixed Case"', '`x`'); a
    doubled quote inside them is one quote. -#}
{% macro unquoted_column(name) %}
  {%- set s = name | string -%}
  {%- if s | length >= 2 and s[0] == '"' and s[-1] == '"' -%}{{ return(s[1:-1].replace('""', '"')) }}{%- endif -%}
  {%- if s | length >= 2 and s[0] == '`' and s[-1] == '`' -%}{{ return(s[1:-1]) }}{%- endif -%}
  {{ return(s) }}
{% endmacro %}

{#- A column name from YAML as a quoted identifier: its quotes (if any) removed, then quoted with
    the quote character inside escaped (adapter.quote does not escape it). -#}
{% macro quote_column(name) %}{{ return(adapter.dispatch('quote_column', 'dataplex_dq')(dataplex_dq.unquoted_column(name))) }}{% endmacro %}
{% macro default__quote_column(name) %}{{ return('"' ~ name.replace('"', '""') ~ '"') }}{% endmacro %}
{% macro bigquery__quote_column(name) %}
  {#- GoogleSQL quoted identifiers take backslash escapes, like its string literals. -#}
  {{ return('`' ~ name.replace('\\', '\\\\').replace('`', '\\`') ~ '`') }}
{% endmacro %}

{#- Partial-match regular expression (GoogleSQL REGEXP_CONTAINS semantics, re2 syntax). -#}
{% macro regex_contains(text_expr, pattern) %}{{ return(adapter.dispatch('regex_contains', 'dataplex_dq')(text_expr, pattern)) }}{% endmacro %}
{% macro default__regex_contains(text_expr, pattern) -%}
  {{- return("regexp_matches(" ~ text_expr ~ ", " ~ dataplex_dq.string_literal(pattern) ~ ")") -}}
{%- endmacro %}
{#- DuckDB: a pattern that accepts exactly a list of strings, `^(a|b|c)$` / `^(?:a|b)$` / `^a$` with
    alternatives of letters, digits, `_`, `-` and spaces only (no flags, no other character), is the IN
    list of those strings: RE2 (DuckDB's regex engine) reads `^` and `$` as the start and end of the text
    (no multi-line flag; `$` does not match before a final newline) and none of those characters is
    special, so a value matches iff it equals one alternative; NULL is NULL either way. The comparison is
    made under the binary collation, as the regex compares (a session's default_collation = 'nocase'
    would otherwise make `IN` ignore case). Measured at 10M rows: `^(ok|retry|fail)$` 0.33 s, the IN
    list 0.14 s. Any other pattern is regexp_matches as everywhere. -#}
{% macro duckdb__regex_contains(text_expr, pattern) -%}
  {%- set m = modules.re.match('^\\^(?:\\((?:\\?:)?([A-Za-z0-9_ -]+(?:\\|[A-Za-z0-9_ -]+)*)\\)|([A-Za-z0-9_ -]+))\\$\\Z', pattern | string) -%}
  {%- if m -%}
    {%- set literals = [] -%}
    {%- for v in (m.group(1) or m.group(2)).split('|') -%}{%- do literals.append(dataplex_dq.string_literal(v)) -%}{%- endfor -%}
    {{- return("(" ~ text_expr ~ " collate \"binary\") in (" ~ (literals | join(", ")) ~ ")") -}}
  {%- endif -%}
  {{- return(dataplex_dq.default__regex_contains(text_expr, pattern)) -}}
{%- endmacro %}
{% macro bigquery__regex_contains(text_expr, pattern) -%}
  {{- return("regexp_contains(" ~ text_expr ~ ", " ~ dataplex_dq.string_literal(pattern) ~ ")") -}}
{%- endmacro %}
{% macro postgres__regex_contains(text_expr, pattern) -%}
  {#- PostgreSQL's `~` is a POSIX ARE: RE2's \b / \B (word boundary) are written \y / \Y there (an ARE
      reads \b as a backspace). What an ARE cannot express at all is refused at compile time
      (regex_target_problem). -#}
  {{- return("(" ~ text_expr ~ " ~ " ~ dataplex_dq.string_literal(dataplex_dq.postgres_regex(pattern).pattern) ~ ")") -}}
{%- endmacro %}

{#- A regex that is valid RE2 but that the target's regex engine cannot compile, or none (docs/SEMANTICS.md §3):
    checked at compile time, so it never fails in the warehouse (inside a data_quality_scan it would
    error every rule of the scan). DuckDB and BigQuery run RE2 itself. -#}
{% macro regex_target_problem(pattern) %}{{ return(adapter.dispatch('regex_target_problem', 'dataplex_dq')(pattern)) }}{% endmacro %}
{% macro default__regex_target_problem(pattern) %}{{ return(none) }}{% endmacro %}
{% macro postgres__regex_target_problem(pattern) %}{{ return(dataplex_dq.postgres_regex(pattern).problem) }}{% endmacro %}

{#- An RE2 pattern for PostgreSQL's POSIX ARE: {pattern: the ARE to run, problem: none, or what RE2
    syntax PostgreSQL lacks}. Escapes and character classes are read token by token, so '\\(?P<' or
    '[(?P<]' are not taken for a named group. -#}
{% macro postgres_regex(pattern) %}
  {%- set lacks = " (valid RE2, but PostgreSQL's regular expressions, POSIX AREs, do not support it)" -%}
  {%- set out = [] -%}
  {%- set state = {'in_class': false, 'problem': none} -%}
  {%- set tokens = modules.re.finditer('(?s)\\\\x\\{|\\\\.|\\[\\^?\\]?|\\]|\\(\\?P?<(?![=!])|\\(\\?[A-Za-z-]*[:)]|.', pattern | string) -%}
  {%- for m in tokens -%}
    {%- set t = m.group(0) -%}
    {%- set problem = none -%}
    {%- if t == '\\x{' -%}
      {%- set problem = "uses a braced hex escape '\\x{...}'" ~ lacks ~ "; write the character itself" -%}
    {%- elif t in ['\\p', '\\P'] -%}
      {%- set problem = "uses a Unicode class '" ~ t ~ "{...}'" ~ lacks -%}
    {%- elif t in ['\\Q', '\\E'] -%}
      {%- set problem = "uses literal text '\\Q...\\E'" ~ lacks ~ "; escape the characters instead" -%}
    {%- elif t == '\\z' -%}
      {%- set problem = "uses '\\z' (end of text)" ~ lacks ~ "; use '$'" -%}
    {%- elif t == '\\C' -%}
      {%- set problem = "uses '\\C' (any byte)" ~ lacks -%}
    {%- elif state.in_class -%}
      {%- if t == ']' -%}{%- do state.update({'in_class': false}) -%}{%- endif -%}
    {%- elif t.startswith('[') -%}
      {%- do state.update({'in_class': true}) -%}
    {%- elif t in ['\\b', '\\B'] -%}
      {%- set t = '\\y' if t == '\\b' else '\\Y' -%}
    {%- elif t.startswith('(?') and t.endswith('<') -%}
      {%- set problem = "uses a named group '" ~ t ~ "name>...)'" ~ lacks ~ "; use an unnamed group '(...)'" -%}
    {%- elif t.startswith('(?') and t.endswith(':') and t != '(?:' -%}
      {%- set problem = "uses a group with flags '" ~ t ~ "...)'" ~ lacks ~ "; put the flags at the very start of the pattern, e.g. '(?i)'" -%}
    {%- elif t.startswith('(?') and t.endswith(')') -%}
      {%- if m.start() != 0 -%}
        {%- set problem = "sets flags '" ~ t ~ "' after the start of the pattern" ~ lacks ~ "; PostgreSQL takes flags only at the very start" -%}
      {%- elif 'U' in t or '-' in t -%}
        {%- set problem = "uses the flags '" ~ t ~ "'" ~ lacks ~ "; PostgreSQL has no ungreedy (U) flag and no flag removal (-)" -%}
      {%- endif -%}
    {%- endif -%}
    {%- if problem is not none and state.problem is none -%}{%- do state.update({'problem': problem}) -%}{%- endif -%}
    {%- do out.append(t) -%}
  {%- endfor -%}
  {{ return({'pattern': out | join(''), 'problem': state.problem}) }}
{% endmacro %}

{#- Read a column as text. -#}
{% macro cast_text(expr) %}{{ return(adapter.dispatch('cast_text', 'dataplex_dq')(expr)) }}{% endmacro %}
{% macro default__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as " ~ dbt.type_string() ~ ")") -}}{%- endmacro %}
{% macro bigquery__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as string)") -}}{%- endmacro %}
{% macro postgres__cast_text(expr) -%}{{- return("cast(" ~ expr ~ " as text)") -}}{%- endmacro %}

{#- A YAML bound (or set value) converted to the column's type WITHOUT changing its value (docs/SEMANTICS.md §5).
    `data_type` is the warehouse type of the column, or none when unknown (then the literal is left
    to the warehouse's own literal coercion). Integer and DECIMAL/NUMERIC columns compare with the
    bound's exact decimal value, cast to a type wide enough for it (never to the column's own
    precision/scale, which rounds: '10.005' as numeric(12,2) is 10.01); FLOAT columns with the
    nearest double; TIMESTAMP columns with the base type at microseconds (never timestamp(0));
    other types are cast to the column's type. validation.sql (bound_problem) has checked the value. -#}
{% macro typed_literal(value, data_type) %}
  {%- set family = dataplex_dq.type_family(data_type) if data_type is not none else 'unknown' -%}
  {%- if family in ['integer', 'decimal'] -%}
    {%- set d = dataplex_dq.decimal_parts(value) -%}
    {%- if d is not none -%}
      {%- if family == 'integer' and not d.frac and (d.int | length) <= 18 -%}
        {#- an integral value that fits a 64-bit integer: cast to the 64-bit integer type -#}
        {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as " ~ dataplex_dq.type_int64() ~ ")") -}}
      {%- endif -%}
      {{- return(adapter.dispatch('exact_number_literal', 'dataplex_dq')(d)) -}}
    {%- endif -%}
  {%- elif family == 'float' -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ dataplex_dq.type_double() ~ ")") -}}
  {%- elif family == 'timestamp' -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ dataplex_dq.timestamp_base_type(data_type) ~ ")") -}}
  {%- endif -%}
  {{- return(adapter.dispatch('typed_literal', 'dataplex_dq')(value, data_type)) -}}
{% endmacro %}
{% macro default__typed_literal(value, data_type) -%}
  {#- No cast for text columns: the literal already is text, and a cast to the column's declared
      type could truncate it (dbt reports PostgreSQL's unbounded varchar as character varying(256)). -#}
  {%- if data_type is none or dataplex_dq.is_text_type(data_type) -%}{{- return(dataplex_dq.string_literal(value)) -}}{%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ data_type ~ ")") -}}
{%- endmacro %}

{#- A 64-bit integer type. -#}
{% macro type_int64() %}{{ return(adapter.dispatch('type_int64', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__type_int64() %}{{ return('bigint') }}{% endmacro %}
{% macro bigquery__type_int64() %}{{ return('int64') }}{% endmacro %}

{#- An exact decimal literal of `d` (decimal_parts), in a type wide enough to hold it. -#}
{% macro default__exact_number_literal(d) -%}
  {#- PostgreSQL: unconstrained numeric holds any value exactly. -#}
  {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as numeric)") -}}
{%- endmacro %}
{% macro duckdb__exact_number_literal(d) -%}
  {#- DuckDB: the narrowest DECIMAL(p, s) that holds the value (at most 38 digits), so that comparing
      it with a DECIMAL column still fits 38 digits; beyond that, a double (such a bound is far
      outside every DECIMAL column's range anyway). -#}
  {%- set p = ([d.int | length, 1] | max) + (d.frac | length) -%}
  {%- if p <= 38 -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as decimal(" ~ p ~ ", " ~ (d.frac | length) ~ "))") -}}
  {%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as double)") -}}
{%- endmacro %}
{% macro bigquery__exact_number_literal(d) -%}
  {#- BigQuery: NUMERIC holds 29 integer and 9 fractional digits, BIGNUMERIC 38 and 38. -#}
  {%- if (d.frac | length) <= 9 and (d.int | length) <= 29 -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as numeric)") -}}
  {%- elif (d.frac | length) <= 38 and (d.int | length) <= 38 -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as bignumeric)") -}}
  {%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as float64)") -}}
{%- endmacro %}

{#- A number written as in the proto ('10.005', '-1', '5e-3', '.5') as its exact plain decimal:
    {sign: '' or '-', int: digits without leading zeros ('' for zero), frac: digits without trailing
    zeros, text: the plain decimal ('0.005', '-1', '9223372036854775808')}; none when not a number. -#}
{% macro decimal_parts(value) %}
  {%- set m = modules.re.match('^\\s*([+-]?)([0-9]*)(?:\\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,4}))?\\s*$', value | string) -%}
  {%- if m is none or ((m.group(2) or '') ~ (m.group(3) or '')) == '' -%}{{ return(none) }}{%- endif -%}
  {%- set ip = m.group(2) or '' -%}
  {%- set fp = m.group(3) or '' -%}
  {%- set digits = ip ~ fp -%}
  {%- set point = (ip | length) + ((m.group(4) or '0') | int) -%}
  {%- if point <= 0 -%}
    {%- set int_part, frac_part = '', ('0' * (0 - point)) ~ digits -%}
  {%- elif point >= (digits | length) -%}
    {%- set int_part, frac_part = digits ~ ('0' * (point - (digits | length))), '' -%}
  {%- else -%}
    {%- set int_part, frac_part = digits[:point], digits[point:] -%}
  {%- endif -%}
  {%- set int_part = int_part.lstrip('0') -%}
  {%- set frac_part = frac_part.rstrip('0') -%}
  {%- set sign = '-' if m.group(1) == '-' and (int_part or frac_part) else '' -%}
  {%- set text = sign ~ (int_part or '0') ~ (('.' ~ frac_part) if frac_part else '') -%}
  {{ return({'sign': sign, 'int': int_part, 'frac': frac_part, 'text': text}) }}
{% endmacro %}

{#- The type family of a warehouse type name: integer, decimal, float, date, timestamp (also
    DATETIME), time, boolean, text, or other. -#}
{% macro type_family(data_type) %}
  {%- set t = (data_type | string | trim | lower) -%}
  {%- if modules.re.match('^(tinyint|smallint|integer|int|bigint|hugeint|ubigint|uinteger|usmallint|utinyint|uhugeint|int1|int2|int4|int8|int16|int32|int64|int128|long|short|signed|serial|bigserial|smallserial)\\b', t) -%}{{ return('integer') }}
  {%- elif modules.re.match('^(decimal|numeric|bignumeric|bigdecimal|number|dec)\\b', t) -%}{{ return('decimal') }}
  {%- elif modules.re.match('^(double|float|real|float4|float8|float64|float32)\\b', t) -%}{{ return('float') }}
  {%- elif t == 'date' -%}{{ return('date') }}
  {%- elif t.startswith('timestamp') or t.startswith('datetime') -%}{{ return('timestamp') }}
  {%- elif t.startswith('time') -%}{{ return('time') }}
  {%- elif t in ['boolean', 'bool'] -%}{{ return('boolean') }}
  {%- elif dataplex_dq.is_text_type(t) -%}{{ return('text') }}
  {%- endif -%}
  {{ return('other') }}
{% endmacro %}

{#- A timestamp column's type at microsecond precision, without a declared precision that would
    round a bound (PostgreSQL timestamp(0), DuckDB TIMESTAMP_S / TIMESTAMP_MS). -#}
{% macro timestamp_base_type(data_type) %}
  {%- set t = (data_type | string | trim | lower) -%}
  {%- set t = modules.re.sub('\\s*\\([0-9]+\\)', '', t) -%}
  {%- if t in ['timestamp_s', 'timestamp_ms', 'timestamp_ns'] -%}{{ return('timestamp') }}{%- endif -%}
  {{ return(t) }}
{% endmacro %}

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

{#- The measured value of a statistic rule in text form (docs/SEMANTICS.md §5: kept for every column type, dates
    and timestamps included, where statistic_value, a double, has none). -#}
{% macro statistic_text(expr, data_type=none) %}{{ return(adapter.dispatch('statistic_text', 'dataplex_dq')(expr, data_type)) }}{% endmacro %}
{% macro default__statistic_text(expr, data_type=none) -%}{{- return(dataplex_dq.cast_text(expr)) -}}{%- endmacro %}
{% macro bigquery__statistic_text(expr, data_type=none) -%}
  {#- A TIMESTAMP reads as text with a '+00' suffix: as DATETIME (UTC) it reads as on the other warehouses. -#}
  {%- if data_type is not none and (data_type | string | trim | lower) == 'timestamp' -%}
    {{- return("cast(cast(" ~ expr ~ " as datetime) as string)") -}}
  {%- endif -%}
  {{- return("cast(" ~ expr ~ " as string)") -}}
{%- endmacro %}

{#- The current time as a UTC timestamp without time zone. -#}
{% macro current_timestamp_utc() %}{{ return(adapter.dispatch('current_timestamp_utc', 'dataplex_dq')()) }}{% endmacro %}
{% macro default__current_timestamp_utc() -%}{{- return("cast(current_timestamp as " ~ dbt.type_timestamp() ~ ")") -}}{%- endmacro %}
{% macro duckdb__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}
{% macro postgres__current_timestamp_utc() -%}{{- return("cast(now() at time zone 'UTC' as timestamp)") -}}{%- endmacro %}
{% macro bigquery__current_timestamp_utc() -%}{{- return("current_timestamp()") -}}{%- endmacro %}

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

{#- Whether `from_sql` is a base table that TABLESAMPLE can read: not dbt's `where` subquery, and the
    data source of the test being compiled is a seed, snapshot, a table/incremental model, or a source
    the warehouse reports as a table (a source may be a view or an external table, which BigQuery
    cannot TABLESAMPLE: one metadata lookup, made only when sampling is asked for). -#}
{% macro samples_base_table(from_sql) %}
  {%- if (from_sql | string | trim).startswith('(') -%}{{ return(false) }}{%- endif -%}
  {%- set test_node = dataplex_dq.current_test_node() -%}
  {%- if test_node is not mapping and test_node.get is not defined -%}{{ return(false) }}{%- endif -%}
  {%- set source_node = dataplex_dq.data_source_node(test_node) -%}
  {%- if source_node is none -%}{{ return(false) }}{%- endif -%}
  {%- if source_node.resource_type in ['seed', 'snapshot'] -%}{{ return(true) }}{%- endif -%}
  {%- if source_node.resource_type == 'source' -%}
    {%- set relation = adapter.get_relation(database=source_node.database, schema=source_node.schema, identifier=source_node.identifier) -%}
    {{ return(relation is not none and relation.is_table) }}
  {%- endif -%}
  {{ return(source_node.resource_type == 'model' and (source_node.get('config') or {}).get('materialized') in ['table', 'incremental']) }}
{% endmacro %}
