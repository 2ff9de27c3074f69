{#- Anomaly checks (docs/SEMANTICS.md §13) as ordinary metrics rows.

    anomaly_checks_sql runs when the test that declares them executes (dbt build / test / retry):
      1. measures: with timestamp_column, each check's value per time bucket over the training window
         is computed from the data itself (so the first run has a history) and replaces those buckets
         in the check's intermediate table; without it, the run's own measurement is appended (keyed by
         the dbt invocation id);
      2. judges the latest complete bucket (or this run's measurement) with the detector
         (macros/anomaly/detector.sql) in the warehouse and writes the verdicts to the anomaly result
         table (delete + insert by invocation and test: re-running adds nothing);
      3. returns one metrics row per check (docs/ARCHITECTURE.md), built from the few verdict rows:
         a rule of the data source whose bounds are the band it was judged against
         (statistic_range_expectation for mean/min/max, table_condition_expectation otherwise),
         dimension VOLUME / FRESHNESS / the metric's, status PASSED, FAILED (anomalous) or TRAINING
         (reported, not scored), rule_attributes {anomaly_check, value, expected, bounds, tables}.
    Other commands (compile, docs), and `--empty` runs (no rows read), write nothing: the compiled SQL reads
    this run's verdicts.

    The reference time is now (UTC), or the var `dataplex_dq_anomaly_now` ('YYYY-MM-DD[ HH:MM:SS]'),
    for backfills and tests. -#}

{% macro anomaly_is_run() %}
  {{ return(dataplex_dq.records_results()) }}
{% endmacro %}

{% macro anomaly_now() %}
  {%- set given = var('dataplex_dq_anomaly_now', none) -%}
  {%- set dt = modules.datetime -%}
  {%- if given is none -%}{{ return(dt.datetime.utcnow().replace(microsecond=0)) }}{%- endif -%}
  {%- set text = given | string | trim -%}
  {%- for fmt in ['%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d'] -%}
    {%- set parsed = dataplex_dq._anomaly_parse_time(text, fmt) -%}
    {%- if parsed is not none -%}{{ return(parsed) }}{%- endif -%}
  {%- endfor -%}
  {{ exceptions.raise_compiler_error("dataplex_dq: var dataplex_dq_anomaly_now must be 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS', got '" ~ text ~ "'") }}
{% endmacro %}

{% macro _anomaly_parse_time(text, fmt) %}
  {#- strptime raises on a mismatch; check the shape first -#}
  {%- set shapes = {'%Y-%m-%d %H:%M:%S': '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', '%Y-%m-%dT%H:%M:%S': '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$', '%Y-%m-%d': '^\\d{4}-\\d{2}-\\d{2}$'} -%}
  {%- if modules.re.match(shapes[fmt], text) -%}{{ return(modules.datetime.datetime.strptime(text, fmt)) }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- Check the columns a declaration names exist and have a type its metrics can read. -#}
{% macro anomaly_validate_columns(cfg, types, where, relation_name) %}
  {%- set ts_fields = [] -%}
  {%- if cfg.timestamp_column -%}{%- do ts_fields.append(('timestamp_column', cfg.timestamp_column)) -%}{%- endif -%}
  {%- if cfg.freshness and cfg.freshness_column != cfg.timestamp_column -%}{%- do ts_fields.append(('freshness.column', cfg.freshness_column)) -%}{%- endif -%}
  {%- for field, column in ts_fields -%}
    {%- set t = types.get(column | lower) -%}
    {%- if t is none -%}
      {{ dataplex_dq.raise_rule_error(where, 'anomaly_detection.' ~ field, dataplex_dq.missing_column_message(column, relation_name, types)) }}
    {%- endif -%}
    {%- if not modules.re.match('^(date|datetime|timestamp)', t | lower) -%}
      {{ dataplex_dq.raise_rule_error(where, 'anomaly_detection.' ~ field, "column '" ~ column ~ "' is " ~ t ~ "; it must be a DATE, DATETIME or TIMESTAMP") }}
    {%- endif -%}
  {%- endfor -%}
  {%- for column in cfg.data_columns -%}
    {%- set i = loop.index0 -%}
    {%- set t = types.get(column | lower) -%}
    {%- if t is none -%}
      {{ dataplex_dq.raise_rule_error(where, 'anomaly_detection.data.columns[' ~ i ~ ']', dataplex_dq.missing_column_message(column, relation_name, types)) }}
    {%- endif -%}
  {%- endfor -%}
  {#- each metric is measured on the declared columns whose type it reads; one that reads none is an error -#}
  {%- for metric in cfg.data_metrics -%}
    {%- set readable = [] -%}
    {%- for column in cfg.data_columns -%}
      {%- if dataplex_dq.anomaly_metric_reads(metric, types.get(column | lower)) -%}{%- do readable.append(column) -%}{%- endif -%}
    {%- endfor -%}
    {%- if readable | length == 0 -%}
      {{ dataplex_dq.raise_rule_error(where, 'anomaly_detection.data.metrics[' ~ loop.index0 ~ ']', "metric " ~ metric ~ " reads " ~ ('text' if metric == 'average_length' else 'numeric') ~ " columns and none of data.columns is one (" ~ (cfg.data_columns | join(', ')) ~ ")") }}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- Whether a data metric can be measured on a column of this type. -#}
{% macro anomaly_metric_reads(metric, data_type) %}
  {%- if metric in ['mean', 'min', 'max', 'stddev', 'zero_fraction'] -%}{{ return(dataplex_dq.is_numeric_type(data_type)) }}{%- endif -%}
  {%- if metric == 'average_length' -%}{{ return(dataplex_dq.is_text_type(data_type)) }}{%- endif -%}
  {{ return(true) }}
{% endmacro %}

{#- The metrics rows (a UNION ALL of one SELECT per check) of the anomaly checks of one test.
    ctx: from_sql, row_filter, test_unique_id, source_unique_id; first_index: rule_index of the first check. -#}
{% macro anomaly_checks_sql(cfg, checks, ctx, first_index) %}
  {%- set rel = dataplex_dq.anomaly_relations() -%}
  {%- set lit = dataplex_dq.string_literal -%}
  {%- set d = dataplex_dq.type_double() -%}
  {%- set src = lit(ctx.source_unique_id) -%}
  {%- set inv = lit(invocation_id) -%}
  {%- set test = lit(ctx.test_unique_id) -%}
  {%- set mode = 'bucket' if cfg.timestamp_column else 'job' -%}
  {%- set names = [] -%}
  {%- for c in checks -%}{%- do names.append(lit(c.name)) -%}{%- endfor -%}
  {%- set read_sql = "select * from " ~ rel.result ~ " where dq_invocation_id = " ~ inv ~ " and dq_test_unique_id = " ~ test -%}
  {%- if not dataplex_dq.anomaly_is_run() -%}
    {#- compile, docs: nothing is written; the rows show every check as it would be reported untrained -#}
    {{ return(dataplex_dq.anomaly_metrics_rows(cfg, checks, ctx, first_index, none, rel, none)) }}
  {%- endif -%}

  {%- set now = dataplex_dq.anomaly_now() -%}
  {%- set epoch0 = modules.datetime.datetime(1970, 1, 1) -%}
  {%- set now_e = ((now - epoch0).total_seconds()) | int -%}
  {%- set now_sql = dataplex_dq.anomaly_timestamp_literal(now) -%}
  {%- set bs = dataplex_dq.anomaly_bucket_seconds()[cfg.time_bucket] -%}
  {%- set shift = 259200 if cfg.time_bucket == 'week' else 0 -%}   {#- weeks start on Monday; 1970-01-01 was a Thursday -#}
  {%- set n = cfg.training_buckets -%}
  {%- set scope = dataplex_dq.scope_select(ctx.from_sql, ctx.row_filter, none) -%}
  {%- set statements = [] -%}
  {%- do dataplex_dq.anomaly_ensure_tables(rel) -%}

  {%- if mode == 'bucket' -%}
    {%- set T = ((now_e + shift) // bs) - 1 -%}   {#- the latest complete bucket -#}
    {%- set lo = T - n -%}
    {%- set start_dt = epoch0 + modules.datetime.timedelta(seconds=lo * bs - shift) -%}
    {%- set end_dt = epoch0 + modules.datetime.timedelta(seconds=(T + 1) * bs - shift) -%}
    {%- set season = {'day_of_week': 'mod(x.t, 7)', 'hour_of_day': 'mod(x.t, 24)'}.get(dataplex_dq.anomaly_season_name(cfg), 'null') -%}
    {%- set buckets = "select cast(" ~ lo ~ " + rule_index as " ~ dbt.type_bigint() ~ ") as dq_t from " ~ dataplex_dq.scan_rule_index_list(n + 1) -%}
    {%- for kind in ['volume', 'freshness', 'data'] -%}
      {%- set kind_checks = checks | selectattr('kind', 'equalto', kind) | list -%}
      {%- if kind_checks | length > 0 -%}
        {%- set col = adapter.quote(cfg.freshness_column if kind == 'freshness' else cfg.timestamp_column) -%}
        {%- set e = dataplex_dq.anomaly_epoch(col) -%}
        {%- set range = "cast(" ~ col ~ " as timestamp) >= " ~ dataplex_dq.anomaly_timestamp_literal(start_dt) ~ " and cast(" ~ col ~ " as timestamp) < " ~ dataplex_dq.anomaly_timestamp_literal(end_dt) -%}
        {%- set aggs = ["count(*) as dq_n", "max(" ~ e ~ ") as dq_max_e"] -%}
        {%- set rows = [] -%}
        {%- for c in kind_checks -%}
          {%- if kind == 'volume' -%}
            {%- set value = "cast(coalesce(p.dq_n, 0) as " ~ d ~ ")" -%}
          {%- elif kind == 'freshness' -%}
            {#- seconds from the bucket's end back to the newest value up to it (or before the window) -#}
            {%- set value = "cast(" ~ ("(b.dq_t + 1) * " ~ bs ~ " - " ~ shift) ~ " - coalesce(max(p.dq_max_e) over (order by b.dq_t rows between unbounded preceding and current row), (select max(" ~ e ~ ") from (" ~ scope ~ ") dq_s0 where cast(" ~ col ~ " as timestamp) < " ~ dataplex_dq.anomaly_timestamp_literal(start_dt) ~ ")) as " ~ d ~ ")" -%}
          {%- else -%}
            {%- do aggs.append(dataplex_dq.anomaly_metric_sql(c.metric, adapter.quote(c.column)) ~ " as dq_v" ~ loop.index0) -%}
            {%- set value = "p.dq_v" ~ loop.index0 -%}
          {%- endif -%}
          {%- do rows.append("select " ~ lit(c.name) ~ " as check_name, " ~ (lit(c.column) if c.column else "cast(null as " ~ dbt.type_string() ~ ")") ~ " as column_name, " ~ lit(c.metric) ~ " as metric, b.dq_t as t, " ~ value ~ " as value from dq_buckets b left join dq_agg p on p.dq_t = b.dq_t") -%}
        {%- endfor -%}
        {%- set measure -%}
with dq_buckets as ({{ buckets }}),
dq_agg as (
  select cast(floor(({{ e }} + {{ shift }}) / {{ bs }}) as {{ dbt.type_bigint() }}) as dq_t, {{ aggs | join(', ') }}
  from ({{ scope }}) dq_s
  where {{ range }}
  group by 1
)
{{ rows | join('\nunion all\n') }}
        {%- endset -%}
        {%- set kind_names = [] -%}
        {%- for c in kind_checks -%}{%- do kind_names.append(lit(c.name)) -%}{%- endfor -%}
        {%- do statements.append(dataplex_dq.anomaly_delete_sql(rel[kind], "data_source = " ~ src ~ " and mode = 'bucket' and time_bucket = " ~ lit(cfg.time_bucket) ~ " and check_name in (" ~ (kind_names | join(', ')) ~ ") and t >= " ~ lo ~ " and t <= " ~ T)) -%}
        {%- do statements.append("insert into " ~ rel[kind] ~ " (data_source, check_name, column_name, metric, mode, time_bucket, t, season, bucket_start, value, dq_invocation_id, dq_test_unique_id, measured_at)\nselect " ~ src ~ ", x.check_name, x.column_name, x.metric, 'bucket', " ~ lit(cfg.time_bucket) ~ ", x.t, cast(" ~ season ~ " as " ~ dbt.type_int() ~ "), " ~ dataplex_dq.anomaly_timestamp("x.t * " ~ bs ~ " - " ~ shift) ~ ", x.value, " ~ inv ~ ", " ~ test ~ ", " ~ now_sql ~ "\nfrom (\n" ~ measure ~ "\n) x") -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set target_filter = "t = " ~ T -%}
    {%- set ref_epoch = (T + 1) * bs - shift -%}
    {%- set bucket_start_sql = dataplex_dq.anomaly_timestamp("v.t * " ~ bs ~ " - " ~ shift) -%}
  {%- else -%}
    {%- set season_value = {'day_of_week': (now_e // 86400) % 7, 'hour_of_day': (now_e // 3600) % 24}.get(dataplex_dq.anomaly_season_name(cfg), 'null') -%}
    {%- set aggs = ["count(*) as dq_n"] -%}
    {%- if cfg.freshness -%}{%- do aggs.append("max(" ~ dataplex_dq.anomaly_epoch(adapter.quote(cfg.freshness_column)) ~ ") as dq_max_e") -%}{%- endif -%}
    {%- for kind in ['volume', 'freshness', 'data'] -%}
      {%- set kind_checks = checks | selectattr('kind', 'equalto', kind) | list -%}
      {%- if kind_checks | length > 0 -%}
        {%- set rows = [] -%}
        {%- set kind_names = [] -%}
        {%- for c in kind_checks -%}
          {%- do kind_names.append(lit(c.name)) -%}
          {%- if kind == 'volume' -%}
            {%- set value = "cast(p.dq_n as " ~ d ~ ")" -%}
          {%- elif kind == 'freshness' -%}
            {%- set value = "cast(" ~ now_e ~ " - p.dq_max_e as " ~ d ~ ")" -%}
          {%- else -%}
            {%- set alias = "dq_v" ~ (aggs | length) -%}
            {%- do aggs.append(dataplex_dq.anomaly_metric_sql(c.metric, adapter.quote(c.column)) ~ " as " ~ alias) -%}
            {%- set value = "p." ~ alias -%}
          {%- endif -%}
          {%- do rows.append((lit(c.name), (lit(c.column) if c.column else "cast(null as " ~ dbt.type_string() ~ ")"), lit(c.metric), value)) -%}
        {%- endfor -%}
        {%- set selects = [] -%}
        {%- for name, column, metric, value in rows -%}
          {%- do selects.append("select " ~ name ~ " as check_name, " ~ column ~ " as column_name, " ~ metric ~ " as metric, " ~ value ~ " as value from dq_agg p") -%}
        {%- endfor -%}
        {%- set measure = "__AGG__\n" ~ (selects | join('\nunion all\n')) -%}
        {%- do statements.append((dataplex_dq.anomaly_delete_sql(rel[kind], "data_source = " ~ src ~ " and mode = 'job' and dq_invocation_id = " ~ inv ~ " and check_name in (" ~ (kind_names | join(', ')) ~ ")"), kind, kind_names, measure)) -%}
      {%- endif -%}
    {%- endfor -%}
    {#- the aggregate is known only now that every data metric has its alias -#}
    {%- set agg_cte = "with dq_agg as (select " ~ (aggs | join(', ')) ~ " from (" ~ scope ~ ") dq_s)" -%}
    {%- set resolved = [] -%}
    {%- for delete_sql, kind, kind_names, measure in statements -%}
      {%- do resolved.append(delete_sql) -%}
      {%- set last = "select check_name, max(t) as dq_last from " ~ rel[kind] ~ " where data_source = " ~ src ~ " and mode = 'job' and check_name in (" ~ (kind_names | join(', ')) ~ ") group by check_name" -%}
      {%- do resolved.append("insert into " ~ rel[kind] ~ " (data_source, check_name, column_name, metric, mode, time_bucket, t, season, bucket_start, value, dq_invocation_id, dq_test_unique_id, measured_at)\nselect " ~ src ~ ", x.check_name, x.column_name, x.metric, 'job', " ~ lit(cfg.time_bucket) ~ ", coalesce(l.dq_last, 0) + 1, cast(" ~ season_value ~ " as " ~ dbt.type_int() ~ "), " ~ now_sql ~ ", x.value, " ~ inv ~ ", " ~ test ~ ", " ~ now_sql ~ "\nfrom (\n" ~ measure.replace('__AGG__', agg_cte) ~ "\n) x left join (" ~ last ~ ") l on l.check_name = x.check_name") -%}
    {%- endfor -%}
    {%- set statements = resolved -%}
    {%- set target_filter = "dq_invocation_id = " ~ inv -%}
    {%- set ref_epoch = now_e -%}
    {%- set bucket_start_sql = now_sql -%}
  {%- endif -%}

  {#- the detector over the checks' history; the verdicts into the result table -#}
  {%- set hist = [] -%}
  {%- set targets = [] -%}
  {#- the buckets marked by the user as incidents or holidays (exclude_from_training) -#}
  {%- set marked = [] -%}
  {%- if mode == 'bucket' -%}
    {%- for dt in cfg.exclude_from_training -%}{%- do marked.append((((dt - epoch0).total_seconds() | int) + shift) // bs) -%}{%- endfor -%}
  {%- endif -%}
  {%- for kind in ['volume', 'freshness', 'data'] -%}
    {%- set kind_checks = checks | selectattr('kind', 'equalto', kind) | list -%}
    {%- if kind_checks | length > 0 -%}
      {%- set kind_names = [] -%}
      {%- for c in kind_checks -%}{%- if c is mapping -%}{%- do kind_names.append(lit(c.name)) -%}{%- endif -%}{%- endfor -%}
      {%- set base = "select check_name as series_id, t, season, value from " ~ rel[kind] ~ " where data_source = " ~ src ~ " and mode = " ~ lit(mode) ~ " and time_bucket = " ~ lit(cfg.time_bucket) ~ " and check_name in (" ~ (kind_names | join(', ')) ~ ")" -%}
      {#- the history with the verdicts already given (training forgets the anomalies, accepts a new level) -#}
      {%- set judged = "select check_name as series_id, t, value, expected, anomalous, level_shift, shift_start from " ~ rel.result ~ " where data_source = " ~ src ~ " and mode = " ~ lit(mode) ~ " and time_bucket = " ~ lit(cfg.time_bucket) ~ " and check_name in (" ~ (kind_names | join(', ')) ~ ")" ~ (" and t < " ~ T if mode == 'bucket' else "") -%}
      {%- do hist.append(dataplex_dq.anomaly_judged_history_sql(base, judged, marked)) -%}
      {%- set flags = "true as dq_log, true as dq_trend" if kind == 'volume' else "false as dq_log, false as dq_trend" -%}
      {%- do targets.append(base.replace("select check_name as series_id, t, season, value from", "select check_name as series_id, t, season, value, " ~ flags ~ " from") ~ " and " ~ target_filter) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set detector_cfg = dataplex_dq.anomaly_detector_cfg(cfg) -%}
  {%- do detector_cfg.update({'marked': marked}) -%}
  {%- set detector = dataplex_dq.anomaly_detector_sql(hist | join('\nunion all\n'), targets | join('\nunion all\n'), detector_cfg) -%}
  {%- set cases = {'rule_index': [], 'check_kind': [], 'column_name': [], 'metric': []} -%}
  {%- for c in checks -%}
    {%- if c is mapping -%}
      {%- do cases.rule_index.append(" when " ~ lit(c.name) ~ " then " ~ (first_index + loop.index0)) -%}
      {%- do cases.check_kind.append(" when " ~ lit(c.name) ~ " then " ~ lit(c.kind)) -%}
      {%- do cases.column_name.append(" when " ~ lit(c.name) ~ " then " ~ (lit(c.column) if c.column else "null")) -%}
      {%- do cases.metric.append(" when " ~ lit(c.name) ~ " then " ~ lit(c.metric)) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- idempotent verdicts: one per data source, check and bucket (a re-run of a reference time replaces
      its verdicts); per job, one per invocation and test -#}
  {%- if mode == 'bucket' -%}
    {%- do statements.append(dataplex_dq.anomaly_delete_sql(rel.result, "data_source = " ~ src ~ " and mode = 'bucket' and time_bucket = " ~ lit(cfg.time_bucket) ~ " and check_name in (" ~ (names | join(', ')) ~ ") and t = " ~ T)) -%}
  {%- else -%}
    {%- do statements.append(dataplex_dq.anomaly_delete_sql(rel.result, "dq_invocation_id = " ~ inv ~ " and dq_test_unique_id = " ~ test)) -%}
  {%- endif -%}
  {%- do statements.append("insert into " ~ rel.result ~ " (data_source, dq_test_unique_id, dq_invocation_id, rule_index, check_name, check_kind, column_name, metric, mode, time_bucket, t, bucket_start, value, expected, lower_bound, upper_bound, training_count, training, anomalous, seasonal, sensitivity, evaluated_at, seasonality, drift, level_shift, shift_start)\nselect " ~ src ~ ", " ~ test ~ ", " ~ inv
      ~ ", cast(case v.series_id" ~ (cases.rule_index | join('')) ~ " end as " ~ dbt.type_int() ~ "), v.series_id"
      ~ ", case v.series_id" ~ (cases.check_kind | join('')) ~ " end"
      ~ ", cast(case v.series_id" ~ (cases.column_name | join('')) ~ " end as " ~ dbt.type_string() ~ ")"
      ~ ", case v.series_id" ~ (cases.metric | join('')) ~ " end, " ~ lit(mode) ~ ", " ~ lit(cfg.time_bucket) ~ ", v.t, " ~ bucket_start_sql
      ~ ", v.value, v.expected, v.lower_bound, v.upper_bound, v.training_count, v.training, v.anomalous, v.seasonal, cast(" ~ cfg.sensitivity ~ " as " ~ d ~ "), " ~ now_sql
      ~ ", v.seasonality, v.drift, v.level_shift, v.shift_start"
      ~ "\nfrom (\n" ~ detector ~ "\n) v") -%}
  {%- for sql in statements -%}
    {%- do run_query(sql) -%}
  {%- endfor -%}
  {%- set verdicts = run_query(read_sql ~ " order by rule_index") -%}
  {{ return(dataplex_dq.anomaly_metrics_rows(cfg, checks, ctx, first_index, verdicts, rel, ref_epoch)) }}
{% endmacro %}

{% macro _anomaly_number(value) %}
  {%- if value is none -%}{{ return(none) }}{%- endif -%}
  {%- set x = value | float -%}
  {%- if x == (x | round(0)) and x | abs < 1e15 -%}{{ return((x | int) | string) }}{%- endif -%}
  {{ return('%.10g' | format(x)) }}
{% endmacro %}

{#- One metrics row per check, from the verdict rows just written. -#}
{#- ref_epoch: the end of the judged bucket (or the job's time) in epoch seconds, for the freshness
    expression; none when nothing was judged. -#}
{% macro anomaly_metrics_rows(cfg, checks, ctx, first_index, verdicts, rel, ref_epoch) %}
  {%- set by_name = {} -%}
  {%- for row in (verdicts.rows if verdicts is not none else []) -%}{%- do by_name.update({row['check_name']: row}) -%}{%- endfor -%}
  {%- set num = dataplex_dq._anomaly_number -%}
  {%- set lit = dataplex_dq.string_literal -%}
  {%- set selects = [] -%}
  {%- for c in checks if c is mapping -%}
    {%- set v = by_name.get(c.name) -%}
    {%- set value = num(v['value']) if v else none -%}
    {%- set lower = num(v['lower_bound']) if v else none -%}
    {%- set upper = num(v['upper_bound']) if v else none -%}
    {%- set training = (v is none) or v['training'] in [true, 1, 'true', 'True'] -%}
    {%- set anomalous = (v is not none) and v['anomalous'] in [true, 1, 'true', 'True'] -%}
    {%- set col = adapter.quote(c.column) if c.column else none -%}
    {%- set measure = {
        'volume': 'count(*)',
        'freshness': ((ref_epoch if ref_epoch is not none else 0) ~ " - " ~ dataplex_dq.anomaly_epoch('max(' ~ (col or '') ~ ')')) if col else '',
        'data': dataplex_dq.anomaly_metric_sql(c.metric, col) if col else '',
    }[c.kind] -%}
    {%- set band = [] -%}
    {%- if lower is not none -%}{%- do band.append(measure ~ " >= " ~ lower) -%}{%- endif -%}
    {%- if upper is not none -%}{%- do band.append(measure ~ " <= " ~ upper) -%}{%- endif -%}
    {%- if c.metric in ['mean', 'min', 'max'] -%}
      {%- set rule_type = 'statistic_range_expectation' -%}
      {%- set params = {'statistic': c.metric | upper} -%}
      {%- if lower is not none -%}{%- do params.update({'min_value': lower}) -%}{%- endif -%}
      {%- if upper is not none -%}{%- do params.update({'max_value': upper}) -%}{%- endif -%}
    {%- else -%}
      {%- set rule_type = 'table_condition_expectation' -%}
      {%- set params = {'sql_expression': (band | join(' and ')) if band else 'true'} -%}
    {%- endif -%}
    {%- set attributes = {
        'anomaly_check': c.kind, 'anomaly_metric': c.metric,
        'anomaly_status': 'training' if training else ('anomalous' if anomalous else 'normal'),
        'value': value or '', 'expected': (num(v['expected']) if v else none) or '',
        'lower_bound': lower or '', 'upper_bound': upper or '',
        'training_count': (num(v['training_count']) if v else '0') or '0',
        'time_bucket': cfg.time_bucket if cfg.timestamp_column else 'job',
        'sensitivity': num(cfg.sensitivity), 'seasonality': (v['seasonality'] if v and v['seasonality'] else 'none'),
        'seasonality_setting': cfg.seasonality, 'drift': 'true' if (v is not none and v['drift'] in [true, 1, 'true', 'True']) else 'false',
        'level_shift_accepted': 'true' if (v is not none and v['level_shift'] is not none) else 'false',
        'bucket_start': (v['bucket_start'] | string) if v else '',
        'result_table': dataplex_dq.anomaly_asset_name(rel.result),
        'volume_intermediate_table': dataplex_dq.anomaly_asset_name(rel.volume),
        'freshness_intermediate_table': dataplex_dq.anomaly_asset_name(rel.freshness),
        'data_intermediate_table': dataplex_dq.anomaly_asset_name(rel.data),
    } -%}
    {%- set rule = {'rule_type': rule_type, 'name': c.name,
        'description': 'Anomaly detection: ' ~ c.metric ~ (' of ' ~ c.column if c.column else '') ~ ' judged against its learned band (' ~ attributes.time_bucket ~ ')',
        'column': c.column, 'dimension': c.dimension, 'threshold': none, 'ignore_null': false, 'suspended': false,
        'params': params, 'debug_queries': none, 'attributes': attributes} -%}
    {%- set status = 'TRAINING' if training else ('FAILED' if anomalous else 'PASSED') -%}
    {%- set m = {'status': lit(status), 'passed': 'false' if status == 'FAILED' else 'true',
                 'row_count': 'null', 'statistic_value': value if value is not none else 'null'} -%}
    {%- set rctx = dict(ctx, rule_index=first_index + loop.index0, data_type=none, row_filter=ctx.row_filter, sampling_percent=none) -%}
    {%- do selects.append(dataplex_dq.metrics_select(rule, rctx, m, none)) -%}
  {%- endfor -%}
  {{ return(selects | join('\nunion all\n')) }}
{% endmacro %}

{#- The generic test dataplex_dq.anomaly_detection. -#}
{% macro anomaly_detection_test(model, column_name, args) %}
  {%- set node = dataplex_dq.current_test_node() -%}
  {{ dataplex_dq.metrics_test_config(node) }}
  {%- if not execute -%}{{ return("select 1 as passed") }}{%- endif -%}
  {%- set source_node = dataplex_dq.data_source_node(node) -%}
  {%- set where = {'source': dataplex_dq.describe_source(source_node, model), 'rule': node.name, 'test': 'dataplex_dq.anomaly_detection',
                   'label': "anomaly_detection test '" ~ node.name ~ "'"} -%}
  {%- set problem = dataplex_dq.data_source_problem(source_node) -%}
  {%- if problem is not none -%}
    {{ dataplex_dq.raise_rule_error(where, none, problem) }}
  {%- endif -%}
  {%- if column_name -%}
    {{ dataplex_dq.raise_rule_error(where, none, "declare anomaly_detection under the model's data_tests, not under column '" ~ column_name ~ "'; data.columns names the columns") }}
  {%- endif -%}
  {%- set settings = dataplex_dq.data_source_settings(source_node) -%}
  {{ dataplex_dq.validate_scope_settings(settings, where, dataplex_dq.anomaly_scope_keys() + dataplex_dq.lifecycle_setting_keys()) }}
  {%- set declared = settings.get('anomaly_detection', settings.get('anomalyDetection')) -%}
  {%- set given = args if args else none -%}
  {%- if given is not none and declared is not none -%}
    {{ dataplex_dq.raise_rule_error(where, 'anomaly_detection', "declared twice: in the test's arguments and in meta.dataplex_dq.anomaly_detection; keep one") }}
  {%- endif -%}
  {%- set raw = given if given is not none else declared -%}
  {%- if raw is none -%}
    {{ dataplex_dq.raise_rule_error(where, 'anomaly_detection', "nothing to check: give the declaration as the test's arguments or in the data source's meta.dataplex_dq.anomaly_detection") }}
  {%- endif -%}
  {%- set ctx = {'from_sql': model, 'row_filter': settings.get('row_filter'), 'test_unique_id': node.unique_id, 'source_unique_id': source_node.unique_id} -%}
  {{ return(dataplex_dq.anomaly_rows_for(raw, source_node, where, ctx, 0)) }}
{% endmacro %}

{#- meta.dataplex_dq keys the tests accept on a data source that declares anomaly detection. -#}
{% macro anomaly_scope_keys() %}
  {{ return(['row_filter', 'sampling_percent', 'post_scan_actions', 'anomaly_detection', 'anomalyDetection']) }}
{% endmacro %}

{#- Validate a declaration and return the metrics rows of its checks (rule_index from first_index). -#}
{% macro anomaly_rows_for(raw, source_node, where, ctx, first_index) %}
  {%- set cfg = dataplex_dq.anomaly_config(raw, where) -%}
  {%- set relation = dataplex_dq.data_source_relation(source_node) -%}
  {%- set types = dataplex_dq.column_types(relation) -%}
  {{ dataplex_dq.anomaly_validate_columns(cfg, types, where, relation.render()) }}  {#- the relation read (--defer: the deferred one) -#}
  {%- set checks = dataplex_dq.anomaly_checks(cfg, types) -%}
  {{ return(dataplex_dq.anomaly_checks_sql(cfg, checks, ctx, first_index)) }}
{% endmacro %}

{#- Whether a dataplex_dq.anomaly_detection test is attached to the data source. -#}
{% macro anomaly_has_test(source_node) %}
  {%- for other in graph.nodes.values() | selectattr('resource_type', 'equalto', 'test') | selectattr('attached_node', 'equalto', source_node.unique_id) -%}
    {%- if (other.get('test_metadata') or {}).get('namespace') == 'dataplex_dq' and other.test_metadata.name in ['anomaly_detection'] -%}{{ return(true) }}{%- endif -%}
  {%- endfor -%}
  {{ return(false) }}
{% endmacro %}

{#- A meta.dataplex_dq.anomaly_detection that no test runs would be silently ignored: a per-rule test of
    that data source says so. -#}
{% macro anomaly_require_runner(source_node, settings, where) %}
  {%- if settings.get('anomaly_detection', settings.get('anomalyDetection')) is none -%}{{ return('') }}{%- endif -%}
  {%- for other in graph.nodes.values() | selectattr('resource_type', 'equalto', 'test') | selectattr('attached_node', 'equalto', source_node.unique_id) -%}
    {%- if (other.get('test_metadata') or {}).get('namespace') == 'dataplex_dq' and other.test_metadata.name in ['anomaly_detection', 'data_quality_scan'] -%}{{ return('') }}{%- endif -%}
  {%- endfor -%}
  {{ dataplex_dq.raise_rule_error(where, 'meta.dataplex_dq.anomaly_detection', "is declared but no test runs it; add `- dataplex_dq.anomaly_detection` to the data source's data_tests") }}
{% endmacro %}

{#- A data_quality_scan's metrics rows, followed by the rows of its anomaly checks: the scan's own
    anomaly_detection argument, else the data source's meta.dataplex_dq.anomaly_detection when no
    dataplex_dq.anomaly_detection test runs it. Checks are numbered after the scan's rules. -#}
{% macro scan_with_anomaly_checks(scan_sql, args, meta_settings, source_node, where, ctx, first_index) %}
  {%- set raw = dataplex_dq._scan_get(args, 'anomaly_detection', where, '') -%}
  {%- if raw is none and not dataplex_dq.anomaly_has_test(source_node) -%}
    {%- set raw = meta_settings.get('anomaly_detection', meta_settings.get('anomalyDetection')) -%}
  {%- endif -%}
  {%- if raw is none -%}{{ return(scan_sql) }}{%- endif -%}
  {%- set rows = dataplex_dq.anomaly_rows_for(raw, source_node, where, ctx, first_index) -%}
  {{ return("select * from (\n" ~ scan_sql ~ "\n) dq_scan_rows\nunion all\n" ~ rows) }}
{% endmacro %}
