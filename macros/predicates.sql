{#- SQL pieces the rule types share: the bounds comparison (range and statistic rules), the data
    reference `${data()}` and the scope it stands for. Each rule type's own predicate is in its file,
    macros/rules/<rule_type>.sql. -#}

{#- `expr` compared with the optional bounds of a range / statistic rule. -#}
{% macro bounds_predicate(expr, params, data_type) %}
  {%- set parts = [] -%}
  {%- if params.get('min_value') is not none -%}
    {%- do parts.append(dataplex_dq.bound_comparison(expr, ">" if params.get('strict_min_enabled') else ">=", params.get('min_value'), data_type)) -%}
  {%- endif -%}
  {%- if params.get('max_value') is not none -%}
    {%- do parts.append(dataplex_dq.bound_comparison(expr, "<" if params.get('strict_max_enabled') else "<=", params.get('max_value'), data_type)) -%}
  {%- endif -%}
  {{ return("(" ~ (parts | join(" and ")) ~ ")") }}
{% endmacro %}

{#- `expr op bound` (op: >=, >, <=, <), the bound converted to the column's type without changing the
    comparison's outcome (docs/SEMANTICS.md §5): grid_bound, else typed_literal. -#}
{% macro bound_comparison(expr, op, value, data_type) %}
  {%- set g = dataplex_dq.grid_bound(value, data_type, op) -%}
  {%- if g is none -%}{{ return(expr ~ " " ~ op ~ " " ~ dataplex_dq.typed_literal(value, data_type)) }}{%- endif -%}
  {%- if g.outcome == 'never' -%}{{ return("false") }}{%- endif -%}
  {%- if g.outcome == 'always' -%}{{ return("(" ~ expr ~ " is not null)") }}{%- endif -%}
  {{ return(expr ~ " " ~ op ~ " " ~ g.literal) }}
{% endmacro %}

{#- The grid of an integer or decimal column (exact_type_range), or {} (a set rule asks once for all its
    values: grid_bound's `grid`). -#}
{% macro column_grid(data_type) %}
  {%- set family = dataplex_dq.type_family(data_type) if data_type is not none else 'unknown' -%}
  {{ return((adapter.dispatch('exact_type_range', 'dataplex_dq')(data_type) or {}) if family in ['integer', 'decimal'] else {}) }}
{% endmacro %}

{#- A bound (op >=, >, <=, <) or set value (op =) on an exact-number column whose values lie on a known
    grid (exact_type_range: a scale and a range): {literal: the bound rounded onto the grid toward the
    comparison's side, in at most the column's digits} (x >= 0.4 is x >= 1 on integers, x < 0.4 is
    x < 1, x <= 0.4 is x <= 0), or {outcome: 'always' / 'never'} for a bound beyond the range, which
    decides alone (x <= 1e40 on DECIMAL(38,0): every non-NULL value), and for a set value off the grid
    (never equal). Comparing within the column's own digits never widens it past the warehouse's maximum
    precision (DuckDB cast DECIMAL(38,0) to DECIMAL(38,6) against '-0.499999' and failed near 10^38).
    none when the column has no such grid or the value is no number (validation reported it). `grid`:
    column_grid(data_type) when the caller has it. -#}
{% macro grid_bound(value, data_type, op, grid=none) %}
  {%- set grid = grid if grid is not none else dataplex_dq.column_grid(data_type) -%}
  {%- set d = dataplex_dq.decimal_parts(value) if grid else none -%}
  {%- if d is none -%}{{ return(none) }}{%- endif -%}
  {%- set s = grid.scale -%}
  {%- set magnitude = ((d.int or '0') ~ (d.frac ~ ('0' * s))[:s]) | int -%}
  {%- set inexact = (d.frac[s:] | length) > 0 -%}
  {%- set n = 0 - magnitude if d.sign == '-' else magnitude -%}
  {#- the value is n (on the grid), or lies strictly between floor and floor + 1 -#}
  {%- set floor = (n - 1) if (inexact and d.sign == '-') else n -%}
  {%- if op == '=' -%}
    {%- if inexact or n > grid.hi or n < grid.lo -%}{{ return({'outcome': 'never'}) }}{%- endif -%}
    {%- set r = n -%}
  {%- elif op in ['>=', '<'] -%}
    {%- set r = (floor + 1) if inexact else n -%}  {#- the ceiling -#}
  {%- else -%}
    {%- set r = floor -%}
  {%- endif -%}
  {%- if op in ['>=', '>'] and (r > grid.hi or (op == '>' and r == grid.hi)) -%}{{ return({'outcome': 'never'}) }}{%- endif -%}
  {%- if op in ['>=', '>'] and (r < grid.lo or (op == '>=' and r == grid.lo)) -%}{{ return({'outcome': 'always'}) }}{%- endif -%}
  {%- if op in ['<=', '<'] and (r < grid.lo or (op == '<' and r == grid.lo)) -%}{{ return({'outcome': 'never'}) }}{%- endif -%}
  {%- if op in ['<=', '<'] and (r > grid.hi or (op == '<=' and r == grid.hi)) -%}{{ return({'outcome': 'always'}) }}{%- endif -%}
  {%- set digits = (r if r >= 0 else 0 - r) | string -%}
  {%- set digits = (('0' * (s + 1 - (digits | length))) ~ digits) if (digits | length) <= s else digits -%}
  {%- set cut = (digits | length) - s -%}
  {%- set text = ('-' if r < 0 else '') ~ digits[:cut] ~ (('.' ~ digits[cut:]) if s > 0 else '') -%}
  {%- if grid.int64 -%}
    {{ return({'literal': "cast(" ~ dataplex_dq.string_literal(text) ~ " as " ~ adapter.dispatch('type_int64', 'dataplex_dq')() ~ ")"}) }}
  {%- endif -%}
  {{ return({'literal': adapter.dispatch('exact_number_literal', 'dataplex_dq')(dataplex_dq.decimal_parts(text))}) }}
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

