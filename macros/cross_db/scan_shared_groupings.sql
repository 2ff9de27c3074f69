{#- The groupings by one key that several rules of a scan share, so the warehouse groups by that key once:
    {keys: {quoted column: true}, assertions: {rule index: {key: quoted column, nulls_counted}}}. The
    uniqueness rules on a column and every SQL assertion whose statement is a duplicate-key statement
    on the same column (duplicate_key_assertion, macros/rules/sql_assertion.sql) then read one grouped
    count (scan_key_grouping, macros/scan.sql) instead of each grouping the table again. -#}
{% macro scan_shared_groupings(rules, ctx, strategy) %}
  {{ return(adapter.dispatch('scan_shared_groupings', 'dataplex_dq')(rules, ctx, strategy)) }}
{% endmacro %}

{#- Other warehouses: nothing shared. Their uniqueness is a window ('window' strategy), which cannot
    give a count of duplicated values without a second distinct aggregate, and the assertion stays a
    statement of its own (on BigQuery it bills its column once more either way). -#}
{% macro default__scan_shared_groupings(rules, ctx, strategy) %}{{ return({'keys': {}, 'assertions': {}}) }}{% endmacro %}

{#- DuckDB (grouped strategies only): a uniqueness count and a duplicate-key SQL assertion on `id` were
    two hash aggregates of ~N groups (10M rows: ~0.55 s of the scan's ~3 s, perfect-hashed), where one
    grouping answers both. An assertion is answered from the scan's grouping only when its statement
    provably has the same rows: the exact shape of duplicate_key_assertion, its key a column of the data
    source, and its relation either `${data()}` (the scan's own scope, whatever the row filter, sampling
    or incremental window) or a name that binds to the data source itself while the scope is the whole
    relation (no row filter, sampling or window; duckdb_names_relation). Anything else runs as written.
    A key is shared when at least two rules need it (uniqueness rules on one column count once). -#}
{% macro duckdb__scan_shared_groupings(rules, ctx, strategy) %}
  {%- set out = {'keys': {}, 'assertions': {}} -%}
  {%- if not execute or strategy not in ['grouped', 'grouped_one_scan'] -%}{{ return(out) }}{%- endif -%}
  {%- set candidates = [] -%}
  {%- for rule in rules -%}  {#- (no loop filter: loop.index0 is the rule index) -#}
    {%- if rule.rule_type == 'sql_assertion' and not rule.suspended -%}
      {%- set shape = dataplex_dq.duplicate_key_assertion(rule.params.sql_statement) -%}
      {%- if shape is not none -%}{%- do candidates.append((loop.index0, shape)) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if (candidates | length) == 0 -%}{{ return(out) }}{%- endif -%}
  {%- set types = ctx.get('column_types') -%}
  {%- if types is none and ctx.get('source_node') is not none -%}
    {%- set types = dataplex_dq.cached_column_types(ctx.source_node) -%}
  {%- endif -%}
  {%- if not types or ctx.get('source_node') is none -%}{{ return(out) }}{%- endif -%}
  {%- set relation = dataplex_dq.data_source_relation(ctx.source_node) -%}
  {%- set sampled = ctx.sampling_percent and ctx.sampling_percent < 100 -%}
  {%- set whole_relation = not ctx.row_filter and not sampled and (ctx.from_sql | string) == (relation | string) -%}
  {%- set consumers = {} -%}
  {%- for rule in rules if rule.rule_type == 'uniqueness_expectation' and not rule.suspended -%}
    {%- do consumers.update({dataplex_dq.column_sql(rule): 1}) -%}
  {%- endfor -%}
  {%- set found = {} -%}
  {%- for index, shape in candidates -%}
    {%- set column = dataplex_dq.resolve_column(shape.column, types.keys() | list) -%}
    {%- if column is not none and (shape.source == 'data' or (whole_relation and dataplex_dq.duckdb_names_relation(shape.source, relation))) -%}
      {%- set key = dataplex_dq.quote_column(column) -%}
      {%- do found.update({index: {'key': key, 'nulls_counted': shape.nulls_counted}}) -%}
      {%- do consumers.update({key: (consumers.get(key) or 0) + 1}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for key, n in consumers.items() if n > 1 -%}{%- do out['keys'].update({key: true}) -%}{%- endfor -%}
  {%- for index, shared in found.items() if shared.key in out['keys'] -%}{%- do out['assertions'].update({index: shared}) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}
