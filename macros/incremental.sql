{#- Incremental scans (docs/SEMANTICS.md §12). With `incremental_field` (meta.dataplex_dq or the scan's arguments,
    snake_case or camelCase) a job scans only the rows with

        prev_end - incremental_lookback  <  field  <=  max(field)

    where prev_end is job_quality_result.incremental_end of the last successful job of this data source
    in the results table (a job none of whose rules errored or was skipped), read while dbt compiles the
    test, i.e. when the test runs. The first job (no such row, or no results table yet) scans every row
    up to max(field). The watermark never moves backwards: when max(field) is below prev_end (rows
    deleted) the window is empty and its end stays prev_end. Rows whose field is NULL are in no window.

    The window is one more WHERE predicate after the row filter, so the scope stays "row filter, then
    window, then sampling" (docs/SEMANTICS.md §4) through scope_select, and `${data()}`, failing-rows and debug
    queries (built from the same scope) see exactly the increment, with the window's bounds as literals
    (a failing-rows query run next week still returns this job's rows).

    The metrics row carries the window (incremental_field, incremental_start, incremental_end: the
    bounds as text, start exclusive / NULL on a first job, end inclusive); the post-hook reports it in
    ScannedData.incremental_field and job_quality_result.incremental_start/end. -#}

{#- A scan-level setting given under its snake_case or camelCase key. -#}
{% macro setting_value(settings, key) %}
  {%- if settings is not mapping -%}{{ return(none) }}{%- endif -%}
  {%- set v = settings.get(key) -%}
  {{ return(v if v is not none else settings.get(dataplex_dq.camel_case(key))) }}
{% endmacro %}

{#- The lookback as (count, unit) with unit one of second, minute, hour, day; none when unset.
    Accepts "2 days", "6 hours", "30 minutes", "1 week", "90 seconds" (singular or plural). -#}
{% macro parse_lookback(value, where) %}
  {%- if value is none or value == '' -%}{{ return(none) }}{%- endif -%}
  {%- set m = modules.re.match('^\\s*([0-9]+)\\s*(second|minute|hour|day|week)s?\\s*$', (value | string) | lower) -%}
  {%- if not m or value is boolean -%}
    {{ dataplex_dq.raise_rule_error(where, 'incremental_lookback', "must be an interval like '2 days', '6 hours', '30 minutes' or '1 week', got " ~ value) }}
  {%- endif -%}
  {%- set n = m.group(1) | int -%}
  {%- if m.group(2) == 'week' -%}{{ return((n * 7, 'day')) }}{%- endif -%}
  {{ return((n, m.group(2))) }}
{% endmacro %}

{#- Where the post-hook writes the results table: the package's dataplex_dq_results model when the
    project has it, else <target schema>.dataplex_dq_results (as python/dataplex_dq/run/report.py). -#}
{% macro results_relation_for_watermark() %}
  {%- set node = graph.nodes.get('model.dataplex_dq.dataplex_dq_results') -%}
  {%- if node -%}
    {{ return(adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias or node.name)) }}
  {%- endif -%}
  {{ return(adapter.get_relation(database=target.database, schema=target.schema, identifier='dataplex_dq_results')) }}
{% endmacro %}

{#- incremental_end of the last successful job of `source_unique_id` (text), or none. -#}
{% macro previous_incremental_end(source_unique_id) %}
  {%- set results = dataplex_dq.results_relation_for_watermark() -%}
  {%- if results is none -%}{{ return(none) }}{%- endif -%}
  {%- set end_expr = dataplex_dq.struct_field('job_quality_result', 'incremental_end') -%}
  {%- set uid = dataplex_dq.string_literal(source_unique_id) -%}
  {%- set sql -%}
    select {{ end_expr }} as incremental_end
    from {{ results }}
    where dbt_node_unique_id = {{ uid }}
      and {{ end_expr }} is not null
      and data_quality_job_id not in (
        select data_quality_job_id from {{ results }}
        where dbt_node_unique_id = {{ uid }} and rule_status in ('ERROR', 'SKIPPED')
      )
    order by job_start_time desc
    limit 1
  {%- endset -%}
  {%- set rows = run_query(sql) -%}
  {%- if rows is none or (rows.rows | length) == 0 -%}{{ return(none) }}{%- endif -%}
  {{ return(rows.rows[0][0]) }}
{% endmacro %}

{#- The window of one job, or none without incremental_field:
      {field, data_type, start (text or none), end (text or none), predicate (SQL)}.
    `types`: {column (lower case): type} of the data source, when already read. -#}
{% macro incremental_window(source_node, settings, where, types=none) %}
  {%- set field = dataplex_dq.setting_value(settings, 'incremental_field') -%}
  {%- set lookback = dataplex_dq.parse_lookback(dataplex_dq.setting_value(settings, 'incremental_lookback'), where) -%}
  {%- if field is none or field == '' -%}
    {%- if lookback is not none -%}
      {{ dataplex_dq.raise_rule_error(where, 'incremental_lookback', "is only meaningful with incremental_field") }}
    {%- endif -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if field is not string -%}
    {{ dataplex_dq.raise_rule_error(where, 'incremental_field', "must be a column name, got " ~ field) }}
  {%- endif -%}
  {%- set relation = dataplex_dq.data_source_relation(source_node) -%}
  {%- if types is none -%}{%- set types = dataplex_dq.column_types(relation) -%}{%- endif -%}
  {%- set key = field | lower -%}
  {%- if key not in types -%}
    {{ dataplex_dq.raise_rule_error(where, 'incremental_field', dataplex_dq.missing_column_message(field, relation.render(), types)) }}
  {%- endif -%}
  {%- set data_type = types[key] -%}
  {%- if not dataplex_dq.is_incremental_field_type(data_type) -%}
    {{ dataplex_dq.raise_rule_error(where, 'incremental_field', "column '" ~ field ~ "' is " ~ data_type ~ "; an incremental field must be a DATE or TIMESTAMP column" ~ (" (or DATETIME)" if target.type == 'bigquery' else "")) }}
  {%- endif -%}
  {%- set col = adapter.quote(field) -%}
  {%- set prev_end = dataplex_dq.previous_incremental_end(source_node.unique_id) -%}

  {#- one query on the data source: the new end (never below prev_end) and the start after the lookback -#}
  {%- set prev = dataplex_dq.typed_literal(prev_end, data_type) if prev_end is not none else none -%}
  {%- set end_expr = "max(" ~ col ~ ")" if prev is none else "case when max(" ~ col ~ ") is null or max(" ~ col ~ ") < " ~ prev ~ " then " ~ prev ~ " else max(" ~ col ~ ") end" -%}
  {%- set start_expr = "cast(null as " ~ dbt.type_string() ~ ")" -%}
  {%- if prev is not none -%}
    {%- set start_expr = dataplex_dq.cast_text(dataplex_dq.incremental_minus(prev, lookback, data_type) if lookback else prev) -%}
  {%- endif -%}
  {%- set sql = "select " ~ dataplex_dq.cast_text(end_expr) ~ " as dq_end, " ~ start_expr ~ " as dq_start from " ~ relation -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- set end, start = row[0], row[1] -%}

  {%- set parts = [] -%}
  {%- if start is not none -%}{%- do parts.append(col ~ " > " ~ dataplex_dq.typed_literal(start, data_type)) -%}{%- endif -%}
  {%- if end is not none -%}
    {%- do parts.append(col ~ " <= " ~ dataplex_dq.typed_literal(end, data_type)) -%}
  {%- else -%}
    {#- no value at all in the field: an empty window -#}
    {%- do parts.append("1 = 0") -%}
  {%- endif -%}
  {{ return({'field': field, 'data_type': data_type, 'start': start, 'end': end, 'previous_end': prev_end,
             'predicate': parts | join(' and ')}) }}
{% endmacro %}

{#- The row filter a rule's scope applies: the declared row filter and the window's predicate. -#}
{% macro scope_filter_with_window(row_filter, window) %}
  {%- if window is none -%}{{ return(row_filter) }}{%- endif -%}
  {%- if row_filter -%}{{ return("(" ~ row_filter ~ ") and (" ~ window.predicate ~ ")") }}{%- endif -%}
  {{ return(window.predicate) }}
{% endmacro %}
