{#- Helpers that are the same on every warehouse (string literals, column names, RE2 for PostgreSQL). What
    differs between warehouses is a dispatched primitive, one file each under macros/cross_db/ with all its
    variants side by side: dataplex_dq.<name>() -> adapter.dispatch('<name>', 'dataplex_dq') -> default__ /
    duckdb__ / postgres__ / bigquery__. -#}

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

{#- A column name from YAML without the quotes a user may have written ('"Mixed Case"', '`x`'); a
    doubled quote inside them is one quote. -#}
{% macro unquoted_column(name) %}
  {%- set s = name | string -%}
  {%- if s | length >= 2 and s[0] == '"' and s[-1] == '"' -%}{{ return(s[1:-1].replace('""', '"')) }}{%- endif -%}
  {%- if s | length >= 2 and s[0] == '`' and s[-1] == '`' -%}{{ return(s[1:-1]) }}{%- endif -%}
  {{ return(s) }}
{% endmacro %}

{#- An RE2 pattern for PostgreSQL's POSIX ARE: {pattern: the ARE to run, problem: none, or what RE2
    syntax PostgreSQL lacks}. Escapes and character classes are read token by token, so '\\(?P<' or
    '[(?P<]' are not taken for a named group. -#}
{% macro postgres_regex(pattern) %}
  {%- set lacks = " (valid RE2, but PostgreSQL's regular expressions, POSIX AREs, do not support it)" -%}
  {%- set out = [] -%}
  {%- set state = {'in_class': false, 'problem': none} -%}
  {#- RE2's `.` does not match a newline unless the pattern starts with the flag s; an ARE's does -#}
  {%- set lead = modules.re.match('\\(\\?([A-Za-z]*)\\)', pattern | string) -%}
  {%- set dot_all = lead is not none and 's' in lead.group(1) -%}
  {%- set tokens = modules.re.finditer('(?s)\\\\x\\{|\\\\x[0-9A-Fa-f]{2}|\\\\.|\\[\\^?\\]?|\\]|\\(\\?P?<(?![=!])|\\(\\?[A-Za-z-]*[:)]|.', pattern | string) -%}
  {%- for m in tokens -%}
    {%- set t = m.group(0) -%}
    {%- set problem = none -%}
    {%- if t.startswith('\\x') and (t | length) == 4 -%}
      {#- RE2 reads exactly two hex digits after \x; an ARE reads as many as follow (\x41b is one
          character there): \u with four digits reads exactly those -#}
      {%- set t = '\\u00' ~ t[2:] -%}
    {%- elif t == '\\x{' -%}
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
    {%- elif t == '.' and not dot_all -%}
      {%- set t = '[^\\n]' -%}
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
      {#- RE2's m (^ and $ at line breaks) is an ARE's w; an ARE's m would also keep `.` and `[^...]` off
          newlines. s is RE2's `.` matching a newline: the ARE's default (the `.` above is kept), and
          left out next to w, which a later s would switch off. -#}
      {%- if 'm' in t -%}{%- set t = t.replace('s', '').replace('m', 'w') -%}{%- endif -%}
    {%- endif -%}
    {%- if problem is not none and state.problem is none -%}{%- do state.update({'problem': problem}) -%}{%- endif -%}
    {%- do out.append(t) -%}
  {%- endfor -%}
  {{ return({'pattern': out | join(''), 'problem': state.problem}) }}
{% endmacro %}

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
