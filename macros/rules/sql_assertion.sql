{#- dataplex_dq.sql_assertion: Aggregate: `sql_statement` returns no rows; its row count is `assertion_row_count`.
    Arguments: sql_statement, column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#sql-assertion. -#}
{% test sql_assertion(model, column_name=none, sql_statement=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('sql_assertion', model, column_name, {'sql_statement': sql_statement, 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- Aggregate: the user's SELECT (`${data()}` expanded over the rule's scope) returns no rows; its row
    count is assertion_row_count. -#}

{#- The count of the statement's rows, as a scalar subquery. -#}
{% macro sql_assertion_row_count(rule, data_sql) %}
  {%- set row_count -%}
(select count(*) from (
{{ dataplex_dq.expand_data_reference(rule.params.sql_statement, data_sql) }}
  ) dq_assertion_rows)
  {%- endset -%}
  {{ return(row_count) }}
{% endmacro %}

{#- The per-rule test's aggregates: row and null count, and the statement's row count. -#}
{% macro sql_assertion_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {%- set assertion -%}
dq_assertion as (
  select count(*) as assertion_row_count from (
{{ dataplex_dq.expand_data_reference(rule.params.sql_statement, data_sql) }}
  ) dq_assertion_rows
)
  {%- endset -%}
  {{ return({'ctes': [dataplex_dq.plain_counts_cte(null_count), assertion], 'from': 'dq_counts cross join dq_assertion'}) }}
{% endmacro %}

{#- The fused scan: the statement's row count, one scalar subquery of the scan's dq_assertions row;
    or, for a duplicate-key statement the scan proved it can answer from a grouping it already makes
    (scan.shared.assertions, see scan_shared_groupings in macros/scan_cross_db.sql), the number of
    values of that grouping occurring more than once (plus the NULL group when the statement keeps NULLs
    and more than one row is NULL). -#}
{% macro sql_assertion_scan(rule, ctx, column_sql, data_sql, scan) %}
  {%- set shared = scan.shared['assertions'].get(ctx.rule_index) -%}
  {%- if shared -%}
    {%- set dups = dataplex_dq.scan_key_grouping(scan, shared.key).dups -%}
    {%- if shared.nulls_counted -%}
      {%- set dups = "(" ~ dups ~ " + case when " ~ dataplex_dq.scan_null_count(scan, shared.key) ~ " > 1 then 1 else 0 end)" -%}
    {%- endif -%}
    {{ return({'assertion_row_count': dups}) }}
  {%- endif -%}
  {{ return({'assertion_row_count': dataplex_dq.scan_assertion(scan, dataplex_dq.sql_assertion_row_count(rule, data_sql))}) }}
{% endmacro %}

{#- Whether `sql` is exactly a duplicate-key statement, the one shape whose row count the scan may take
    from a grouping by that key (anything else, comments included, is none: run as written):
      select <k> [, count(*) [[as] <name>]] from <relation> [[as] <alias>] [where <k> is not null]
      group by <k> having count(*) > 1            (count(1) for count(*); >= 2 for > 1)
    <relation>: ${data()}, or a name of one to three plain identifiers (letters, digits, _; double
    quotes allowed); <k>: one plain identifier, the same (case-insensitively) in all three places,
    qualified by the alias only. Its rows are the values of k occurring more than once among the
    relation's rows, plus one row for NULL when NULLs are kept (no `where`) and more than one row is
    NULL. Returns {source: 'data' or [name parts, unquoted], column: k unquoted, nulls_counted}. -#}
{% macro duplicate_key_assertion(sql) %}
  {%- set ident = '(?:[A-Za-z_][A-Za-z0-9_]*|"[A-Za-z_][A-Za-z0-9_]*")' -%}
  {%- set ref = '(?:' ~ ident ~ '\\s*\\.\\s*)?' ~ ident -%}
  {%- set count_star = 'count\\s*\\(\\s*(?:\\*|1)\\s*\\)' -%}
  {%- set pattern = '(?is)^\\s*select\\s+(?P<sel>' ~ ref ~ ')(?:\\s*,\\s*count\\s*\\(\\s*\\*\\s*\\)(?:\\s+as\\s+' ~ ident ~ '|\\s+(?P<calias>' ~ ident ~ '))?)?'
                    ~ '\\s+from\\s+(?P<src>\\$\\{data\\(\\)\\}|' ~ ident ~ '(?:\\s*\\.\\s*' ~ ident ~ '){0,2})'
                    ~ '(?:\\s+(?:as\\s+)?(?P<alias>' ~ ident ~ '))?'
                    ~ '(?:\\s+where\\s+(?P<nn>' ~ ref ~ ')\\s+is\\s+not\\s+null)?'
                    ~ '\\s+group\\s+by\\s+(?P<grp>' ~ ref ~ ')\\s+having\\s+' ~ count_star ~ '\\s*(?:>\\s*1|>=\\s*2)\\s*$' -%}
  {%- set m = modules.re.match(pattern, sql | string) -%}
  {%- if not m -%}{{ return(none) }}{%- endif -%}
  {%- set keywords = ['where', 'group', 'having', 'from', 'select', 'as', 'join', 'on', 'using', 'natural', 'cross',
                      'left', 'right', 'inner', 'full', 'tablesample', 'using', 'order', 'limit', 'union', 'window', 'qualify'] -%}
  {%- set alias = (m.group('alias') or '').strip('"') | lower -%}
  {%- if (m.group('alias') and (m.group('alias') | lower) in keywords) or (m.group('calias') and (m.group('calias') | lower) in keywords) -%}{{ return(none) }}{%- endif -%}
  {%- set names = [] -%}
  {%- for r in [m.group('sel'), m.group('grp'), m.group('nn')] if r is not none -%}
    {%- set parts = modules.re.split('\\s*\\.\\s*', r) -%}
    {%- if (parts | length) == 2 and (not alias or (parts[0].strip('"') | lower) != alias) -%}{{ return(none) }}{%- endif -%}
    {%- do names.append(parts[-1].strip('"')) -%}
  {%- endfor -%}
  {%- if (names | map('lower') | unique | list | length) != 1 -%}{{ return(none) }}{%- endif -%}
  {%- set src = m.group('src') -%}
  {%- if src == '${data()}' -%}
    {%- set source = 'data' -%}
  {%- else -%}
    {%- set source = [] -%}
    {%- for part in modules.re.split('\\s*\\.\\s*', src) -%}{%- do source.append(part.strip('"')) -%}{%- endfor -%}
    {#- a name the scan's own CTEs (dq_...) could shadow is left alone -#}
    {%- if (source | length) == 1 and (source[0] | lower).startswith('dq_') -%}{{ return(none) }}{%- endif -%}
  {%- endif -%}
  {{ return({'source': source, 'column': names[0], 'nulls_counted': m.group('nn') is none}) }}
{% endmacro %}

{% macro sql_assertion_metrics(rule, ctx, refs, column_sql) %}
  {{ return({'assertion_row_count': refs.assertion_row_count, 'passed': refs.assertion_row_count ~ ' = 0'}) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params) -#}
{% macro sql_assertion_validate(params, where) %}
  {%- if not dataplex_dq._is_sql_text(params.get('sql_statement')) -%}
    {{ dataplex_dq.raise_rule_error(where, 'sql_statement', "is required (a SELECT returning the rows in an invalid state)") }}
  {%- elif ';' in params.get('sql_statement') -%}
    {{ dataplex_dq.raise_rule_error(where, 'sql_statement', "must not contain a semicolon") }}
  {%- endif -%}
{% endmacro %}
