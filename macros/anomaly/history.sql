{#- Anomaly history and verdict tables (docs/SEMANTICS.md §13) and the warehouse differences they need.

    Four tables in the target schema (names in anomaly_relations), created when missing:
      dataplex_dq_anomaly_volume, dataplex_dq_anomaly_freshness, dataplex_dq_anomaly_data
          history, one row per data source, check and bucket (mode 'bucket': computed from the data
          over the training window at every run, replacing the window's rows) or per job (mode 'job':
          the run's own measurement, keyed by the dbt invocation id);
      dataplex_dq_anomaly_results
          one verdict per check and job: value, expected, lower and upper bound, training, anomalous.
    Every write is delete-then-insert on its key, so re-running an invocation adds nothing. -#}

{% macro anomaly_relations() %}
  {%- set out = {} -%}
  {%- for kind, name in [('volume', 'dataplex_dq_anomaly_volume'), ('freshness', 'dataplex_dq_anomaly_freshness'),
                         ('data', 'dataplex_dq_anomaly_data'), ('result', 'dataplex_dq_anomaly_results')] -%}
    {%- do out.update({kind: api.Relation.create(database=target.get('database'), schema=target.schema, identifier=name)}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- PROJECT_ID.DATASET_ID.TABLE_ID, as the proto's AnomalyDetectionGeneratedAssets spells names. -#}
{% macro anomaly_asset_name(relation) %}
  {{ return([relation.database, relation.schema, relation.identifier] | select | join('.')) }}
{% endmacro %}

{% macro anomaly_history_columns() %}
  {%- set s = dbt.type_string() -%}
  {{ return([('data_source', s), ('check_name', s), ('column_name', s), ('metric', s), ('mode', s), ('time_bucket', s),
             ('t', dbt.type_bigint()), ('season', dbt.type_int()), ('bucket_start', dbt.type_timestamp()),
             ('value', dataplex_dq.type_double()), ('dq_invocation_id', s), ('dq_test_unique_id', s),
             ('measured_at', dbt.type_timestamp())]) }}
{% endmacro %}

{% macro anomaly_result_columns() %}
  {%- set s = dbt.type_string() -%}
  {%- set d = dataplex_dq.type_double() -%}
  {{ return([('data_source', s), ('dq_test_unique_id', s), ('dq_invocation_id', s), ('rule_index', dbt.type_int()),
             ('check_name', s), ('check_kind', s), ('column_name', s), ('metric', s), ('mode', s), ('time_bucket', s),
             ('t', dbt.type_bigint()), ('bucket_start', dbt.type_timestamp()), ('value', d), ('expected', d),
             ('lower_bound', d), ('upper_bound', d), ('training_count', dbt.type_bigint()), ('training', dbt.type_boolean()),
             ('anomalous', dbt.type_boolean()), ('seasonal', dbt.type_boolean()), ('sensitivity', d),
             ('evaluated_at', dbt.type_timestamp()), ('seasonality', s), ('drift', dbt.type_boolean()),
             ('level_shift', d), ('shift_start', dbt.type_bigint())]) }}
{% endmacro %}

{#- Create the tables that do not exist yet (the on-run-start hook creates them all; this covers a run
    without it). -#}
{% macro anomaly_ensure_tables(relations) %}
  {%- for kind, relation in relations.items() -%}
    {%- set cols = dataplex_dq.anomaly_result_columns() if kind == 'result' else dataplex_dq.anomaly_history_columns() -%}
    {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}
      {%- set defs = [] -%}
      {%- for name, type in cols -%}{%- do defs.append(name ~ ' ' ~ type) -%}{%- endfor -%}
      {%- for statement in dataplex_dq.anomaly_create_table_sql(relation, defs, kind) -%}{%- do run_query(statement) -%}{%- endfor -%}
      {#- dbt's relation cache, read by get_relation, holds the schema's relations as they were when the run
          started: the tests running after this hook would not see the new table and create it again, in
          parallel threads (a race on the BigQuery emulator's catalog). Tell the cache, when it holds the schema
          (get_relation answers from it and does not see the table); otherwise get_relation asks the warehouse. -#}
      {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}
        {%- do adapter.cache_added(relation.incorporate(type='table')) -%}
      {%- endif -%}
    {%- elif kind == 'result' -%}
      {#- a result table of an older version of the package: the verdict columns added since, committed at once
          (tests running in parallel threads would otherwise race to add them) -#}
      {%- set existing = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
      {%- set missing = [] -%}
      {%- for name, type in cols if name not in existing -%}{%- do missing.append(name ~ " " ~ type) -%}{%- endfor -%}
      {%- if missing -%}
        {%- do dataplex_dq.hook_begin() -%}
        {%- for column in missing -%}
          {%- do run_query("alter table " ~ relation ~ " add column " ~ column) -%}
        {%- endfor -%}
        {%- do dataplex_dq.hook_commit() -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- The history of a detector (series_id, t, season, value: `history_sql`) with what the verdicts already
    given (`verdicts_sql`: series_id, t, value, expected, anomalous, level_shift, shift_start; one per
    series and t) say about it, the columns the detector reads (macros/anomaly/detector.sql):
      dq_excluded  the bucket was judged anomalous and is not part of an accepted new level: training leaves
                   it out, so one bad bucket does not widen the band of the buckets after it;
      dq_side      the side of that anomaly (1 above, -1 below, 0 none, accepted or marked): two on one side in
                   a row confirm a level shift (a marked incident or holiday is no new level);
      dq_shift     the sum of the level shifts accepted after the bucket (in the model's scale): the old level
                   moved onto the new one, so the model learns from the whole window at once;
      dq_segment   the number of level shifts accepted up to the bucket (the level test compares buckets of one);
      dq_anomalous the bucket was judged anomalous (accepted into a new level or not: a level shift's two buckets
                   are, the return that undoes one is not; detector.sql step 9);
      dq_judged    a verdict was given on the bucket (an outlier among the buckets without one, older than the
                   first run, is not left out: the level test caps changes against them). -#}
{#- `excluded_t`: buckets (t) marked by the user as incidents or holidays, left out of training too. -#}
{% macro anomaly_judged_history_sql(history_sql, verdicts_sql, excluded_t=[]) %}
  {%- set covered = "max(case when s.shift_start <= h.t and h.t <= s.t then 1 else 0 end)" -%}
  {%- set anomalous = "coalesce(max(r.judged), 0) = 1" -%}
  {%- set or_marked = (' or h.t in (' ~ (excluded_t | join(', ')) ~ ')') if excluded_t else '' -%}
  {%- set sql -%}
select h.series_id, h.t, h.season, h.value,
  (({{ anomalous }} and {{ covered }} = 0){{ or_marked }}) as dq_excluded,
  case when {{ covered }} = 1{{ or_marked }} then 0 else coalesce(max(r.side), 0) end as dq_side,
  coalesce(sum(case when s.shift_start > h.t then s.level_shift end), 0) as dq_shift,
  sum(case when s.shift_start <= h.t then 1 else 0 end) as dq_segment,
  max(case when r.series_id is not null then 1 else 0 end) = 1 as dq_judged,
  {{ anomalous }} as dq_anomalous
from ({{ history_sql }}) h
left join (
  select series_id, t, max(case when anomalous then 1 else 0 end) as judged,
    max(case when not anomalous then 0 when value > expected then 1 when value < expected then -1 else 0 end) as side
  from ({{ verdicts_sql }}) dq_v0 group by series_id, t
) r on r.series_id = h.series_id and r.t = h.t
left join (select series_id, t, shift_start, level_shift from ({{ verdicts_sql }}) dq_v1 where level_shift is not null) s
  on s.series_id = h.series_id
group by h.series_id, h.t, h.season, h.value
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- A timestamp literal from a Python datetime (UTC). -#}
{% macro anomaly_timestamp_literal(dt) %}
  {{ return("cast(" ~ dataplex_dq.string_literal(dt.strftime('%Y-%m-%d %H:%M:%S')) ~ " as timestamp)") }}
{% endmacro %}

{#- One data metric of a column over a group of rows, as a double (SQL is the same everywhere except
    the text cast). -#}
{% macro anomaly_metric_sql(metric, col) %}
  {%- set d = dataplex_dq.type_double() -%}
  {%- set exprs = {
      'null_fraction': "avg(case when " ~ col ~ " is null then 1.0 else 0.0 end)",
      'distinct_fraction': "case when count(*) = 0 then null else count(distinct " ~ col ~ ") * 1.0 / count(*) end",
      'mean': "avg(cast(" ~ col ~ " as " ~ d ~ "))",
      'min': "min(cast(" ~ col ~ " as " ~ d ~ "))",
      'max': "max(cast(" ~ col ~ " as " ~ d ~ "))",
      'stddev': "stddev_samp(cast(" ~ col ~ " as " ~ d ~ "))",
      'average_length': "avg(cast(length(" ~ dataplex_dq.cast_text(col) ~ ") as " ~ d ~ "))",
      'zero_fraction': "avg(case when " ~ col ~ " = 0 then 1.0 else 0.0 end)",
  } -%}
  {{ return("cast(" ~ exprs[metric] ~ " as " ~ d ~ ")") }}
{% endmacro %}

{#- on-run-start (dbt_project.yml): create the four tables once, before any test runs, when the project
    has anomaly checks; tests running in parallel threads would otherwise race to create them. -#}
{% macro anomaly_on_run_start() %}
  {%- if not dataplex_dq.anomaly_is_run() -%}{{ return('') }}{%- endif -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() | selectattr('resource_type', 'equalto', 'test') -%}
    {%- set meta = node.get('test_metadata') or {} -%}
    {%- if meta.get('namespace') == 'dataplex_dq' and meta.get('name') == 'anomaly_detection' -%}
      {%- do found.append(node.unique_id) -%}
    {%- elif meta.get('namespace') == 'dataplex_dq' and meta.get('name') == 'data_quality_scan' -%}
      {#- a scan has anomaly checks when it or its data source's meta declares anomaly_detection
          (scan_with_anomaly_checks): only then are the tables needed -#}
      {%- set kwargs = meta.get('kwargs') or {} -%}
      {%- set source = graph.nodes.get(node.get('attached_node')) or graph.sources.get(node.get('attached_node')) or {} -%}
      {%- set settings = dataplex_dq.data_source_settings(source) if source else {} -%}
      {%- if kwargs.get('anomaly_detection') is not none or kwargs.get('anomalyDetection') is not none
            or settings.get('anomaly_detection') is not none or settings.get('anomalyDetection') is not none -%}
        {%- do found.append(node.unique_id) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if found | length > 0 -%}
    {%- do dataplex_dq.anomaly_ensure_tables(dataplex_dq.anomaly_relations()) -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

