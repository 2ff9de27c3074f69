{#- The anomaly detector (docs/SEMANTICS.md §13): a robust, seasonal model computed in the warehouse's own SQL.

    Input: `history_sql`, a SELECT with the columns series_id (text), t (integer: bucket index, or job ordinal),
    season (integer, NULL without seasonality), value (double) and what the verdicts already given say of each
    bucket (anomaly_judged_history_sql in macros/anomaly/history.sql; anomaly_history_plain_columns without
    verdicts): dq_excluded (judged anomalous, not part of an accepted new level), dq_side (its side: 1, -1, 0) and
    dq_shift (the level shifts accepted after it, in the model's scale), dq_segment (the level shifts accepted up
    to it), dq_judged (a verdict was given on it); `targets_sql`: series_id, t, season,
    value, dq_log (model ln(1 + value): row counts, whose growth and weekly pattern are multiplicative) and
    dq_trend (fit a trend: row counts grow; a null rate, a mean or a freshness should not, so for them a drift is
    the anomaly, not a trend to learn). Each target row is judged against the history rows of its series with
      target.t - training_buckets <= t < target.t   (its window; the trend and the scale of a series with a
    trend reach twice as far back, steps 1 and 3).

    The model, for one target:
      0. training  the window's values (in the model's scale, moved by dq_shift) without the buckets judged
                 anomalous (dq_excluded: one bad bucket does not widen the band of the buckets after it) and, for
                 counts, without zero-row buckets unless zero is usual (2 of the target's season or a quarter of
                 the window): a zero is an outage, not an extreme low value to learn from. n = training values;
      1. trend   (dq_trend) b = median of the pairwise slopes (v_j - v_i) / (t_j - t_i) over pairs i < j of the
                 values training keeps (as in 0) in the trend's reach, twice the window:
                 target.t - 2 x training_buckets <= t < target.t (the older half is there when earlier runs
                 recorded it; a first run has the window alone) (Theil-Sen); with seasonality only pairs of the same
                 season, so the seasonal pattern cancels out of every slope; b = 0 without dq_trend. Why twice: a
                 compounding drift is a straight line in the model's scale, and a median over the window's own pairs
                 follows it within about two weeks, after which the drifting series stays inside a band that moves
                 with it (BENCHMARKS.md: 7 of 56 drifts on the benchmark's seeds were never flagged that way);
      2. level   each training value is moved to the target's time, a_i = v_i - b (t_i - t);
                 expected = median of a_i over the target's season (all values without seasonality); when the
                 window keeps fewer than 2 values of the season (its buckets judged anomalous or zero), over the
                 season's kept values of the trend's reach (with dq_trend) instead (m in 4 counts them; D stays
                 the window's, 0 when it keeps none of the season: that band is a little narrow);
      3. scale   s = 1.0757 x the mean of the smallest 90% of |(v_j - v_i) - b (t_j - t_i)| over the pairs of 1
                 (the trend's reach with dq_trend, the window without; of one season as in 1)
                 (for normal data that mean is 0.9296 sigma: |N(0, 2 sigma^2)| below its 90% quantile);
                 from the reach, the drifting buckets not yet judged are a smaller share of the pairs and widen
                 the band less, and twice the pairs make a steadier s;
                 a count (dq_log) varies by its Poisson noise too, p(c) = c / (1 + c)^2 in ln(1 + c), the larger
                 the smaller the count: when the expected count's p is above the values' mean P, the part of s^2
                 that P could explain (min(P, s^2)) is moved to it, s^2 + min(P, s^2) (p(expected) / P - 1). A
                 small table that fell to half its rows (a level shift), or a weekend of few rows, gets a wider
                 band than the days of more rows its scale was learned from; a count less noisy than Poisson (a load
                 of fixed size) widens in proportion. Never narrower: narrowing the band of a larger count added
                 false alarms (BENCHMARKS.md: small tables alarmed for weeks after a fall);
      4. band    expected -/+ k x s x sqrt(1 + 1.571 / m + D^2 / S), m = values behind the median
                 (pi/2 sigma^2/m is the variance of a median), D their mean distance to the target and
                 S the sum of squares of t within the seasons (sigma^2/S is the variance of the slope, so D^2/S
                 that of extrapolating it, taken over the window's values: an upper bound when the trend
                 reaches further back; 0 without trend): a prediction band. k is the sensitivity z read as a
                 Student-t quantile (Cornish-Fisher: z + (z^3 + z) / (4 df) + (5 z^5 + 16 z^3 + 3 z) / (96 df^2)),
                 df = 0.86 x (values - levels fitted (1, or the seasons) - 1 with a trend), at least 1, counted in
                 the window (the level's values) even where s comes from the reach (counted over the reach, the
                 point band alarmed more after level shifts: docs/BENCHMARKS.md);
      5. season  seasonality auto (the default) fits both models and keeps the seasonal one where the history
                 shows a season: its scale (3) below 0.8 x the plain one's (with two values of the target's season and
                 three same-season pairs); day_of_week / hour_of_day always use it (with those values), none never;
                 the verdict says which (seasonality);
      6. level test (sustained change: a drift, a level shift) each recent value -- the target and the kept
                 buckets of the season period before it (`period` buckets: 7 days, 24 hours) -- less its baseline:
                 the mean of the kept values one and two periods before it (the one kept when only one is, and only
                 values after the same accepted level shift: a change across one carries the error of its size),
                 moved along b to its time. That change is free of the seasonal pattern and of any forecast; its
                 variance is s^2 (1 + 1/2) with two baseline values, 2 s^2 with one (var_i). Each change is capped at
                 its own 2.5 sd, 2.5 s sqrt(var_i), and at most the band's half width (an outlier not yet left out,
                 among the recent values or their baselines, moves the sum by at most its weight x that); the
                 target's own change at the half width alone when its baseline values have verdicts (it is no
                 earlier outlier, an outlier among its baselines was left out, and beyond the half width the point
                 test judges it: a drift's newest change is its largest and weighs most; buckets older than the
                 first run have no verdict), and
                 weighted by its position, w_i = 1 for the oldest recent bucket .. `period` for the target: a
                 compounding drift grows linearly in the model's scale, so the recent changes weigh most.
                 With at least half a period of changes, T = sum w_i c_i beyond f x k' x s x sqrt(sum w_i^2 var_i)
                 (f = 0.85 for row counts, 0.9 for the other checks: chosen on the benchmark's seeds,
                 docs/BENCHMARKS.md; k' is k with the degrees of
                 freedom of s, those of 4 counted over the values s is learned from: the trend's reach with a
                 trend, the window without), on the target's side of
                 expected, is anomalous: drift, reported with the band centred on the value less the change at the
                 target the ramp implies (period x T / sum w_i^2) and half width f x k' x s x period x
                 sqrt(sum w_i^2 var_i) / sum w_i^2, which the value is outside of;
      7. verdict training when n < min_training_buckets; else anomalous when the value is above the upper bound
                 (direction both|spike) or below the lower bound (both|drop), a zero-row bucket where zero is not
                 usual (both|drop), or when the level test fires; side = 1 above expected, -1 below;
      8. level shift when the target and the bucket before it were both judged anomalous on one side and their
                 changes (each value less the mean of the kept values one and two periods before it, the one of them
                 that is kept when only one is, along b; judged or not) agree, the new level is accepted. They agree
                 when they differ by at most k x s x sqrt(3): k sd of the difference of two changes of variance
                 1.5 s^2 each (within the point band's half width, about 0.6 of that, true shifts failed on their
                 noise: docs/BENCHMARKS.md): level_shift = the mean of the two changes, shift_start = t - 1; later
                 windows move every bucket before shift_start by it and train on the two again
                 (anomaly_judged_history_sql), so a shift alarms on 2 buckets, not for a training window. Two, not
                 three: with three, a later alarm at the false-alarm rate or a holiday among the first days made
                 most seeds' shifts alarm 4-6 days; the price is that an unmarked two-day event (an outage, a
                 two-day holiday) is taken for a new level (step 9 undoes it); buckets marked as incidents or
                 holidays never start a run;
      9. return  the bucket right after an accepted level shift (its two buckets one segment, the bucket before
                 them the segment before, both judged anomalous: dq_fresh), on the other side of the new level
                 (whatever the direction judged) outside its point band or in the third of the shift nearest the old
                 level (a small shift the level test accepted on noise has a point band wider than itself, so a
                 bucket back at the old level can be inside it: without this the wrong level stayed, and the band
                 that mixes both levels hid a drift for 19 days, docs/BENCHMARKS.md), and inside the point band around
                 the level before the shift (expected less the shift), and not marked by the user (cfg.marked: a
                 marked holiday is no return), is back at the old level: a two-day event,
                 not a new level. Normal, reported against that band; level_shift = minus the shift, shift_start =
                 t, so later windows move the two buckets back and train at the old level (without it the return
                 alarmed twice and was then accepted as a shift back: docs/BENCHMARKS.md).
     10. resume  the bucket right after such a return (normal, a segment of its own after the two anomalous buckets
                 of the shift it undid) back at the level the return undid, by the same test as 9 with that level in
                 place of the old one, and not marked by the user: the return was a one-day event (an unmarked holiday
                 on a real shift's third day), not the end of the shift. Normal, reported against the undone level's
                 band; level_shift = the undone shift, shift_start = t, so later windows move the buckets before it
                 onto the new level again (the return bucket with them). Without it the shift alarmed again on its
                 fourth and fifth buckets before it was accepted a second time (docs/BENCHMARKS.md).

    Why medians: a mean and a standard deviation learn from every training value, so one past outlier
    (a spike, an outage) moves the expected value and inflates the band for the whole training window,
    hiding the next anomaly; a median moves by at most one rank, and the trimmed pairwise scale leaves
    out the largest 10% of the pairs. Medians and trimmed means are exact, computed with row_number()
    (the two macros below): the same SQL on DuckDB, PostgreSQL and BigQuery.

    Output columns: series_id, t, season, value, expected, lower_bound, upper_bound (value, expected and
    bounds in the series' own unit), training_count, training, anomalous, seasonal, seasonality (the one used:
    day_of_week, hour_of_day or none), drift (the level test alone found it), side, level_shift and
    shift_start (a confirmed level shift, a return that undoes one or a resume that takes it back, NULL
    otherwise). -#}

{#- The exact median of `value_expr` per `keys` over `from_sql`, NULL values left out: a SELECT with
    the key columns, dq_median and dq_count. -#}
{% macro anomaly_median_sql(from_sql, keys, value_expr) %}
  {{ return(dataplex_dq.anomaly_ranked_mean_sql(from_sql, keys, value_expr, 'dq_median',
      'dq_rn >= floor((dq_cnt + 1) / 2.0) and dq_rn <= floor((dq_cnt + 2) / 2.0)')) }}
{% endmacro %}

{#- The quantile of Student's t with `dof_expr` degrees of freedom at the normal quantile z (Cornish-Fisher). -#}
{% macro anomaly_t_quantile(z, dof_expr) -%}
({{ z }} + ({{ z }} * {{ z }} * {{ z }} + {{ z }}) / (4.0 * {{ dof_expr }}) + (5 * power({{ z }}, 5) + 16 * power({{ z }}, 3) + 3 * {{ z }}) / (96.0 * {{ dof_expr }} * {{ dof_expr }}))
{%- endmacro %}

{#- The trimmed mean of `value_expr` per `keys` over `from_sql`: the mean of the smallest 90% of the values
    (at least one; NULL values left out), ranked by row_number(). A SELECT with the key columns, dq_trimmed and
    dq_count. -#}
{% macro anomaly_trimmed_mean_sql(from_sql, keys, value_expr) %}
  {{ return(dataplex_dq.anomaly_ranked_mean_sql(from_sql, keys, value_expr, 'dq_trimmed',
      'dq_rn <= greatest(floor(dq_cnt * 9 / 10.0), 1)')) }}
{% endmacro %}

{#- The mean of the non-NULL values of `value_expr` per `keys` over `from_sql` whose rank (dq_rn, by
    row_number() in ascending order; dq_cnt values per key) satisfies `rank_condition`: the median and the
    trimmed mean above. A SELECT with the key columns, `name` and dq_count. -#}
{% macro anomaly_ranked_mean_sql(from_sql, keys, value_expr, name, rank_condition) %}
  {%- set k = keys | join(', ') -%}
  {%- set sql -%}
select {{ k }}, avg(dq_v) as {{ name }}, max(dq_cnt) as dq_count
from (
  select {{ k }}, dq_v,
    row_number() over (partition by {{ k }} order by dq_v) as dq_rn,
    count(*) over (partition by {{ k }}) as dq_cnt
  from (select {{ k }}, {{ value_expr }} as dq_v from {{ from_sql }}) dq_m0
  where dq_v is not null
) dq_m1
where {{ rank_condition }}
group by {{ k }}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The history columns a caller without verdicts adds (nothing judged before, no level shift). -#}
{% macro anomaly_history_plain_columns() %}
  {{ return("false as dq_excluded, 0 as dq_side, cast(0 as " ~ dataplex_dq.type_double() ~ ") as dq_shift, 0 as dq_segment, false as dq_judged, false as dq_anomalous") }}
{% endmacro %}

{#- cfg: training_buckets, min_training_buckets, sensitivity, direction, seasonality (none | day_of_week |
    hour_of_day | auto; auto: season_name says what the history's season column is, and the seasonal model is
    used only where it fits the window better), period (buckets in a season period: the level test's lag; 7 by
    default). anomaly_detector_cfg (macros/anomaly/declaration.sql) makes it from a declaration. -#}
{% macro anomaly_detector_sql(history_sql, targets_sql, cfg) %}
  {%- set d = dataplex_dq.type_double() -%}
  {%- set seasonal = cfg.seasonality not in [none, 'none'] -%}
  {%- set auto = cfg.seasonality == 'auto' -%}
  {%- set season_name = cfg.get('season_name', 'day_of_week') if auto else cfg.seasonality -%}
  {#- part: F = the whole training window -#}
  {%- set keys = ['series_id', 'target_t', 'part', 'kind'] -%}
  {%- set n = cfg.training_buckets | int -%}
  {%- set lag = cfg.get('period', 7) | int -%}
  {#- the trend's reach: twice the window of recorded history (step 1) -#}
  {%- set reach = 2 * n -%}
  {#- a recent change is capped at its own level_cap sd (and at most the point band's half width) -#}
  {%- set level_cap = 2.5 -%}
  {#- a level shift is accepted on its second anomalous bucket in a row on one side (step 8) -#}
  {%- set shift_run = 2 -%}
  {#- the buckets the user marked as incidents or holidays: a marked bucket never undoes or resumes a level shift
      (steps 9, 10) -#}
  {%- set marked = cfg.get('marked', []) -%}
  {%- set sql -%}
with dq_targets as (
  select series_id, t, season, cast(value as {{ d }}) as raw_value, dq_log, dq_trend,
    case when dq_log then ln(1 + cast(value as {{ d }})) else cast(value as {{ d }}) end as value
  from ({{ targets_sql }}) dq_t0
),
dq_history as (
  {{ history_sql }}
),
dq_reach as (
  {#- every history value of the trend's reach (twice the window), in the model's scale, moved by the level shifts
      accepted after it -#}
  select g.series_id, g.t as target_t, g.season as target_season, g.dq_log, g.dq_trend, h.t, h.season, h.dq_excluded, h.dq_side,
    coalesce(h.dq_segment, 0) as dq_segment, coalesce(h.dq_judged, false) as dq_judged, coalesce(h.dq_shift, 0) as dq_shift,
    coalesce(h.dq_anomalous, false) as dq_anomalous,
    (g.dq_log and cast(h.value as {{ d }}) = 0) as dq_zero,
    {#- a count's Poisson variance in the model's scale, c / (1 + c)^2 (step 3) -#}
    case when g.dq_log then cast(h.value as {{ d }}) / ((1 + cast(h.value as {{ d }})) * (1 + cast(h.value as {{ d }}))) else 0 end as dq_poisson,
    case when g.dq_log then ln(1 + cast(h.value as {{ d }})) else cast(h.value as {{ d }}) end + coalesce(h.dq_shift, 0) as value
  from dq_targets g
  join dq_history h on h.series_id = g.series_id and h.t < g.t and h.t >= g.t - {{ reach }}
  where h.value is not null
),
dq_window as (
  {#- the window: the history values the level and the band learn from (and the scale without a trend) -#}
  select * from dq_reach where t >= target_t - {{ n }}
),
dq_zero as (
  {#- a zero-row bucket is usual for the target when 2 of its season's values or a quarter of the window are zero -#}
  select series_id, target_t,
    (sum(case when dq_zero and season = target_season then 1 else 0 end) >= 2
      or 4 * sum(case when dq_zero then 1 else 0 end) >= count(*)) as zero_usual,
    max(dq_segment) as last_segment
  from dq_window group by series_id, target_t
),
dq_kept as (
  {#- the values training keeps, over the trend's reach: without the buckets judged anomalous (unless accepted as a
      new level) and without zero-row buckets where zero is not usual -#}
  select w.series_id, w.target_t, w.target_season, w.t, w.season, w.value, w.dq_segment, w.dq_trend, w.dq_judged, w.dq_poisson
  from dq_reach w join dq_zero z on z.series_id = w.series_id and z.target_t = w.target_t
  where not w.dq_excluded and (not w.dq_zero or z.zero_usual)
),
dq_train as (
  {#- training: the window's kept values -#}
  select series_id, target_t, target_season, t, season, value from dq_kept where t >= target_t - {{ n }}
),
dq_parts as (
  {#- F: every training value (the one part left: the keys below keep the column) -#}
  select series_id, target_t, target_season, t, season, value, 'F' as part from dq_train
),
dq_reach_parts as (
  {#- the kept values of the trend's reach: their pairs give the trend and the scale (steps 1 and 3), so a drift of a
      few weeks inside the window does not become the trend it is judged against, and the scale is learned from twice
      the pairs; without a trend (its slope is 0) the window's values alone -#}
  select series_id, target_t, target_season, t, season, value, dq_poisson, 'F' as part
  from dq_kept where dq_trend or t >= target_t - {{ n }}
),
dq_poisson as (
  {#- the mean Poisson variance of the values the scale is learned from (step 3) -#}
  select series_id, target_t, avg(dq_poisson) as poisson_mean from dq_reach_parts group by series_id, target_t
),
dq_pairs as (
  select a.series_id, a.target_t, a.part, 'A' as kind, b.value - a.value as dv, cast(b.t - a.t as {{ d }}) as dt
  from dq_reach_parts a join dq_reach_parts b on a.series_id = b.series_id and a.target_t = b.target_t and a.part = b.part and a.t < b.t
  {%- if seasonal %}
  union all
  select a.series_id, a.target_t, a.part, 'S' as kind, b.value - a.value as dv, cast(b.t - a.t as {{ d }}) as dt
  from dq_reach_parts a join dq_reach_parts b on a.series_id = b.series_id and a.target_t = b.target_t and a.part = b.part and a.t < b.t
    and a.season = b.season
  {%- endif %}
),
dq_slope_raw as (
  {{ dataplex_dq.anomaly_median_sql('dq_pairs', keys, 'dv / dt') }}
),
dq_slope as (
  select s.series_id, s.target_t, s.part, s.kind, case when g.dq_trend then s.dq_median else 0 end as dq_median
  from dq_slope_raw s join dq_targets g on g.series_id = s.series_id and g.t = s.target_t
),
dq_dev as (
  select p.series_id, p.target_t, p.part, p.kind, abs(p.dv - s.dq_median * p.dt) as dev
  from dq_pairs p join dq_slope s on s.series_id = p.series_id and s.target_t = p.target_t and s.part = p.part and s.kind = p.kind
  where p.part = 'F'
),
dq_scale as (
  {#- sigma = 1.0757 x the mean of the smallest 90% of the pairs' |deviations| (see the header, step 3) -#}
  select series_id, target_t, part, kind, 1.0757 * dq_trimmed as dq_scale, dq_count
  from ({{ dataplex_dq.anomaly_trimmed_mean_sql('dq_dev', keys, 'dev') }}) dq_s0
),
dq_level_in as (
  {#- the point test's level: every training value moved to the target's time along the whole window's trend -#}
  select tr.series_id, tr.target_t, 'F' as part, 'A' as kind, tr.value - coalesce(s.dq_median, 0) * (tr.t - tr.target_t) as adj
  from dq_train tr left join dq_slope s on s.series_id = tr.series_id and s.target_t = tr.target_t and s.part = 'F' and s.kind = 'A'
  {%- if seasonal %}
  union all
  select tr.series_id, tr.target_t, 'F' as part, 'S' as kind, tr.value - coalesce(s.dq_median, 0) * (tr.t - tr.target_t) as adj
  from dq_train tr left join dq_slope s on s.series_id = tr.series_id and s.target_t = tr.target_t and s.part = 'F' and s.kind = 'S'
  where tr.season = tr.target_season
  union all
  {#- R: the values of the target's season in dq_reach_parts (the trend's reach with a trend, the window without) #}
  select k.series_id, k.target_t, 'F' as part, 'R' as kind, k.value - coalesce(s.dq_median, 0) * (k.t - k.target_t) as adj
  from dq_reach_parts k left join dq_slope s on s.series_id = k.series_id and s.target_t = k.target_t and s.part = 'F' and s.kind = 'S'
  where k.season = k.target_season
  {%- endif %}
),
dq_level as (
  {{ dataplex_dq.anomaly_median_sql('dq_level_in', keys, 'adj') }}
),
{%- if seasonal %}
dq_level_season as (
  {#- the level of the target's season: from the window's values of the season, or, when the window keeps fewer than
      2 of them (anomalies, holidays or outages on one weekday left them out), from the season's values of the
      trend's reach: else a weekly table would fall back to the plain model, whose level is every day's. R holds every
      value S holds, so a target with S has R -#}
  select r.series_id, r.target_t,
    case when s.dq_count >= 2 then s.dq_median else r.dq_median end as dq_median,
    case when s.dq_count >= 2 then s.dq_count else r.dq_count end as dq_count
  from (select series_id, target_t, dq_median, dq_count from dq_level where kind = 'R') r
  left join (select series_id, target_t, dq_median, dq_count from dq_level where kind = 'S') s
    on s.series_id = r.series_id and s.target_t = r.target_t
),
{%- endif %}
dq_recent as (
  {#- the level test's values: the buckets of the last season period ({{ lag }} buckets, the target's included) that
      training keeps, and the run's: the target and the bucket before it, judged anomalous or not -#}
  select w.series_id, w.target_t, w.t, w.value, w.dq_side, not w.dq_excluded as dq_kept, w.dq_segment
  from dq_window w join dq_zero z on z.series_id = w.series_id and z.target_t = w.target_t
  where w.t > w.target_t - {{ lag }} and (not w.dq_zero or z.zero_usual)
  union all
  select g.series_id, g.t as target_t, g.t, g.value, 0 as dq_side, true as dq_kept, coalesce(z.last_segment, 0) as dq_segment
  from dq_targets g left join dq_zero z on z.series_id = g.series_id and z.target_t = g.t
  where not (g.dq_log and g.raw_value = 0 and not coalesce(z.zero_usual, false))
),
dq_lagged as (
  {#- the buckets training keeps, as the values a recent value is compared with -#}
  select series_id, target_t, t, value, dq_segment, dq_judged from dq_kept where t >= target_t - {{ n }}
),
dq_diff as (
  {#- each recent value's change of level: the value minus its baseline, the mean of the kept values one and two season
      periods before it that lie after the same accepted level shift (a change across one carries the error of its
      size), moved along the trend to its time (free of the seasonal pattern and of any forecast); var: the change's
      variance over scale^2 (1 + 1/2 for two baseline values, 1 + 1 for one); w: its ramp weight, 1 for the oldest
      recent bucket .. {{ lag }} for the target. run_diff: the change against the mean of the kept values one and two
      season periods before (the one kept when only one is), across level shifts, judged or not, along the trend: the
      run of step 8 -#}
  select u.series_id, u.target_t, u.t, u.dq_kept,
    {{ lag }} - (u.target_t - u.t) as w,
    u.value - coalesce((w1.value + w2.value) / 2.0 + {{ 1.5 * lag }} * coalesce(s.dq_median, 0), w1.value + {{ lag }} * coalesce(s.dq_median, 0), w2.value + {{ 2 * lag }} * coalesce(s.dq_median, 0)) as run_diff,
    coalesce(w1.dq_segment = u.dq_segment or w2.dq_segment = u.dq_segment, false) as same_level,
    case when w1.dq_segment = u.dq_segment and w2.dq_segment = u.dq_segment
           then u.value - (w1.value + w2.value) / 2.0 - {{ 1.5 * lag }} * coalesce(s.dq_median, 0)
         when w1.dq_segment = u.dq_segment then u.value - w1.value - {{ lag }} * coalesce(s.dq_median, 0)
         else u.value - w2.value - {{ 2 * lag }} * coalesce(s.dq_median, 0) end as diff,
    case when w1.dq_segment = u.dq_segment and w2.dq_segment = u.dq_segment then 1.5 else 2.0 end as var,
    (w1.value is null or w1.dq_judged) and (w2.value is null or w2.dq_judged) as baseline_judged
  from dq_recent u
  left join dq_lagged w1 on w1.series_id = u.series_id and w1.target_t = u.target_t and w1.t = u.t - {{ lag }}
  left join dq_lagged w2 on w2.series_id = u.series_id and w2.target_t = u.target_t and w2.t = u.t - {{ 2 * lag }}
  left join dq_slope s on s.series_id = u.series_id and s.target_t = u.target_t and s.part = 'F' and s.kind = '{{ 'S' if seasonal else 'A' }}'
  where w1.value is not null or w2.value is not null
),
dq_count as (
  select series_id, target_t, count(*) as training_count from dq_train group by series_id, target_t
),
dq_dof as (
  select series_id, target_t, part, count(*) as n_part, count(distinct season) as n_seasons
  from dq_parts group by series_id, target_t, part
),
dq_dof_reach as (
  {#- the values the scale is learned from (the trend's reach with a trend, the window without): its degrees of
      freedom, which the level test's threshold uses -#}
  select series_id, target_t, count(*) as n_reach from dq_reach_parts group by series_id, target_t
),
dq_spread_s as (
  {#- sum of squares of t within each season (all values: one season without seasonality), per part -#}
  select series_id, target_t, part, {{ 'season' if seasonal else '0 as season' }},
    sum(cast(t - target_t as {{ d }}) * (t - target_t)) - sum(cast(t - target_t as {{ d }})) * sum(t - target_t) / count(*) as ss
  from dq_parts group by series_id, target_t, part{{ ', season' if seasonal else '' }}
),
dq_spread as (
  select series_id, target_t, part, sum(ss) as ss_season from dq_spread_s group by series_id, target_t, part
),
dq_ss_all as (
  select series_id, target_t, part,
    sum(cast(t - target_t as {{ d }}) * (t - target_t)) - sum(cast(t - target_t as {{ d }})) * sum(t - target_t) / count(*) as ss_all
  from dq_parts group by series_id, target_t, part
),
dq_dist as (
  select series_id, target_t, avg(cast(target_t - t as {{ d }})) as dist_all,
    {{ "avg(case when season = target_season then cast(target_t - t as " ~ d ~ ") end)" if seasonal else "cast(null as " ~ d ~ ")" }} as dist_season
  from dq_train group by series_id, target_t
),
dq_model as (
  select
    g.series_id, g.t, g.season, g.value, g.raw_value, g.dq_log, po.poisson_mean,
    coalesce(c.training_count, 0) as training_count,
    coalesce(z.zero_usual, false) as zero_usual,
    {%- if seasonal %}
    {%- if auto %}
    {#- auto: the seasonal model where the window shows a season (its scale below 0.8 of the plain one) -#}
    {%- set use_s = "(ls.dq_count >= 2 and ss.dq_count >= 3 and ss.dq_scale < 0.8 * sa.dq_scale)" %}
    {%- else %}
    {%- set use_s = "(ls.dq_count >= 2 and ss.dq_count >= 3)" %}
    {%- endif %}
    coalesce({{ use_s }}, false) as seasonal,
    case when {{ use_s }} then ls.dq_median else la.dq_median end as expected,
    case when {{ use_s }} then ss.dq_scale else sa.dq_scale end as scale_fit,
    case when {{ use_s }} then ls.dq_count else la.dq_count end as level_count,
    case when {{ use_s }} then df.n_part - df.n_seasons else df.n_part - 1 end - case when g.dq_trend then 1 else 0 end as dof,
    case when {{ use_s }} then dr.n_reach - df.n_seasons else dr.n_reach - 1 end - case when g.dq_trend then 1 else 0 end as dof_reach,
    case when not g.dq_trend then 0.0
         when {{ use_s }} then dd.dist_season * dd.dist_season / nullif(sd.ss_season, 0)
         else dd.dist_all * dd.dist_all / nullif(sq.ss_all, 0) end as trend_var,
    case when {{ use_s }} then 'S' else 'A' end as model_kind
    {%- else %}
    false as seasonal,
    la.dq_median as expected,
    sa.dq_scale as scale_fit,
    la.dq_count as level_count,
    df.n_part - 1 - case when g.dq_trend then 1 else 0 end as dof,
    dr.n_reach - 1 - case when g.dq_trend then 1 else 0 end as dof_reach,
    case when not g.dq_trend then 0.0 else dd.dist_all * dd.dist_all / nullif(sq.ss_all, 0) end as trend_var,
    'A' as model_kind
    {%- endif %}
  from dq_targets g
  left join dq_count c on c.series_id = g.series_id and c.target_t = g.t
  left join dq_poisson po on po.series_id = g.series_id and po.target_t = g.t
  left join dq_zero z on z.series_id = g.series_id and z.target_t = g.t
  left join dq_dist dd on dd.series_id = g.series_id and dd.target_t = g.t
  left join dq_dof df on df.series_id = g.series_id and df.target_t = g.t and df.part = 'F'
  left join dq_dof_reach dr on dr.series_id = g.series_id and dr.target_t = g.t
  left join dq_spread sd on sd.series_id = g.series_id and sd.target_t = g.t and sd.part = 'F'
  left join dq_ss_all sq on sq.series_id = g.series_id and sq.target_t = g.t and sq.part = 'F'
  left join dq_level la on la.series_id = g.series_id and la.target_t = g.t and la.part = 'F' and la.kind = 'A'
  left join dq_scale sa on sa.series_id = g.series_id and sa.target_t = g.t and sa.part = 'F' and sa.kind = 'A'
  {%- if seasonal %}
  left join dq_level_season ls on ls.series_id = g.series_id and ls.target_t = g.t
  left join dq_scale ss on ss.series_id = g.series_id and ss.target_t = g.t and ss.part = 'F' and ss.kind = 'S'
  {%- endif %}
),
dq_band as (
  select m.*,
    {{ dataplex_dq.anomaly_t_quantile(cfg.sensitivity, 'm.dof_eff') }} as k,
    {#- the level test's k: its band is scale x the sd of the ramp, so the scale's degrees of freedom alone count -#}
    {{ dataplex_dq.anomaly_t_quantile(cfg.sensitivity, 'm.dof_reach_eff') }} as k_level,
    {{ dataplex_dq.anomaly_t_quantile(cfg.sensitivity, 'm.dof_eff') }}
      * m.scale * sqrt(1.0 + 1.571 / m.level_count + coalesce(m.trend_var, 0)) as half_width,
    (m.training_count < {{ cfg.min_training_buckets | int }} or m.expected is null or m.scale is null) as training,
    {#- the level test's threshold as a share of k: 0.85 for row counts, 0.9 for the other checks, chosen on the
        benchmark's seeds (docs/BENCHMARKS.md: lower, counts' drifts are caught sooner at few more false alarms; the
        freshness and null checks of the families suite alarmed more) -#}
    case when m.dq_log then 0.85 else 0.9 end as level_factor
  from (
    select dq_m.*, greatest(dq_m.dof * 0.86, 1.0) as dof_eff, greatest(dq_m.dof_reach * 0.86, 1.0) as dof_reach_eff,
      {#- a count's scale at a lower expected count than its training values': the Poisson share of the fitted variance
          (at most all of it) moved from their mean Poisson variance to the expected count's (step 3) -#}
      case when dq_m.dq_log and dq_m.poisson_mean > 0 and dq_m.expected is not null
        then sqrt(dq_m.scale_fit * dq_m.scale_fit + least(dq_m.poisson_mean, dq_m.scale_fit * dq_m.scale_fit)
          * greatest((exp(-greatest(dq_m.expected, 0)) - exp(-2 * greatest(dq_m.expected, 0))) / dq_m.poisson_mean - 1, 0))
        else dq_m.scale_fit end as scale
    from dq_model dq_m
  ) m
),
dq_level_test as (
  {#- the level test: the ramp-weighted sum of the kept recent changes, each capped (cap below), with the sum of the
      squared weights and its variance over scale^2; the run: the changes of the target and the bucket before it -#}
  select f.series_id, f.target_t,
    sum(case when f.dq_kept and f.same_level then 1 else 0 end) as level_n,
    sum(case when f.dq_kept and f.same_level then f.w * least(greatest(f.diff, -f.cap), f.cap) end) as ramp_sum,
    sum(case when f.dq_kept and f.same_level then f.w * f.w end) as ramp_ww,
    sum(case when f.dq_kept and f.same_level then f.w * f.w * f.var end) as ramp_var,
    sum(case when f.t > f.target_t - {{ shift_run }} then 1 else 0 end) as run_n,
    sum(case when f.t > f.target_t - {{ shift_run }} then f.run_diff else 0 end) as run_sum,
    min(case when f.t > f.target_t - {{ shift_run }} then f.run_diff end) as run_min,
    max(case when f.t > f.target_t - {{ shift_run }} then f.run_diff end) as run_max
  from (
    {#- cap: an earlier recent change at its own {{ level_cap }} sd and at most the point band's half width (an outlier
        the verdicts have not left out yet moves the sum by at most its weight x that); the target's own change at
        the half width alone when its baseline values were judged (it is no earlier outlier, an outlier among them
        was left out, and beyond the half width the point test judges it) -#}
    select d.*,
      case when d.t = d.target_t and d.baseline_judged then b.half_width
           else least(b.half_width, {{ level_cap }} * b.scale * sqrt(d.var)) end as cap
    from dq_diff d join dq_band b on b.series_id = d.series_id and b.t = d.target_t
  ) f
  group by f.series_id, f.target_t
),
dq_fresh as (
  {#- back_shift: where the level the model just left lies, relative to the level it judges the target at. After a
      level shift accepted on the bucket before the target (its two buckets judged anomalous, one segment, after the
      bucket before them; a return that undid a shift is not anomalous): minus its size, what the buckets before it
      were moved by (step 9). After a return on the bucket before the target (normal, a segment of its own after the
      two anomalous buckets of the shift it undid): the size of the shift it undid (step 10) -#}
  select series_id, target_t,
    case when a1 = 1 and a2 = 1 and seg1 = seg2 and seg3 = seg2 - 1 and shift3 - shift2 <> 0 then shift2 - shift3
         when a1 = 0 and a2 = 1 and a3 = 1 and seg1 = seg2 + 1 and seg2 = seg3 and seg4 = seg3 - 1 and shift4 - shift3 <> 0
           then shift4 - shift3 end as back_shift
  from (
    select series_id, target_t,
      max(case when t = target_t - 1 and dq_anomalous then 1 else 0 end) as a1,
      max(case when t = target_t - 2 and dq_anomalous then 1 else 0 end) as a2,
      max(case when t = target_t - 3 and dq_anomalous then 1 else 0 end) as a3,
      max(case when t = target_t - 1 then dq_segment end) as seg1,
      max(case when t = target_t - 2 then dq_segment end) as seg2,
      max(case when t = target_t - 3 then dq_segment end) as seg3,
      max(case when t = target_t - 4 then dq_segment end) as seg4,
      max(case when t = target_t - 2 then dq_shift end) as shift2,
      max(case when t = target_t - 3 then dq_shift end) as shift3,
      max(case when t = target_t - 4 then dq_shift end) as shift4
    from dq_window where t >= target_t - 4 group by series_id, target_t
  ) dq_f0
),
dq_prior as (
  {#- the side of an anomaly found on the bucket before the target -#}
  select series_id, target_t,
    sum(case when dq_side = 1 then 1 else 0 end) as prior_up,
    sum(case when dq_side = -1 then 1 else 0 end) as prior_down
  from dq_window where t > target_t - {{ shift_run }} group by series_id, target_t
),
dq_verdict as (
  select b.*, lt.level_n, lt.run_n, lt.run_sum, lt.run_min, lt.run_max,
    coalesce(p.prior_up, 0) as prior_up, coalesce(p.prior_down, 0) as prior_down,
    fr.back_shift,
    {#- the level test in the value's scale: the change at the target the ramp implies ({{ lag }} x the least-squares
        change per bucket, ramp_sum / ramp_ww) and its half width: level_factor x k x scale x the sd of that estimate -#}
    {{ lag }} * lt.ramp_sum / lt.ramp_ww as level_change,
    b.level_factor * b.k_level * b.scale * {{ lag }} * sqrt(lt.ramp_var) / lt.ramp_ww as level_width,
    {#- a zero-row bucket where zero is not usual is anomalous whatever the band -#}
    coalesce(not training and value is not null and (
      {%- set tests = [] -%}
      {%- if cfg.direction in ['both', 'spike'] -%}{%- do tests.append("value > expected + half_width") -%}{%- endif -%}
      {%- if cfg.direction in ['both', 'drop'] -%}{%- do tests.append("value < expected - half_width") -%}{%- do tests.append("(dq_log and raw_value = 0 and not zero_usual)") -%}{%- endif -%}
      {{ tests | join(' or ') }}), false) as point_anomalous,
    coalesce(not training and lt.level_n >= {{ [((lag + 1) / 2) | int, 2] | max }} and (
      {%- set tests = [] -%}
      {%- if cfg.direction in ['both', 'spike'] -%}{%- do tests.append("(lt.ramp_sum > b.level_factor * b.k_level * b.scale * sqrt(lt.ramp_var) and value > expected)") -%}{%- endif -%}
      {%- if cfg.direction in ['both', 'drop'] -%}{%- do tests.append("(lt.ramp_sum < -b.level_factor * b.k_level * b.scale * sqrt(lt.ramp_var) and value < expected)") -%}{%- endif -%}
      {{ tests | join(' or ') }}), false) as run_anomalous
  from dq_band b
  left join dq_level_test lt on lt.series_id = b.series_id and lt.target_t = b.t
  left join dq_prior p on p.series_id = b.series_id and p.target_t = b.t
  left join dq_fresh fr on fr.series_id = b.series_id and fr.target_t = b.t
),
dq_return as (
  {#- steps 9 and 10: the bucket right after a move of the level back at the level the model just left, expected +
      back_shift (dq_fresh): on that side of expected, whatever the direction judged, outside the point band or in
      the third of the way nearest the level left, and inside the point band around it -#}
  select v.*,
    coalesce(not training and ((back_shift < 0 and value < expected - least(half_width, -2 * back_shift / 3)) or (back_shift > 0 and value > expected + least(half_width, 2 * back_shift / 3)))
      and abs(value - (expected + back_shift)) <= half_width{{ (' and t not in (' ~ (marked | join(', ')) ~ ')') if marked else '' }}, false) as returned
  from dq_verdict v
),
dq_reported as (
  {#- the band the verdict was judged against: the level test's when only it fired (centred on the value less the
      change at the target the ramp implies, which it is outside of); the side of the anomaly -#}
  select v.*, run_anomalous and not point_anomalous and not returned as drift,
    case when returned then expected + back_shift when run_anomalous and not point_anomalous then value - level_change else expected end as center,
    case when run_anomalous and not point_anomalous and not returned then level_width else half_width end as width,
    case when returned or not (point_anomalous or run_anomalous) then 0 when value >= expected then 1 else -1 end as side
  from dq_return v
),
dq_shift_verdict as (
  {#- a level shift is confirmed when the target and the bucket before it were both judged anomalous on one side
      and their changes over a season period agree (within k sd of the difference of two changes,
      k x scale x sqrt(2 x 1.5)): the new level is accepted, its size the mean of the two changes -#}
  select r.*,
    coalesce(side <> 0 and run_n = {{ shift_run }} and ((side = 1 and prior_up = {{ shift_run - 1 }}) or (side = -1 and prior_down = {{ shift_run - 1 }}))
      and run_max - run_min <= k * scale * sqrt(3.0), false) as shift_confirmed
  from dq_reported r
)
select
  series_id, t, season, raw_value as value,
  case when dq_log then exp(center) - 1 else center end as expected,
  {{ "cast(null as " ~ d ~ ")" if cfg.direction == 'spike' else "case when training then null when dq_log then exp(center - width) - 1 else center - width end" }} as lower_bound,
  {{ "cast(null as " ~ d ~ ")" if cfg.direction == 'drop' else "case when training then null when dq_log then exp(center + width) - 1 else center + width end" }} as upper_bound,
  training_count,
  training,
  (point_anomalous or run_anomalous) and not returned as anomalous,
  seasonal,
  case when seasonal then '{{ season_name }}' else 'none' end as seasonality,
  drift,
  side,
  case when shift_confirmed then run_sum / run_n when returned then back_shift end as level_shift,
  case when shift_confirmed then t - {{ shift_run - 1 }} when returned then t end as shift_start
from dq_shift_verdict
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
