{#- The size of one compiled statement against the warehouse's limit. BigQuery refuses a query longer
    than 1,024,000 characters ("The query is too large"); the fused data_quality_scan of many rules
    with long expressions or value lists can get there. A compile-time error names the data source and
    how many rules to move to another data_quality_scan (or per-rule tests) on the same data source. -#}

{#- Raise a compile error when `sql`, the statement of a test with `rule_count` rules, is too long.
    The var `dataplex_dq_max_statement_chars` sets another limit (on any warehouse). -#}
{% macro check_statement_size(sql, where, rule_count) %}
  {%- set limit = var('dataplex_dq_max_statement_chars', none) or dataplex_dq.max_statement_chars() -%}
  {%- if limit is none or (sql | length) <= limit -%}{{ return('') }}{%- endif -%}
  {%- set size = sql | length -%}
  {%- set fmt = "{:,}" -%}
  {%- if rule_count > 1 -%}
    {#- rules to move so that the rest fits, at this scan's average size per rule, plus one for margin -#}
    {%- set per_rule = size / rule_count -%}
    {%- set split = [((size - limit) / per_rule) | round(0, 'ceil') | int + 1, rule_count - 1] | min -%}
    {%- set advice = "split " ~ split ~ " of its " ~ rule_count ~ " rules off into another data_quality_scan on the same data source" -%}
  {%- else -%}
    {%- set advice = "shorten the rule (its SQL expression, statement or value list)" -%}
  {%- endif -%}
  {{ dataplex_dq.raise_rule_error(where, none, "the compiled SQL is " ~ fmt.format(size) ~ " characters, more than the " ~ fmt.format(limit) ~ " a " ~ target.type ~ " statement may have; " ~ advice) }}
{% endmacro %}
