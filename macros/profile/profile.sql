{#- `dataplex-dq profile` (docs/SEMANTICS.md §16): one profile of a model, seed, snapshot or source in one
    scan of its table, shaped as Dataplex's DataProfileResult (googleapis
    google/cloud/dataplex/v1/data_profile.proto: row_count, profile.fields[name, type, mode, profile
    {null_ratio, distinct_ratio, top_n_values[value, count, ratio], string_profile | integer_profile |
    double_profile}]), plus what the proto has no field for under each field's `dataplex_dq`: the counts,
    the format shares of a text column, a date or timestamp column's range. Kept, one row per field, in the
    profile table (history); Python only reads it (python/dataplex_dq/profile/). -#}

{#- The recognizable formats of a text column: name -> RE2 pattern that PostgreSQL's ARE reads the same
    (no backslash, no class shorthand). A suggestion's regex rule is the pattern stored with the share. -#}
{% macro profile_formats() %}
  {{ return({
    'email': '^[^@ ]+@[^@ ]+[.][^@ ]+$',
    'uuid': '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    'iso_date': '^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?$',
    'url': '^https?://[^ ]+$',
    'integer_text': '^[-+]?[0-9]+$',
  }) }}
{% endmacro %}

{% macro profile_table_relation() %}
  {{ return(api.Relation.create(database=target.database, schema=target.schema, identifier=var('dataplex_dq_profile_table', 'dataplex_dq_profiles'))) }}
{% endmacro %}

{#- The fields of a relation: {index, name, type, family, sql}; family is numeric, integer, datetime, text,
    boolean or other (other: only nulls and distinct values are profiled). -#}
{% macro profile_fields(relation) %}
  {%- set fields = [] -%}
  {%- for col in adapter.get_columns_in_relation(relation) -%}
    {%- set family = dataplex_dq.type_family(col.data_type) -%}
    {%- set family = {'decimal': 'numeric', 'float': 'numeric', 'date': 'datetime', 'timestamp': 'datetime'}.get(family, family) -%}
    {%- set family = family if family in ['integer', 'numeric', 'datetime', 'text', 'boolean'] else 'other' -%}
    {%- do fields.append({'index': loop.index0, 'name': col.name, 'type': col.data_type, 'family': family, 'sql': adapter.quote(col.name)}) -%}
  {%- endfor -%}
  {{ return(fields) }}
{% endmacro %}

{#- The one query of a profile: a CTE reading the (sampled) relation once, one aggregate row over it. -#}
{% macro profile_sql(relation, fields, sampling_percent, is_table) %}
  {%- set dbl = dataplex_dq.type_double() -%}
  {%- set formats = dataplex_dq.profile_formats() -%}
  {%- set columns = [] -%}
  {%- for f in fields -%}{%- do columns.append(f.sql) -%}{%- endfor -%}
  with dq_profiled as {{ dataplex_dq.scan_cte_materialized() }} (
    select {{ columns | join(', ') }} from {{ dataplex_dq.profile_sample_from(relation, sampling_percent, is_table) }}
  )
  select count(*) as dq_rows
  {%- for f in fields %}
    {%- set c = 'c' ~ f.index %}
    , count({{ f.sql }}) as {{ c }}_nn
    {%- if f.family != 'other' %}, count(distinct {{ f.sql }}) as {{ c }}_d{% endif %}
    {%- if f.family in ['integer', 'numeric', 'datetime'] %}
      {%- set num = ("cast(" ~ f.sql ~ " as " ~ dbl ~ ")") if f.family != 'datetime' else dataplex_dq.anomaly_epoch(f.sql) %}
      , min({{ num }}) as {{ c }}_min, max({{ num }}) as {{ c }}_max, avg({{ num }}) as {{ c }}_avg, stddev_samp({{ num }}) as {{ c }}_sd
      {%- for q in [0.25, 0.5, 0.75] %}, {{ dataplex_dq.profile_quantile(num, q) }} as {{ c }}_q{{ loop.index }}{% endfor %}
    {%- endif %}
    {%- if f.family == 'datetime' %}, {{ dataplex_dq.cast_text('min(' ~ f.sql ~ ')') }} as {{ c }}_mint, {{ dataplex_dq.cast_text('max(' ~ f.sql ~ ')') }} as {{ c }}_maxt{% endif %}
    {%- if f.family == 'text' %}
      , min(length({{ f.sql }})) as {{ c }}_minl, max(length({{ f.sql }})) as {{ c }}_maxl, avg(cast(length({{ f.sql }}) as {{ dbl }})) as {{ c }}_avgl
      {%- for name, pattern in formats.items() %}, sum(case when {{ dataplex_dq.regex_contains(f.sql, pattern) }} then 1 else 0 end) as {{ c }}_f_{{ name }}{% endfor %}
    {%- endif %}
    {%- if f.family in ['integer', 'datetime', 'text', 'boolean'] %}, {{ dataplex_dq.profile_top_values(f.sql, 'dq_profiled', 10) }} as {{ c }}_top{% endif %}
  {%- endfor %}
  from dq_profiled
{%- endmacro %}

{% macro profile_number(value) %}
  {{ return(none if value is none else (value | float)) }}
{% endmacro %}

{#- The DataProfileResult field of `f` from the aggregate row. -#}
{% macro profile_field_result(f, row, rows) %}
  {%- set c = 'c' ~ f.index -%}
  {%- set n = row[c ~ '_nn'] | int -%}
  {%- set info = {'null_ratio': (((rows - n) / rows) if rows else 0.0)} -%}
  {%- set ext = {'family': f.family, 'non_null_count': n} -%}
  {%- if f.family != 'other' -%}
    {%- set d = row[c ~ '_d'] | int -%}
    {%- do info.update({'distinct_ratio': ((d / rows) if rows else 0.0)}) -%}
    {%- do ext.update({'distinct_count': d}) -%}
  {%- endif -%}
  {%- if f.family in ['integer', 'numeric', 'datetime'] and n > 0 -%}
    {%- set stats = {'average': dataplex_dq.profile_number(row[c ~ '_avg']), 'standard_deviation': dataplex_dq.profile_number(row[c ~ '_sd']), 'min': dataplex_dq.profile_number(row[c ~ '_min']), 'quartiles': [dataplex_dq.profile_number(row[c ~ '_q1']), dataplex_dq.profile_number(row[c ~ '_q2']), dataplex_dq.profile_number(row[c ~ '_q3'])], 'max': dataplex_dq.profile_number(row[c ~ '_max'])} -%}
    {%- if f.family == 'integer' -%}
      {%- do stats.update({'min': stats.min | round | int, 'max': stats.max | round | int, 'quartiles': stats.quartiles | map('round') | map('int') | list}) -%}
      {%- do info.update({'integer_profile': stats}) -%}
    {%- elif f.family == 'numeric' -%}
      {%- do info.update({'double_profile': stats}) -%}
    {%- else -%}
      {#- no DataProfileResult field for dates: epoch seconds, and the bounds as the warehouse writes them -#}
      {%- do stats.update({'min_text': row[c ~ '_mint'], 'max_text': row[c ~ '_maxt']}) -%}
      {%- do ext.update({'datetime_profile': stats}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if f.family == 'text' and n > 0 -%}
    {%- do info.update({'string_profile': {'min_length': row[c ~ '_minl'] | int, 'max_length': row[c ~ '_maxl'] | int, 'average_length': dataplex_dq.profile_number(row[c ~ '_avgl'])}}) -%}
    {%- set shares = [] -%}
    {%- for name, pattern in dataplex_dq.profile_formats().items() -%}
      {%- set matched = (row[c ~ '_f_' ~ name] or 0) | int -%}
      {%- if matched > 0 -%}{%- do shares.append({'format': name, 'pattern': pattern, 'count': matched, 'ratio': matched / n}) -%}{%- endif -%}
    {%- endfor -%}
    {%- do ext.update({'formats': shares}) -%}
  {%- endif -%}
  {%- if f.family in ['integer', 'datetime', 'text', 'boolean'] and row[c ~ '_top'] is not none -%}
    {%- set top = [] -%}
    {%- for t in fromjson(row[c ~ '_top']) or [] -%}
      {%- if t['value'] is not none and top | length < 10 -%}
        {%- set value = (('true' if t['value'] else 'false') if t['value'] is sameas true or t['value'] is sameas false else (t['value'] | string)) -%}
        {%- do top.append({'value': value, 'count': t['count'] | int, 'ratio': ((t['count'] | int) / rows) if rows else 0.0}) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- do info.update({'top_n_values': top}) -%}
  {%- endif -%}
  {{ return({'name': f.name, 'type': f.type, 'mode': 'NULLABLE', 'profile': info, 'dataplex_dq': ext}) }}
{% endmacro %}

{% macro profile_create_table_sql(relation) %}
  {%- set s = dbt.type_string() -%}
  {{ return("create table if not exists " ~ relation ~ " (profile_id " ~ s ~ ", profiled_at " ~ dbt.type_timestamp() ~ ", data_source " ~ s ~ ", relation_name " ~ s ~ ", row_count " ~ dataplex_dq.type_int64() ~ ", sampling_percent " ~ dataplex_dq.type_double() ~ ", field_index " ~ dataplex_dq.type_int64() ~ ", field_name " ~ s ~ ", field_type " ~ s ~ ", field_profile " ~ s ~ ")") }}
{% endmacro %}

{#- Profile one relation and record it: the entry point `dataplex-dq profile` runs (Warehouse.macro) for each
    selected data source. Returns {result (DataProfileResult-shaped), profile_table}. -#}
{% macro profile_relation(database, schema, identifier, data_source, profile_id, sampling_percent=none, is_table=true) %}
  {%- set relation = api.Relation.create(database=database, schema=schema, identifier=identifier) -%}
  {%- set fields = dataplex_dq.profile_fields(relation) -%}
  {%- if fields | length == 0 -%}
    {{ exceptions.raise_compiler_error("no columns found for " ~ relation ~ " (" ~ data_source ~ "): is it built?") }}
  {%- endif -%}
  {%- set table = run_query(dataplex_dq.profile_sql(relation, fields, sampling_percent, is_table)) -%}
  {%- set row = table.rows[0] -%}
  {%- set rows = row['dq_rows'] | int -%}
  {%- set results = [] -%}
  {%- for f in fields -%}{%- do results.append(dataplex_dq.profile_field_result(f, row, rows)) -%}{%- endfor -%}
  {%- set store = dataplex_dq.profile_table_relation() -%}
  {%- do run_query(dataplex_dq.profile_create_table_sql(store)) -%}
  {%- do adapter.cache_added(store.incorporate(type='table')) -%}
  {%- set selects = [] -%}
  {%- set pct = ("cast(" ~ sampling_percent ~ " as " ~ dataplex_dq.type_double() ~ ")") if sampling_percent else ("cast(null as " ~ dataplex_dq.type_double() ~ ")") -%}
  {%- for r in results -%}
    {%- do selects.append("select " ~ dataplex_dq.string_literal(profile_id) ~ ", " ~ dataplex_dq.current_timestamp_utc() ~ ", " ~ dataplex_dq.string_literal(data_source) ~ ", " ~ dataplex_dq.string_literal(relation ~ '') ~ ", " ~ rows ~ ", " ~ pct ~ ", " ~ loop.index0 ~ ", " ~ dataplex_dq.string_literal(r.name) ~ ", " ~ dataplex_dq.string_literal(r.type) ~ ", " ~ dataplex_dq.string_literal(tojson(r))) -%}
  {%- endfor -%}
  {%- do run_query("insert into " ~ store ~ " (profile_id, profiled_at, data_source, relation_name, row_count, sampling_percent, field_index, field_name, field_type, field_profile) " ~ (selects | join(" union all "))) -%}
  {{ return({'result': {'row_count': rows, 'profile': {'fields': results}}, 'profile_table': store ~ ''}) }}
{% endmacro %}

{#- The last `limit` profiles of each of `data_sources` (newest first), one row per field. -#}
{% macro profile_history_sql(data_sources, limit) %}
  {%- set store = dataplex_dq.profile_table_relation() -%}
  {%- set found = adapter.get_relation(database=store.database, schema=store.schema, identifier=store.identifier) -%}
  {%- if found is none -%}{{ return(none) }}{%- endif -%}
  {%- set names = [] -%}
  {%- for d in data_sources -%}{%- do names.append(dataplex_dq.string_literal(d)) -%}{%- endfor -%}
  {{ return("select p.profile_id, " ~ dataplex_dq.cast_text('p.profiled_at') ~ " as profiled_at, p.data_source, p.row_count, p.sampling_percent, p.field_index, p.field_profile from " ~ store ~ " p join (select profile_id, data_source, rank() over (partition by data_source order by max(profiled_at) desc, profile_id desc) as dq_rank from " ~ store ~ " where data_source in (" ~ (names | join(', ')) ~ ") group by profile_id, data_source) l on p.profile_id = l.profile_id and p.data_source = l.data_source where l.dq_rank <= " ~ limit ~ " order by p.data_source, p.profiled_at desc, p.profile_id, p.field_index") }}
{% endmacro %}

{#- What a profile would read, for the command to print before it runs (macros/cross_db/profile_bytes_estimate.sql). -#}
{% macro profile_plan(database, schema, identifier, sampling_percent=none, max_bytes=none) %}
  {%- set relation = api.Relation.create(database=database, schema=schema, identifier=identifier) -%}
  {{ return(dataplex_dq.profile_bytes_estimate(relation, sampling_percent, max_bytes)) }}
{% endmacro %}
