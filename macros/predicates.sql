{#- SQL pieces the rule types share: the bounds comparison (range and statistic rules), the data
    reference `${data()}` and the scope it stands for. Each rule type's own predicate is in its file,
    macros/rules/<rule_type>.sql. -#}

{#- `expr` compared with the optional bounds of a range / statistic rule. -#}
{% macro bounds_predicate(expr, params, data_type) %}
  {%- set parts = [] -%}
  {%- if params.get('min_value') is not none -%}
    {%- do parts.append(expr ~ (" > " if params.get('strict_min_enabled') else " >= ") ~ dataplex_dq.typed_literal(params.get('min_value'), data_type)) -%}
  {%- endif -%}
  {%- if params.get('max_value') is not none -%}
    {%- do parts.append(expr ~ (" < " if params.get('strict_max_enabled') else " <= ") ~ dataplex_dq.typed_literal(params.get('max_value'), data_type)) -%}
  {%- endif -%}
  {{ return("(" ~ (parts | join(" and ")) ~ ")") }}
{% endmacro %}

{#- Replace the Dataplex data reference `${data()}` (case-sensitive) by a parenthesized subquery over
    the rule's scope. Where the user wrote an alias after it (`${data()} AS o`, `${data()} o`) it is
    kept; otherwise `data_reference` gets an alias to add where the warehouse needs one (PostgreSQL
    before 16 refuses a FROM subquery without alias): dq_data, dq_data_2, ... per occurrence. -#}
{% macro expand_data_reference(sql, data_sql) %}
  {%- set parts = (sql | string).split('${data()}') -%}
  {%- if (parts | length) == 1 -%}{{ return(sql | string) }}{%- endif -%}
  {%- set out = [parts[0]] -%}
  {%- for rest in parts[1:] -%}
    {%- set alias = none if dataplex_dq.starts_with_alias(rest) else ('dq_data' if loop.first else 'dq_data_' ~ loop.index) -%}
    {%- do out.append(dataplex_dq.data_reference(data_sql, alias)) -%}
    {%- do out.append(rest) -%}
  {%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}

{#- Whether SQL text that follows a table expression starts with an alias for it: `AS name`, or a
    bare name that is not a keyword which can follow a FROM item (WHERE, JOIN, ON, GROUP, ...). -#}
{% macro starts_with_alias(text) %}
  {%- if modules.re.match('(?is)^\\s+as\\s', text) -%}{{ return(true) }}{%- endif -%}
  {%- set m = modules.re.match('(?s)^\\s+([A-Za-z_][A-Za-z0-9_$]*|"[^"]+"|`[^`]+`)', text) -%}
  {%- if not m -%}{{ return(false) }}{%- endif -%}
  {%- set word = m.group(1) | lower -%}
  {{ return(word not in ['where', 'join', 'inner', 'left', 'right', 'full', 'cross', 'natural', 'on', 'using',
                         'group', 'order', 'limit', 'offset', 'fetch', 'union', 'intersect', 'except', 'minus',
                         'having', 'window', 'qualify', 'tablesample', 'for', 'lateral', 'and', 'or', 'not',
                         'then', 'else', 'end', 'when', 'is', 'in', 'between', 'like', 'ilike', 'select', 'from',
                         'with', 'into', 'returning', 'pivot', 'unpivot', 'sample', 'using', 'asc', 'desc',
                         'nulls', 'partition', 'rows', 'range', 'over', 'escape', 'collate']) }}
{% endmacro %}

{#- What `${data()}` stands for inside a rule's own statement, whose scope is the CTE `dq_scope`
    (scope_sql): with sampling, a reference to that CTE, so the sampled table appears once in the
    statement and every `${data()}` reads the same scope definition as the rule (BigQuery: "a sampled
    table can only appear once in a query statement"); without sampling, the scope itself. -#}
{% macro data_sql_in_scope(ctx, scope_sql) %}
  {%- if ctx.sampling_percent and ctx.sampling_percent < 100 -%}{{ return("select * from dq_scope") }}{%- endif -%}
  {{ return(scope_sql) }}
{% endmacro %}

{#- The scope of a statement of its own (a debug query) in which `${data()}` appears `occurrences`
    times: sampled with the warehouse's table sampler when it appears once; sampled row by row (a
    random filter, as for a view) when it appears more than once, since a sampled table may appear only
    once in a BigQuery statement (a subquery is never TABLESAMPLEd, see samples_base_table). -#}
{% macro standalone_scope_select(ctx, occurrences) %}
  {%- set from_sql = ctx.from_sql -%}
  {%- if occurrences > 1 and ctx.sampling_percent and ctx.sampling_percent < 100 -%}
    {%- set from_sql = "(select * from " ~ from_sql ~ ") as dq_source" -%}
  {%- endif -%}
  {{ return(dataplex_dq.scope_select(from_sql, ctx.row_filter, ctx.sampling_percent)) }}
{% endmacro %}

