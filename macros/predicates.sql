{#- Per-row pass predicates of the row-level rules, and the statistic comparison. Each returns a SQL
    boolean expression that is TRUE when the row passes; NULL and FALSE both count as failing. -#}

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

{#- The pass predicate of a row-level rule (uniqueness is counted with a grouped subquery instead). -#}
{% macro row_predicate(rule, column_sql, data_type, data_sql) %}
  {%- set p = rule.params -%}
  {%- if rule.rule_type == 'range_expectation' -%}
    {{ return(dataplex_dq.bounds_predicate(column_sql, p, data_type)) }}
  {%- elif rule.rule_type == 'non_null_expectation' -%}
    {{ return("(" ~ column_sql ~ " is not null)") }}
  {%- elif rule.rule_type == 'set_expectation' -%}
    {%- set literals = [] -%}
    {%- for v in p.get('values') -%}{%- do literals.append(dataplex_dq.typed_literal(v, data_type)) -%}{%- endfor -%}
    {{ return("(" ~ column_sql ~ " in (" ~ (literals | join(", ")) ~ "))") }}
  {%- elif rule.rule_type == 'regex_expectation' -%}
    {{ return("(" ~ dataplex_dq.regex_contains(dataplex_dq.cast_text(column_sql), p.get('regex')) ~ ")") }}
  {%- elif rule.rule_type == 'row_condition_expectation' -%}
    {{ return("(" ~ dataplex_dq.expand_data_reference(p.get('sql_expression'), data_sql) ~ ")") }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("dataplex_dq: no row predicate for rule type " ~ rule.rule_type) }}
{% endmacro %}

{#- Replace the Dataplex data reference `${data()}` (case-sensitive) by a parenthesized subquery over
    the rule's scope. -#}
{% macro expand_data_reference(sql, data_sql) %}
  {{ return((sql | string).replace('${data()}', dataplex_dq.data_reference(data_sql))) }}
{% endmacro %}

{% macro data_reference(data_sql) %}{{ return(adapter.dispatch('data_reference', 'dataplex_dq')(data_sql)) }}{% endmacro %}
{% macro default__data_reference(data_sql) %}{{ return("(" ~ data_sql ~ ")") }}{% endmacro %}

{#- The aggregate of a statistic rule. -#}
{% macro statistic_expression(statistic, column_sql) %}
  {%- if statistic == 'MEAN' -%}{{ return("avg(" ~ column_sql ~ ")") }}
  {%- elif statistic == 'MIN' -%}{{ return("min(" ~ column_sql ~ ")") }}
  {%- else -%}{{ return("max(" ~ column_sql ~ ")") }}{%- endif -%}
{% endmacro %}
