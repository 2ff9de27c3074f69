{#- A FROM item named dq_rules with one integer column rule_index holding 0 .. n-1. -#}
{% macro scan_rule_index_list(n) %}{{ return(adapter.dispatch('scan_rule_index_list', 'dataplex_dq')(n)) }}{% endmacro %}

{% macro default__scan_rule_index_list(n) -%}
  {%- set rows = [] -%}
  {%- for i in range(n) -%}{%- do rows.append("(" ~ i ~ ")") -%}{%- endfor -%}
  {{- return("(values " ~ (rows | join(", ")) ~ ") as dq_rules (rule_index)") -}}
{%- endmacro %}

{% macro duckdb__scan_rule_index_list(n) -%}
  {{- return("(select cast(range as integer) as rule_index from range(" ~ n ~ ")) as dq_rules") -}}
{%- endmacro %}

{% macro bigquery__scan_rule_index_list(n) -%}
  {{- return("(select rule_index from unnest(generate_array(0, " ~ (n - 1) ~ ")) as rule_index) as dq_rules") -}}
{%- endmacro %}
