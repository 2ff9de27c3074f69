{#- The registry of rule types: every fact about a rule type that validation, the fused scan
    (macros/scan.sql), the per-rule tests (macros/rule_test.sql) and the metrics SQL
    (macros/metrics.sql) need, written once. The Python side derives the same facts from the proto's
    descriptor (python/dataplex_dq/); the SQL of each rule type lives in macros/rules/<rule_type>.sql.

    Per rule type (the key is the proto's field name in the DataQualityRule `rule_type` oneof, in
    snake_case; the order is the order in which a declared rule's keys are looked up):
      params           the rule-type fields it takes (proto snake_case names), in proto order
      row_level        true: evaluated per row, scored by pass ratio against `threshold`;
                       false: an aggregate that passes or fails as a whole
      ignore_null      whether `ignore_null` is allowed
      needs_column     whether the rule must name a column
      display_name     Dataplex's display name of the rule type (the results table's rule_type)
      evaluation_type  Dataplex's evaluation type (the results table's rule_evaluation_type) -#}
{% macro rule_types() %}
  {#- one JSON text, not a Jinja dict literal: dbt compiles a string constant ~40x faster than the
      same mapping written as Jinja code (issue 32 item 1) -#}
  {{ return(fromjson('{
      "range_expectation": {"params": ["min_value", "max_value", "strict_min_enabled", "strict_max_enabled"], "row_level": true, "ignore_null": true, "needs_column": true, "display_name": "Range Check", "evaluation_type": "Per row"},
      "non_null_expectation": {"params": [], "row_level": true, "ignore_null": false, "needs_column": true, "display_name": "Null check", "evaluation_type": "Per row"},
      "set_expectation": {"params": ["values"], "row_level": true, "ignore_null": true, "needs_column": true, "display_name": "Set check", "evaluation_type": "Per row"},
      "regex_expectation": {"params": ["regex"], "row_level": true, "ignore_null": true, "needs_column": true, "display_name": "Regular expression check", "evaluation_type": "Per row"},
      "uniqueness_expectation": {"params": [], "row_level": true, "ignore_null": true, "needs_column": true, "display_name": "Uniqueness Check", "evaluation_type": "Per row"},
      "statistic_range_expectation": {"params": ["statistic", "min_value", "max_value", "strict_min_enabled", "strict_max_enabled"], "row_level": false, "ignore_null": false, "needs_column": true, "display_name": "Statistic check", "evaluation_type": "Aggregate"},
      "row_condition_expectation": {"params": ["sql_expression"], "row_level": true, "ignore_null": false, "needs_column": false, "display_name": "Row condition", "evaluation_type": "Per row"},
      "table_condition_expectation": {"params": ["sql_expression"], "row_level": false, "ignore_null": false, "needs_column": false, "display_name": "Table condition", "evaluation_type": "Aggregate"},
      "sql_assertion": {"params": ["sql_statement"], "row_level": false, "ignore_null": false, "needs_column": false, "display_name": "SQL assertion", "evaluation_type": "Aggregate"},
      "template_reference": {"params": ["name", "values"], "row_level": false, "ignore_null": false, "needs_column": false, "display_name": "Template reference", "evaluation_type": "Aggregate"}
  }')) }}
{% endmacro %}

{#- The facts of one rule type (an unknown type is a compiler error, never a silent default). -#}
{% macro rule_type_facts(rule_type) %}
  {%- set types = dataplex_dq.rule_types() -%}
  {%- set facts = types.get(rule_type) -%}
  {%- if facts is none -%}
    {{ exceptions.raise_compiler_error("dataplex_dq: unknown rule type '" ~ rule_type ~ "'; known: " ~ (types.keys() | join(', '))) }}
  {%- endif -%}
  {{ return(facts) }}
{% endmacro %}

{#- Lists read from the registry, under the names the rest of the package uses. -#}
{% macro rule_types_where(fact) %}
  {%- set out = [] -%}
  {%- for rule_type, facts in dataplex_dq.rule_types().items() if facts[fact] -%}{%- do out.append(rule_type) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}
{% macro row_level_rule_types() %}{{ return(dataplex_dq.rule_types_where('row_level')) }}{% endmacro %}
{% macro ignore_null_rule_types() %}{{ return(dataplex_dq.rule_types_where('ignore_null')) }}{% endmacro %}
{% macro column_rule_types() %}{{ return(dataplex_dq.rule_types_where('needs_column')) }}{% endmacro %}

{#- The SQL of a rule type, one macro per piece, in macros/rules/<rule_type>.sql:
      <rule_type>_predicate(rule, column_sql, data_type, data_sql)  row-level: TRUE when a row passes
      <rule_type>_counts(rule, ctx, column_sql, null_count, data_sql)
                        the per-rule test's aggregates: {ctes: [...], from: ...} after the CTE dq_scope
      <rule_type>_scan(rule, ctx, column_sql, data_sql, scan)
                        its contribution to the fused data_quality_scan: registers its aggregates in
                        `scan` (macros/scan.sql) and returns their names {passed_count: ..., ...}
      <rule_type>_metrics(rule, ctx, refs, column_sql)
                        the metrics expressions (macros/metrics.sql, rule_metrics_exprs) over `refs`
      <rule_type>_failing_rows(rule, ctx, column_sql)  row-level: the failing-rows query
    A row-level rule type that defines only its predicate gets the rest from the row-level builders,
    row_level_<piece> in macros/rules/_row_level.sql (as dbt-expectations' _generalized/). This returns
    the macro to call. -#}
{% macro rule_sql(rule_type, piece) %}
  {%- set pieces = dataplex_dq.rule_sql_pieces(rule_type) -%}
  {%- if piece in pieces -%}{{ return(pieces[piece]) }}{%- endif -%}
  {{ exceptions.raise_compiler_error("dataplex_dq: rule type " ~ rule_type ~ " has no SQL for '" ~ piece ~ "' (macros/rules/" ~ rule_type ~ ".sql)") }}
{% endmacro %}

{#- Every piece of a rule type's SQL at once: {piece: macro} for the pieces it has (predicate, counts,
    scan, metrics, failing_rows), found as rule_sql describes. A rule's SQL is built from 3 or 4 pieces,
    and each macro call costs dbt a copy of the node's context: the per-rule test and the scan resolve
    them once per rule and keep them in the rule's ctx as `dq_sql`, which the pieces' callers read in
    place (falling back to rule_sql, which names a missing piece). -#}
{% macro rule_sql_pieces(rule_type) %}
  {%- set pieces = {} -%}
  {%- set get = dataplex_dq.get -%}
  {%- set row_level = {} -%}  {#- the registry read once, when a piece is missing -#}
  {%- for piece in ['predicate', 'counts', 'scan', 'metrics', 'failing_rows'] -%}
    {%- set own = get(rule_type ~ '_' ~ piece) -%}
    {%- if own is not none -%}{%- do pieces.update({piece: own}) -%}
    {%- elif get('row_level_' ~ piece) is not none -%}
      {%- if 'v' not in row_level -%}{%- do row_level.update({'v': dataplex_dq.rule_type_facts(rule_type).row_level}) -%}{%- endif -%}
      {%- if row_level.v -%}{%- do pieces.update({piece: get('row_level_' ~ piece)}) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(pieces) }}
{% endmacro %}
