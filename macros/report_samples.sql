{#- The failing-row sample queries (the HTML report's and the alerts'), rendered in one call (outputs/html_data.py,
    fetch_samples; docs/SEMANTICS.md §15). Per item: at most N rows of its `query` (a rule's failing-rows query);
    with `columns` (a wide data source: the columns shown, each a name the query returns) only those; with `mask`
    (meta.dataplex_dq.sample_mask: column names, matched ignoring case) every column is listed, the masked ones as
    the literal '***', so their values never leave the warehouse. A masked item without `columns` lists its data
    source's columns (`relation`: database, schema, identifier); when they cannot be listed it gets no query and
    an `error`. N is the var `dataplex_dq_sample_rows` (default 10, 1 to 1000).
    Returns {'max_rows': N, 'samples': [{'sql': ..., 'error': ...}, ...]}, one per item in order. -#}
{% macro sample_rows_sqls(items) %}
  {%- set max_rows = dataplex_dq.sample_rows_limit() -%}
  {%- set out = [] -%}
  {%- set quoted = {} -%}
  {%- set listed = {} -%}
  {%- for item in items -%}
    {%- set mask = [] -%}
    {%- for m in (item.mask or []) -%}{%- do mask.append(m | lower) -%}{%- endfor -%}
    {%- set cols = item.columns or [] -%}
    {%- set error = [] -%}
    {%- if mask and not cols -%}
      {%- set rel = item.relation or {} -%}
      {%- set key = [rel.database, rel.schema, rel.identifier] | join('.') -%}
      {%- if key not in listed -%}
        {%- set names = [] -%}
        {%- if rel.identifier -%}
          {%- for c in adapter.get_columns_in_relation(api.Relation.create(database=rel.database, schema=rel.schema, identifier=rel.identifier)) -%}
            {%- do names.append(c.name) -%}
          {%- endfor -%}
        {%- endif -%}
        {%- do listed.update({key: names}) -%}
      {%- endif -%}
      {%- set cols = listed[key] -%}
      {%- if not cols -%}
        {%- do error.append("the columns of " ~ key ~ " could not be listed to mask " ~ (item.mask | join(", ")) ~ "; no sample taken") -%}
      {%- endif -%}
    {%- endif -%}
    {%- if error -%}
      {%- do out.append({'sql': none, 'error': error[0]}) -%}
    {%- elif cols -%}
      {%- set select = [] -%}
      {%- for c in cols -%}
        {%- if c not in quoted -%}{%- do quoted.update({c: dataplex_dq.quote_column(c)}) -%}{%- endif -%}
        {%- if (c | lower) in mask -%}
          {%- do select.append("'***' as " ~ quoted[c]) -%}
        {%- else -%}
          {%- do select.append("dq_sample." ~ quoted[c]) -%}
        {%- endif -%}
      {%- endfor -%}
      {%- do out.append({'sql': "select " ~ (select | join(", ")) ~ " from (\n" ~ item.query ~ "\n) as dq_sample\nlimit " ~ max_rows, 'error': none}) -%}
    {%- else -%}
      {%- do out.append({'sql': dataplex_dq.sample_rows_sql(item.query, max_rows), 'error': none}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'max_rows': max_rows, 'samples': out}) }}
{% endmacro %}

{#- N, the failing rows a sample shows: the var `dataplex_dq_sample_rows` (a whole number from 1 to 1000, default 10). -#}
{% macro sample_rows_limit() %}
  {%- set given = var('dataplex_dq_sample_rows', 10) -%}
  {%- set text = given | string -%}
  {%- if given is boolean or not (text | trim).isdigit() or (text | int) < 1 or (text | int) > 1000 -%}
    {%- do exceptions.raise_compiler_error("var dataplex_dq_sample_rows must be a whole number from 1 to 1000, got " ~ (given | tojson)) -%}
  {%- endif -%}
  {{ return(text | int) }}
{% endmacro %}
