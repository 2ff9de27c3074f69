{#- The metrics query of one rule: a SELECT returning exactly one row with the columns of the metrics
    contract (docs/ARCHITECTURE.md). `ctx` describes where the rule runs:
      from_sql         the relation (or dbt's `where` subquery) the rule reads
      row_filter       data-source row filter, or none
      sampling_percent data-source sampling percent, or none
      data_type        warehouse type of the rule's column, or none
      test_unique_id, source_unique_id  -#}

{% macro rule_metrics_sql(rule, ctx) %}
  {%- if rule.suspended -%}
    {{ return(dataplex_dq.metrics_select(rule, ctx, dataplex_dq.suspended_metrics(rule), none)) }}
  {%- endif -%}
  {%- set scope_sql = dataplex_dq.scope_select(ctx.from_sql, ctx.row_filter, ctx.sampling_percent) -%}
  {%- set col = dataplex_dq.column_sql(rule) -%}
  {%- set null_count = "coalesce(sum(case when " ~ col ~ " is null then 1 else 0 end), 0)" if col else "null" -%}
  {#- the rule type's aggregates over the scope (macros/rules/<rule_type>.sql, <rule_type>_counts) -#}
  {%- set scope_cte -%}
dq_scope as (
  {{ scope_sql }}
)
  {%- endset -%}
  {#- the rule type's SQL pieces resolved once for the rule (rule_sql_pieces) -#}
  {%- do ctx.update({'dq_sql': dataplex_dq.rule_sql_pieces(rule.rule_type)}) -%}
  {%- set counts_of = ctx.dq_sql.counts if 'counts' in ctx.dq_sql else dataplex_dq.rule_sql(rule.rule_type, 'counts') -%}
  {%- set counts = counts_of(rule, ctx, col, null_count, dataplex_dq.data_sql_in_scope(ctx, scope_sql)) -%}
  {%- set refs = {'row_count': 'row_count', 'null_count': 'null_count', 'passed_count': 'passed_count',
                  'stat_value': 'stat_value', 'condition_ok': 'condition_ok', 'assertion_row_count': 'assertion_row_count'} -%}
  {%- set m = dataplex_dq.rule_metrics_exprs(rule, ctx, refs) -%}
  {{ return("with " ~ ([scope_cte] + counts.ctes) | join(",\n") ~ "\n" ~ dataplex_dq.metrics_select(rule, ctx, m, counts.from)) }}
{% endmacro %}

{#- The metrics of a suspended rule: SUSPENDED, passed, nothing evaluated. -#}
{% macro suspended_metrics(rule) %}
  {%- set row_level = dataplex_dq.rule_type_facts(rule.rule_type).row_level -%}
  {{ return({'status': "'SUSPENDED'", 'passed': 'true', 'threshold': (rule.threshold if rule.threshold else 1.0) if row_level else none}) }}
{% endmacro %}

{#- The metric expressions of one evaluated (not suspended) rule, as a dict for metrics_select, over
    the raw aggregates named in `refs` (SQL expressions):
      row_count, null_count ('null' when the rule has no column), passed_count (row-level),
      stat_value (statistic range), condition_ok (table condition: 1 when TRUE),
      assertion_row_count (SQL assertion).
    The rule type's own expressions come from its file (macros/rules/<rule_type>.sql,
    <rule_type>_metrics; row-level: row_level_metrics). Shared by the per-rule query above and the
    fused data_quality_scan (macros/scan.sql), so both derive evaluated counts, ratios and outcomes
    with the very same SQL. -#}
{% macro rule_metrics_exprs(rule, ctx, refs) %}
  {%- set m = {'row_count': refs.row_count, 'null_count': refs.null_count} -%}
  {%- set pieces = ctx.get('dq_sql') or {} -%}
  {%- set metrics_of = pieces.metrics if 'metrics' in pieces else dataplex_dq.rule_sql(rule.rule_type, 'metrics') -%}
  {%- do m.update(metrics_of(rule, ctx, refs, dataplex_dq.column_sql(rule))) -%}
  {%- do m.update({'status': "case when " ~ m.passed ~ " then 'PASSED' else 'FAILED' end"}) -%}
  {{ return(m) }}
{% endmacro %}

{#- The final projection of the metrics contract. `m` maps metric names to SQL expressions over
    `from_clause`; missing metrics are typed NULLs. -#}
{% macro metrics_select(rule, ctx, m, from_clause) %}
  {%- set lines = [] -%}
  {%- for expr, type, name in dataplex_dq.metrics_columns(rule, ctx, m) -%}
    {%- do lines.append("  " ~ (("cast(" ~ expr ~ " as " ~ type ~ ")") if type else expr) ~ " as " ~ name) -%}
  {%- endfor -%}
  {%- set sql = "select\n" ~ (lines | join(",\n")) ~ ("\nfrom " ~ from_clause if from_clause else "") -%}
  {{ return(adapter.dispatch('metrics_packed', 'dataplex_dq')(sql)) }}
{% endmacro %}

{#- The columns of the metrics contract for one rule, in order: a list of (SQL expression, type, name);
    the column is `cast(expression as type)` (type none: the expression as is). The last three carry an
    incremental scan's window (macros/incremental.sql): field and bounds as text, NULL without one. -#}
{% macro metrics_columns(rule, ctx, m) %}
  {%- set t = ctx.get('dq_types') or dataplex_dq.metrics_column_types() -%}
  {%- set s, b, d, bool = t.string, t.bigint, t.double, t.boolean -%}
  {#- the row's texts as string literals (string_literal, written in place: ~12 per rule) -#}
  {%- set open, table = t.open, t.table -%}
  {%- set row_filter = ctx.declared_row_filter if 'declared_row_filter' in ctx else ctx.row_filter -%}
  {%- set incremental = ctx.get('incremental') -%}
  {%- set texts = [invocation_id, ctx.test_unique_id, ctx.source_unique_id, rule.name, rule.rule_type,
                   rule.column or none, rule.dimension or none,
                   tojson(dataplex_dq.rule_proto_dict(rule)),
                   tojson(dataplex_dq.string_map(rule.attributes)) if rule.attributes else none,
                   tojson(dataplex_dq.debug_queries_sql(rule, ctx)) if rule.debug_queries else none,
                   row_filter or none,
                   incremental.field if incremental else none,
                   incremental.start if incremental else none,
                   incremental.end if incremental else none] -%}
  {%- set lits = [] -%}
  {%- for v in texts -%}{%- do lits.append("null" if v is none else open ~ (v | string).translate(table) ~ "'") -%}{%- endfor -%}
  {%- set threshold = m.get('threshold') -%}
  {%- set cols = [
      (lits[0], s, "dq_invocation_id"),
      (lits[1], s, "dq_test_unique_id"),
      (lits[2], s, "dq_data_source"),
      ((ctx.rule_index or 0), t.int, "rule_index"),
      (lits[3], s, "rule_name"),
      (lits[4], s, "rule_type"),
      (lits[5], s, "rule_column"),
      (lits[6], s, "rule_dimension"),
      ((threshold if threshold is not none else "null"), d, "rule_threshold"),
      (("true" if rule.ignore_null else "false"), bool, "rule_ignore_null"),
      (("true" if rule.suspended else "false"), bool, "rule_suspended"),
      (m.get('status'), s, "rule_status"),
      (m.get('row_count', 'null'), b, "row_count"),
      (m.get('evaluated_count', 'null'), b, "evaluated_count"),
      (m.get('passed_count', 'null'), b, "passed_count"),
      (m.get('null_count', 'null'), b, "null_count"),
      (m.get('pass_ratio', 'null'), d, "pass_ratio"),
      (m.get('passed'), bool, "passed"),
      (m.get('assertion_row_count', 'null'), b, "assertion_row_count"),
      (m.get('statistic_value', 'null'), d, "statistic_value"),
      (m.get('failing_rows_query', 'null'), s, "failing_rows_query"),
      (lits[7], s, "rule_spec"),
      (lits[8], s, "rule_attributes"),
      (lits[9], s, "debug_queries_sql"),
      (lits[10], s, "scope_row_filter"),
      ((ctx.sampling_percent if ctx.sampling_percent else "null"), d, "scope_sampling_percent"),
      (t.now, none, "evaluated_at"),
      (lits[11], s, "incremental_field"),
      (lits[12], s, "incremental_start"),
      (lits[13], s, "incremental_end"),
      (m.get('statistic_value_text', 'null'), s, "statistic_value_text"),
  ] -%}
  {{ return(cols) }}
{% endmacro %}

{#- What every rule's metrics columns share on this warehouse, read once per query (a scan's rules
    share one, as ctx.dq_types): the type names, the string literal's opening quote and escapes
    (string_literal_escapes) and the evaluation timestamp's SQL. -#}
{% macro metrics_column_types() %}
  {%- set e = adapter.dispatch('string_literal_escapes', 'dataplex_dq')() -%}
  {{ return({'string': dbt.type_string(), 'bigint': dbt.type_bigint(), 'double': adapter.dispatch('type_double', 'dataplex_dq')(),
             'boolean': dbt.type_boolean(), 'int': dbt.type_int(), 'open': e.open, 'table': e.table,
             'now': adapter.dispatch('current_timestamp_utc', 'dataplex_dq')()}) }}
{% endmacro %}

{#- The rule as declared, as a google.cloud.dataplex.v1.DataQualityRule in proto JSON (snake_case
    field names), so the post-hook can parse it with json_format without re-deriving anything. -#}
{% macro rule_proto_dict(rule) %}
  {%- set d = {'name': rule.name} -%}
  {%- if rule.description -%}{%- do d.update({'description': rule.description | string}) -%}{%- endif -%}
  {%- if rule.column -%}{%- do d.update({'column': rule.column}) -%}{%- endif -%}
  {%- if rule.dimension -%}{%- do d.update({'dimension': rule.dimension}) -%}{%- endif -%}
  {%- if rule.threshold -%}{%- do d.update({'threshold': rule.threshold}) -%}{%- endif -%}
  {%- if rule.ignore_null -%}{%- do d.update({'ignore_null': true}) -%}{%- endif -%}
  {%- if rule.suspended -%}{%- do d.update({'suspended': true}) -%}{%- endif -%}
  {%- set params = {} -%}
  {%- for key, value in rule.params.items() -%}
    {%- if value is not none and value is not false -%}{%- do params.update({key: value}) -%}{%- endif -%}
  {%- endfor -%}
  {%- do d.update({rule.rule_type: params}) -%}
  {%- if rule.debug_queries -%}
    {%- set dqs = [] -%}
    {%- for q in rule.debug_queries -%}
      {%- set item = {'sql_statement': q.get('sql_statement', q.get('sqlStatement'))} -%}
      {%- if q.get('description') -%}{%- do item.update({'description': q.get('description')}) -%}{%- endif -%}
      {%- do dqs.append(item) -%}
    {%- endfor -%}
    {%- do d.update({'debug_queries': dqs}) -%}
  {%- endif -%}
  {{ return(d) }}
{% endmacro %}

{#- The debug queries of a rule, ready to run: `${data()}` expanded over the rule's scope. -#}
{% macro debug_queries_sql(rule, ctx) %}
  {%- set out = [] -%}
  {%- for q in rule.debug_queries or [] -%}
    {%- set stmt = q.get('sql_statement', q.get('sqlStatement')) -%}
    {%- set scope_sql = dataplex_dq.standalone_scope_select(ctx, (stmt | string).count('${data()}')) -%}
    {%- do out.append({'description': q.get('description'), 'sql_statement': dataplex_dq.expand_data_reference(stmt, scope_sql)}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- A rule's `attributes` as the string map the proto and the export hold: numbers and booleans as
    text (true -> "true"), null as "". -#}
{% macro string_map(mapping) %}
  {%- set out = {} -%}
  {%- for key, value in (mapping or {}).items() -%}
    {%- do out.update({key | string: '' if value is none else dataplex_dq._hook_text(value)}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
