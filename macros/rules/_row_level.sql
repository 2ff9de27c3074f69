{#- The row-level builders: a row-level rule type counts the rows of its scope where its predicate
    (<rule_type>_predicate, in its own file) is TRUE; NULL and FALSE both fail. Every row-level rule
    type but uniqueness (macros/rules/uniqueness_expectation.sql) uses all of these; see
    rule_sql in macros/rules/_registry.sql for how a rule type's pieces are found. -#}

{#- The rule type's predicate (<rule_type>_predicate) of `rule` over `data_sql`, kept in `ctx` (one per
    rule) for the rule's next use with the same arguments: a per-rule test asks twice (its counts and
    its failing-rows query, whose data_sql is the same scope when there is no sampling), and a
    predicate with typed bounds or values costs a few dozen macro calls. -#}
{% macro row_level_predicate(rule, ctx, column_sql, data_sql) %}
  {%- set known = ctx.get('dq_predicates') -%}
  {%- if known is not mapping or known.rule is not sameas rule -%}
    {%- set known = {'rule': rule, 'sql': {}} -%}
    {%- do ctx.update({'dq_predicates': known}) -%}
  {%- endif -%}
  {%- set key = (column_sql, ctx.data_type, data_sql) -%}
  {%- if key not in known.sql -%}
    {%- set pieces = ctx.get('dq_sql') or {} -%}
    {%- set predicate_of = pieces.predicate if 'predicate' in pieces else dataplex_dq.rule_sql(rule.rule_type, 'predicate') -%}
    {%- do known.sql.update({key: predicate_of(rule, column_sql, ctx.data_type, data_sql)}) -%}
  {%- endif -%}
  {{ return(known.sql[key]) }}
{% endmacro %}

{#- The per-rule test's aggregates: row count, null count and the count of passing rows, over dq_scope. -#}
{% macro row_level_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {%- set predicate = dataplex_dq.row_level_predicate(rule, ctx, column_sql, data_sql) -%}
  {%- set counts -%}
dq_counts as (
  select
    count(*) as row_count,
    {{ null_count }} as null_count,
    sum(case when {{ predicate }} then 1 else 0 end) as passed_count
  from dq_scope
)
  {%- endset -%}
  {{ return({'ctes': [counts], 'from': 'dq_counts'}) }}
{% endmacro %}

{#- The fused scan's aggregate: the count of passing rows, one expression of the scan's aggregate row. -#}
{% macro row_level_scan(rule, ctx, column_sql, data_sql, scan) %}
  {%- set predicate = dataplex_dq.row_level_predicate(rule, ctx, column_sql, data_sql) -%}
  {%- set passed_count -%}sum(case when {{ predicate }} then 1 else 0 end){%- endset -%}
  {{ return({'passed_count': dataplex_dq.scan_aggregate(scan, passed_count)}) }}
{% endmacro %}

{#- The metrics of a row-level rule (docs/SEMANTICS.md §5): evaluated rows (NULLs left out with ignore_null), the
    pass ratio (1.0 when nothing was evaluated) against the threshold (0 or unset means 1.0), and the
    failing-rows query as text. -#}
{% macro row_level_metrics(rule, ctx, refs, column_sql) %}
  {%- set double = adapter.dispatch('type_double', 'dataplex_dq')() -%}
  {%- set threshold = rule.threshold if rule.threshold else 1.0 -%}
  {%- set evaluated -%}
    {%- if rule.ignore_null -%}({{ refs.row_count }} - coalesce({{ refs.null_count }}, 0)){%- else -%}{{ refs.row_count }}{%- endif -%}
  {%- endset -%}
  {%- set ratio -%}
case when {{ evaluated }} = 0 then 1.0 else cast(coalesce({{ refs.passed_count }}, 0) as {{ double }}) / {{ evaluated }} end
  {%- endset -%}
  {%- set passed -%}({{ ratio }}) >= cast({{ threshold }} as {{ double }}){%- endset -%}
  {%- set pieces = ctx.get('dq_sql') or {} -%}
  {%- set failing_rows_of = pieces.failing_rows if 'failing_rows' in pieces else dataplex_dq.rule_sql(rule.rule_type, 'failing_rows') -%}
  {%- set failing_rows_query = failing_rows_of(rule, ctx, column_sql) -%}
  {{ return({
      'evaluated_count': evaluated, 'passed_count': 'coalesce(' ~ refs.passed_count ~ ', 0)', 'pass_ratio': ratio,
      'passed': passed, 'threshold': threshold,
      'failing_rows_query': dataplex_dq.string_literal(failing_rows_query)}) }}
{% endmacro %}

{#- docs/SEMANTICS.md §5: a ready-to-run query returning the failing rows, all columns, within the same row filter
    (sampling is not reproduced). -#}
{% macro row_level_failing_rows(rule, ctx, column_sql) %}
  {%- set base = dataplex_dq.scope_select(ctx.from_sql, ctx.row_filter, none) -%}
  {%- set predicate = dataplex_dq.row_level_predicate(rule, ctx, column_sql, base) -%}
  {%- set failing -%}
    {%- if rule.ignore_null -%}({{ column_sql }} is null or {{ predicate }}){%- else -%}{{ predicate }}{%- endif -%}
  {%- endset -%}
  {%- set sql -%}select * from ({{ base }}) dq_scope where not coalesce({{ failing }}, false){%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The per-rule test's aggregates of a rule type counted apart from its rows: row and null count. -#}
{% macro plain_counts_cte(null_count) %}
  {%- set counts -%}
dq_counts as (
  select count(*) as row_count, {{ null_count }} as null_count from dq_scope
)
  {%- endset -%}
  {{ return(counts) }}
{% endmacro %}
