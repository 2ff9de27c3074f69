{#- The `anomaly_detection` declaration (docs/SEMANTICS.md §13), from a data source's meta.dataplex_dq or a
    data_quality_scan's arguments, snake_case or camelCase; normalized and validated at compile time
    with errors that name the data source and the field. -#}

{% macro anomaly_metric_dimensions() %}
  {#- The Dataplex dimension each data metric reports under: how complete, how unique, and for the
      distribution of values, how consistent with its own history. -#}
  {{ return({'null_fraction': 'COMPLETENESS', 'distinct_fraction': 'UNIQUENESS', 'mean': 'CONSISTENCY',
             'min': 'CONSISTENCY', 'max': 'CONSISTENCY', 'stddev': 'CONSISTENCY',
             'average_length': 'CONSISTENCY', 'zero_fraction': 'CONSISTENCY'}) }}
{% endmacro %}

{% macro anomaly_bucket_seconds() %}
  {{ return({'hour': 3600, 'day': 86400, 'week': 604800}) }}
{% endmacro %}

{#- Normalize and validate `raw`; returns
    {timestamp_column, time_bucket, training_buckets, min_training_buckets, sensitivity, seasonality,
     direction, exclude_from_training (datetimes), volume (bool), freshness_column (or none), freshness (bool), data_columns, data_metrics}. -#}
{% macro anomaly_config(raw, where) %}
  {%- set f = 'anomaly_detection' -%}
  {%- if raw is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, f, "must be a mapping (timestamp_column, time_bucket, training_buckets, min_training_buckets, sensitivity, seasonality, direction, exclude_from_training, volume, freshness, data), got " ~ raw) }}
  {%- endif -%}
  {%- set keys = ['timestamp_column', 'time_bucket', 'training_buckets', 'min_training_buckets', 'sensitivity', 'seasonality', 'direction', 'exclude_from_training', 'volume', 'freshness', 'data'] -%}
  {%- set known = {} -%}
  {%- for k in keys -%}{%- do known.update({k: k, dataplex_dq.camel_case(k): k}) -%}{%- endfor -%}
  {%- for key in raw -%}
    {%- if key not in known -%}
      {{ dataplex_dq.raise_rule_error(where, f ~ '.' ~ key, "unknown field; allowed: " ~ (keys | join(', '))) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set get = {} -%}
  {%- for k in keys -%}{%- do get.update({k: dataplex_dq._scan_get(raw, k, where, f ~ '.')}) -%}{%- endfor -%}

  {%- set ts = get.timestamp_column -%}
  {%- if ts is not none and (ts is not string or (ts | trim) == '') -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.timestamp_column', "must be a column name, got " ~ ts) }}
  {%- endif -%}
  {%- set bucket = get.time_bucket if get.time_bucket is not none else 'day' -%}
  {%- if bucket not in ['hour', 'day', 'week'] -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.time_bucket', "must be hour, day or week, got " ~ bucket) }}
  {%- endif -%}
  {%- set training = get.training_buckets if get.training_buckets is not none else 28 -%}
  {%- if training is boolean or training is not number or training != (training | int) or training < 3 or training > 1000 -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.training_buckets', "must be a whole number between 3 and 1000, got " ~ training) }}
  {%- endif -%}
  {%- set min_training = get.min_training_buckets if get.min_training_buckets is not none else [7, training] | min -%}
  {%- if min_training is boolean or min_training is not number or min_training != (min_training | int) or min_training < 3 or min_training > training -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.min_training_buckets', "must be a whole number between 3 and training_buckets (" ~ training ~ "), got " ~ min_training) }}
  {%- endif -%}
  {%- set sensitivity = get.sensitivity if get.sensitivity is not none else 3.0 -%}
  {%- if sensitivity is boolean or sensitivity is not number or sensitivity <= 0 or sensitivity > 100 -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.sensitivity', "must be a number above 0 (3.0 by default; higher means fewer alerts), got " ~ sensitivity) }}
  {%- endif -%}
  {%- set seasonality = get.seasonality if get.seasonality is not none else 'auto' -%}
  {%- if seasonality not in ['auto', 'none', 'day_of_week', 'hour_of_day'] -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.seasonality', "must be auto, none, day_of_week or hour_of_day, got " ~ seasonality) }}
  {%- endif -%}
  {%- if ts is not none and seasonality == 'day_of_week' and bucket != 'day' -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.seasonality', "day_of_week needs time_bucket: day, got time_bucket: " ~ bucket) }}
  {%- endif -%}
  {%- if ts is not none and seasonality == 'hour_of_day' and bucket != 'hour' -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.seasonality', "hour_of_day needs time_bucket: hour, got time_bucket: " ~ bucket) }}
  {%- endif -%}
  {%- set direction = get.direction if get.direction is not none else 'both' -%}
  {%- if direction not in ['both', 'spike', 'drop'] -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.direction', "must be both, spike or drop, got " ~ direction) }}
  {%- endif -%}
  {#- buckets a user marks as incidents or holidays: left out of training like the ones judged anomalous -#}
  {%- set excluded = [] -%}
  {%- set given_excluded = get.exclude_from_training -%}
  {%- if given_excluded is not none -%}
    {%- if ts is none -%}
      {{ dataplex_dq.raise_rule_error(where, f ~ '.exclude_from_training', "needs timestamp_column: the buckets it names are time buckets") }}
    {%- endif -%}
    {%- if given_excluded is string or given_excluded is mapping or given_excluded is not iterable -%}
      {{ dataplex_dq.raise_rule_error(where, f ~ '.exclude_from_training', "must be a list of dates or timestamps ('YYYY-MM-DD[ HH:MM:SS]'), got " ~ given_excluded) }}
    {%- endif -%}
    {%- for item in given_excluded -%}
      {%- set text = (item | string | trim) -%}
      {%- set parsed = none -%}
      {%- for fmt in ['%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d'] if parsed is none -%}
        {%- set parsed = dataplex_dq._anomaly_parse_time(text, fmt) -%}
        {%- if parsed is not none -%}{%- do excluded.append(parsed) -%}{%- endif -%}
      {%- endfor -%}
      {%- if (excluded | length) != loop.index -%}
        {{ dataplex_dq.raise_rule_error(where, f ~ '.exclude_from_training[' ~ loop.index0 ~ ']', "must be a date or timestamp 'YYYY-MM-DD[ HH:MM:SS]', got " ~ text) }}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}

  {%- set volume = get.volume -%}
  {%- if volume is not none and volume is not mapping and volume is not boolean -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.volume', "must be {} (or true), got " ~ volume) }}
  {%- endif -%}
  {%- if volume is mapping and (volume | length) > 0 -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.volume.' ~ (volume.keys() | list | first), "unknown field; volume takes no fields: {}") }}
  {%- endif -%}

  {%- set freshness = get.freshness -%}
  {%- set freshness_column = none -%}
  {%- if freshness is not none and freshness is not mapping and freshness is not boolean -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.freshness', "must be {} or {column: ...}, got " ~ freshness) }}
  {%- endif -%}
  {%- if freshness is mapping -%}
    {%- for key in freshness -%}
      {%- if key != 'column' -%}{{ dataplex_dq.raise_rule_error(where, f ~ '.freshness.' ~ key, "unknown field; freshness takes: column") }}{%- endif -%}
    {%- endfor -%}
    {%- set freshness_column = freshness.get('column') -%}
  {%- endif -%}
  {%- set has_freshness = freshness is mapping or freshness is sameas true -%}
  {%- if has_freshness and freshness_column is none -%}{%- set freshness_column = ts -%}{%- endif -%}
  {%- if has_freshness and freshness_column is none -%}
    {{ dataplex_dq.raise_rule_error(where, f ~ '.freshness', "needs a timestamp: set anomaly_detection.timestamp_column or freshness.column") }}
  {%- endif -%}

  {%- set data = get.data -%}
  {%- set columns = [] -%}
  {%- set metrics = [] -%}
  {%- if data is not none -%}
    {%- if data is not mapping -%}
      {{ dataplex_dq.raise_rule_error(where, f ~ '.data', "must be a mapping {columns: [...], metrics: [...]}, got " ~ data) }}
    {%- endif -%}
    {%- for key in data -%}
      {%- if key not in ['columns', 'metrics'] -%}{{ dataplex_dq.raise_rule_error(where, f ~ '.data.' ~ key, "unknown field; data takes: columns, metrics") }}{%- endif -%}
    {%- endfor -%}
    {%- set allowed = dataplex_dq.anomaly_metric_dimensions().keys() | list -%}
    {%- for name, target in [('columns', columns), ('metrics', metrics)] -%}
      {%- set given = data.get(name) -%}
      {%- if given is none or given is string or given is mapping or given is not iterable or (given | length) == 0 -%}
        {{ dataplex_dq.raise_rule_error(where, f ~ '.data.' ~ name, "must be a non-empty list, got " ~ given) }}
      {%- endif -%}
      {%- for item in given -%}
        {%- if item is not string or (item | trim) == '' -%}
          {{ dataplex_dq.raise_rule_error(where, f ~ '.data.' ~ name ~ '[' ~ loop.index0 ~ ']', "must be a name, got " ~ item) }}
        {%- endif -%}
        {%- if name == 'metrics' and item not in allowed -%}
          {{ dataplex_dq.raise_rule_error(where, f ~ '.data.metrics[' ~ loop.index0 ~ ']', "unknown metric '" ~ item ~ "'; allowed: " ~ (allowed | join(', '))) }}
        {%- endif -%}
        {%- if item not in target -%}{%- do target.append(item) -%}{%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set has_volume = volume is mapping or volume is sameas true -%}
  {%- if not has_volume and not has_freshness and (columns | length) == 0 -%}
    {{ dataplex_dq.raise_rule_error(where, f, "declares no check; add volume: {}, freshness: {} or data: {columns: [...], metrics: [...]}") }}
  {%- endif -%}
  {{ return({
      'timestamp_column': ts, 'time_bucket': bucket, 'training_buckets': training | int,
      'min_training_buckets': min_training | int, 'sensitivity': sensitivity, 'seasonality': seasonality,
      'direction': direction, 'exclude_from_training': excluded, 'volume': has_volume, 'freshness': has_freshness,
      'freshness_column': freshness_column, 'data_columns': columns, 'data_metrics': metrics}) }}
{% endmacro %}

{#- The season a declaration's history is labelled with: its explicit seasonality, or with auto (the
    default) the one its buckets can have: day_of_week for daily buckets (and per-job history), hour_of_day
    for hourly ones, none for weeks. -#}
{% macro anomaly_season_name(cfg) %}
  {%- if cfg.seasonality != 'auto' -%}{{ return(cfg.seasonality) }}{%- endif -%}
  {{ return({'day': 'day_of_week', 'hour': 'hour_of_day'}.get(cfg.time_bucket, 'none')) }}
{% endmacro %}

{#- The detector's settings of a declaration (macros/anomaly/detector.sql). -#}
{% macro anomaly_detector_cfg(cfg) %}
  {%- set name = dataplex_dq.anomaly_season_name(cfg) -%}
  {%- set seasonality = 'none' if name == 'none' else ('auto' if cfg.seasonality == 'auto' else name) -%}
  {{ return({'training_buckets': cfg.training_buckets, 'min_training_buckets': cfg.min_training_buckets,
             'sensitivity': cfg.sensitivity, 'direction': cfg.direction, 'seasonality': seasonality, 'season_name': name,
             'period': {'day': 7, 'hour': 24, 'week': 4}.get(cfg.time_bucket, 7)}) }}
{% endmacro %}

{#- The checks of a declaration, in order: [{name, kind (volume|freshness|data), column, metric, dimension}].
    Names: volume-anomaly, freshness-anomaly, <metric>-<column>-anomaly (hyphens, lower case, at most
    63 characters, as Dataplex rule names). -#}
{#- `types` ({column (lower case): type}): a data metric is checked on the columns whose type it reads. -#}
{% macro anomaly_checks(cfg, types) %}
  {%- set checks = [] -%}
  {%- if cfg.volume -%}{%- do checks.append({'name': 'volume-anomaly', 'kind': 'volume', 'column': none, 'metric': 'row_count', 'dimension': 'VOLUME'}) -%}{%- endif -%}
  {%- if cfg.freshness -%}{%- do checks.append({'name': 'freshness-anomaly', 'kind': 'freshness', 'column': cfg.freshness_column, 'metric': 'freshness_seconds', 'dimension': 'FRESHNESS'}) -%}{%- endif -%}
  {%- set dims = dataplex_dq.anomaly_metric_dimensions() -%}
  {%- for column in cfg.data_columns -%}
    {%- set col = modules.re.sub('[^A-Za-z0-9]+', '-', column).strip('-') | lower -%}
    {%- for metric in cfg.data_metrics if dataplex_dq.anomaly_metric_reads(metric, types.get(column | lower)) -%}
      {%- set base = (metric.replace('_', '-') ~ '-' ~ col)[:54].strip('-') -%}
      {%- do checks.append({'name': base ~ '-anomaly', 'kind': 'data', 'column': column, 'metric': metric, 'dimension': dims[metric]}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(checks) }}
{% endmacro %}
