{#- dataplex_dq.set_expectation: Row-level: each value of the column is one of `values` (converted to the column's type).
    Arguments: values, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See README.md#set-expectation. -#}
{% test set_expectation(model, column_name=none, values=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {{ dataplex_dq.rule_test('set_expectation', model, column_name, {'values': values, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- The predicate: the value is one of `values`, each converted to the column's type (on an
    exact-number column, a value off the column's grid or beyond its range can equal none: left out,
    grid_bound; none left: no value passes). Everything else: the row-level builders,
    macros/rules/_row_level.sql. -#}
{% macro set_expectation_predicate(rule, column_sql, data_type, data_sql) %}
  {%- set literals = [] -%}
  {%- set grid = dataplex_dq.column_grid(data_type) -%}
  {%- for v in rule.params.get('values') -%}
    {%- set g = dataplex_dq.grid_bound(v, data_type, '=', grid) if grid else none -%}
    {%- if g is none -%}{%- do literals.append(dataplex_dq.typed_literal(v, data_type)) -%}
    {%- elif g.get('literal') and g.literal not in literals -%}{%- do literals.append(g.literal) -%}{%- endif -%}
  {%- endfor -%}
  {%- if not literals -%}{{ return("false") }}{%- endif -%}
  {%- set predicate -%}({{ column_sql }} in ({{ literals | join(", ") }})){%- endset -%}
  {{ return(predicate) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params) -#}
{% macro set_expectation_validate(params, where) %}{{ dataplex_dq.validate_set_values(params.get('values'), where) }}{% endmacro %}
