{#- dataplex_dq.template_reference: Aggregate: the rule template's SQL (macros/rule_templates.sql), its
    parameters replaced by `template_reference.values`, returns no rows; its row count is `assertion_row_count`.
    Arguments: template_reference ({name, values}), column, dimension, threshold, ignore_null, suspended, debug_queries, attributes. See docs/SEMANTICS.md#18-rule-templates-and-data-contracts-odcs. -#}
{% test template_reference(model, column_name=none, template_reference=none, column=none, dimension=none, threshold=none, ignore_null=none, suspended=none, debug_queries=none, attributes=none) %}
  {%- set ref = template_reference if template_reference is mapping else {'name': template_reference} -%}
  {{ dataplex_dq.rule_test('template_reference', model, column_name, {'name': ref.get('name'), 'values': ref.get('values'), 'column': column, 'dimension': dimension, 'threshold': threshold, 'ignore_null': ignore_null, 'suspended': suspended, 'debug_queries': debug_queries, 'attributes': attributes}, kwargs) }}
{% endtest %}

{#- The project's templates and the package's (var dataplex_dq_rule_templates). -#}
{% macro rule_templates() %}
  {{ return(dataplex_dq.rule_templates_of(var('dataplex_dq_rule_templates', {}))) }}
{% endmacro %}

{#- The rule's SQL: its template resolved (validate_rule has reported any problem before). -#}
{% macro template_reference_sql(rule) %}
  {%- set resolved = dataplex_dq.rule_template_resolve(rule.params, dataplex_dq.rule_templates()) -%}
  {%- if resolved.problems -%}
    {{ exceptions.raise_compiler_error("dataplex_dq: rule '" ~ rule.name ~ "', field '" ~ resolved.problems[0][0] ~ "': " ~ resolved.problems[0][1]) }}
  {%- endif -%}
  {%- do rule.params.update({'resolved_sql': resolved.sql}) -%}
  {#- the template's dimension when the rule gives none: in its results, not in its declaration -#}
  {%- if not rule.dimension and resolved.dimension -%}{%- do rule.update({'dimension': resolved.dimension}) -%}{%- endif -%}
  {{ return({'params': {'sql_statement': resolved.sql}}) }}
{% endmacro %}

{% macro template_reference_counts(rule, ctx, column_sql, null_count, data_sql) %}
  {{ return(dataplex_dq.sql_assertion_counts(dataplex_dq.template_reference_sql(rule), ctx, column_sql, null_count, data_sql)) }}
{% endmacro %}

{% macro template_reference_scan(rule, ctx, column_sql, data_sql, scan) %}
  {{ return({'assertion_row_count': dataplex_dq.scan_assertion(scan, dataplex_dq.sql_assertion_row_count(dataplex_dq.template_reference_sql(rule), data_sql))}) }}
{% endmacro %}

{% macro template_reference_metrics(rule, ctx, refs, column_sql) %}
  {{ return(dataplex_dq.sql_assertion_metrics(rule, ctx, refs, column_sql)) }}
{% endmacro %}

{#- its fields (validation.sql, validate_rule_params): the template exists, its parameters have values -#}
{% macro template_reference_validate(params, where) %}
  {%- set resolved = dataplex_dq.rule_template_resolve(params, dataplex_dq.rule_templates()) -%}
  {%- for field, message in resolved.problems -%}{{ dataplex_dq.raise_rule_error(where, field, message) }}{%- endfor -%}
  {%- if resolved.sql is string and ';' in resolved.sql -%}
    {{ dataplex_dq.raise_rule_error(where, 'template_reference', "the resolved SQL must not contain a semicolon") }}
  {%- endif -%}
{% endmacro %}
