{#- dataplex_dq.statistic_range_expectation: Aggregate: MEAN, MIN or MAX of the non-NULL values lies between the bounds; a NULL statistic fails.
    Arguments: statistic, min_value, max_value, strict_min_enabled, strict_max_enabled, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#statistic-range-expectation. -#}
{% test statistic_range_expectation(model, column_name=none, statistic=none, min_value=none, max_value=none, strict_min_enabled=none, strict_max_enabled=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('statistic_range_expectation', model, column_name, {'statistic': statistic, 'min_value': min_value, 'max_value': max_value, 'strict_min_enabled': strict_min_enabled, 'strict_max_enabled': strict_max_enabled, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- Aggregate: the statistic (MEAN, MIN or MAX of the non-NULL values) lies between the bounds; a NULL
    statistic fails. The bounds are converted to the column's type, or to a double for MEAN. -#}

{#- The aggregate of the statistic. -#}
{% macro statistic_expression(statistic, column_sql) %}
  {%- set function = {'MEAN': 'avg', 'MIN': 'min'}.get(statistic, 'max') -%}
  {{ return(function ~ "(" ~ column_sql ~ ")") }}
{% endmacro %}

{#- The per-rule test's aggregates: row and null count, and the statistic. -#}
{% macro statistic_range_expectation_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {%- set counts -%}
dq_counts as (
  select count(*) as row_count, {{ null_count }} as null_count, {{ dataplex_dq.statistic_expression(rule.params.statistic, column_sql) }} as stat_value from dq_scope
)
  {%- endset -%}
  {{ return({'ctes': [counts], 'from': 'dq_counts'}) }}
{% endmacro %}

{#- The fused scan: the statistic, one expression of the scan's aggregate row. -#}
{% macro statistic_range_expectation_scan(rule, ctx, column_sql, data_sql, scan) %}
  {{ return({'stat_value': dataplex_dq.scan_aggregate(scan, dataplex_dq.statistic_expression(rule.params.statistic, column_sql))}) }}
{% endmacro %}

{#- The metrics: passed, and the statistic as a double and as text. -#}
{% macro statistic_range_expectation_metrics(rule, ctx, refs, column_sql) %}
  {%- set bound_type = adapter.dispatch('type_double', 'dataplex_dq')() if rule.params.statistic == 'MEAN' else ctx.data_type -%}
  {%- set passed -%}
coalesce({{ refs.stat_value }} is not null and {{ dataplex_dq.bounds_predicate(refs.stat_value, rule.params, bound_type) }}, false)
  {%- endset -%}
  {{ return({
      'passed': passed,
      'statistic_value': dataplex_dq.safe_cast_double(refs.stat_value, bound_type),
      'statistic_value_text': adapter.dispatch('statistic_text', 'dataplex_dq')(refs.stat_value, ctx.data_type)}) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params): the statistic, min_value / max_value and the strict flags -#}
{% macro statistic_range_expectation_validate(params, where) %}
  {{ dataplex_dq.validate_bounds(params, where) }}
  {%- if params.get('statistic') not in ['MEAN', 'MIN', 'MAX'] -%}
    {{ dataplex_dq.raise_rule_error(where, 'statistic', "must be one of MEAN, MIN, MAX, got " ~ params.get('statistic')) }}
  {%- endif -%}
{% endmacro %}
