{#- The HTML report's failing-row sample queries, rendered in one call (outputs/html_data.py, fetch_samples): per
    item, at most `max_rows` rows of its `query` (a rule's failing-rows query) as sample_rows_sql reads them; with
    `columns` (a wide data source: the columns the page shows, each a name the query returns) only those. -#}
{% macro sample_rows_sqls(items, max_rows) %}
  {%- set out = [] -%}
  {%- set quoted = {} -%}
  {%- for item in items -%}
    {%- if item.columns -%}
      {%- set cols = [] -%}
      {%- for c in item.columns -%}
        {%- if c not in quoted -%}{%- do quoted.update({c: "dq_sample." ~ dataplex_dq.quote_column(c)}) -%}{%- endif -%}
        {%- do cols.append(quoted[c]) -%}
      {%- endfor -%}
      {%- do out.append("select " ~ (cols | join(", ")) ~ " from (\n" ~ item.query ~ "\n) as dq_sample\nlimit " ~ (max_rows | int)) -%}
    {%- else -%}
      {%- do out.append(dataplex_dq.sample_rows_sql(item.query, max_rows)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
