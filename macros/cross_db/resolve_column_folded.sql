{% macro default__resolve_column_folded(name, names) %}
  {#- PostgreSQL (and the SQL standard's lower-case folders): an unquoted name is folded to lower
      case, so `AMOUNT` is the column amount, but nothing reaches a column created as "InvoiceNo"
      except that exact spelling. -#}
  {%- set folded = name | lower -%}
  {{ return(folded if folded in names else none) }}
{% endmacro %}

{% macro duckdb__resolve_column_folded(name, names) %}
  {#- DuckDB matches column names case-insensitively. -#}
  {%- for n in names -%}{%- if (n | lower) == (name | lower) -%}{{ return(n) }}{%- endif -%}{%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{% macro bigquery__resolve_column_folded(name, names) %}
  {#- BigQuery column names are case-insensitive. -#}
  {{ return(dataplex_dq.duckdb__resolve_column_folded(name, names)) }}
{% endmacro %}
