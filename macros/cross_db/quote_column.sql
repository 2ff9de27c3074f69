{#- A column name from YAML as a quoted identifier: its quotes (if any) removed, then quoted with
    the quote character inside escaped (adapter.quote does not escape it). -#}
{% macro quote_column(name) %}{{ return(adapter.dispatch('quote_column', 'dataplex_dq')(dataplex_dq.unquoted_column(name))) }}{% endmacro %}

{% macro default__quote_column(name) %}{{ return('"' ~ name.replace('"', '""') ~ '"') }}{% endmacro %}

{% macro bigquery__quote_column(name) %}
  {#- GoogleSQL quoted identifiers take backslash escapes, like its string literals. -#}
  {{ return('`' ~ name.replace('\\', '\\\\').replace('`', '\\`') ~ '`') }}
{% endmacro %}
