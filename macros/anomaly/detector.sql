{#- The anomaly detector (docs/SEMANTICS.md §13): a robust, seasonal model computed in the warehouse's own SQL.

    Input: `history_sql`, a SELECT with the columns series_id (text), t (integer: bucket index, or
    job ordinal), season (integer, NULL without seasonality), value (double); `targets_sql`, the same
    columns plus dq_log (model ln(1 + value): row counts, whose growth and weekly pattern are
    multiplicative) and dq_trend (fit a trend: row counts grow; a null rate, a mean or a freshness
    should not, so for them a drift is the anomaly, not a trend to learn).
    Each target row is judged against the history rows of its series with
      target.t - training_buckets <= t < target.t   (its training window).

    The model, for one target (n = training values). The window is split: the reference part is
    all but its most recent floor(n / 4) values; the trend and the scale are learned from the
    reference part only, the level from every value. A change that builds up over the last days (a
    gradual drift, a level shift on its first days) would otherwise be learned as trend and would
    inflate the scale -- both widen the band around exactly the values that should leave it.
      0. scale   with dq_log, every value v is read as ln(1 + v), and the band is mapped back;
      1. trend   (dq_trend) b = median of the pairwise slopes (v_j - v_i) / (t_j - t_i) over pairs i < j of the
                 reference part (Theil-Sen); with seasonality only pairs of the same season, so the
                 seasonal pattern cancels out of every slope; b = 0 without dq_trend;
      2. level   each training value is moved to the target's time, a_i = v_i - b (t_i - t);
                 expected = median of a_i over the target's season (all values without seasonality);
      3. scale   s = 1.0483 x median |(v_j - v_i) - b (t_j - t_i)| over the same reference pairs (the
                 Shamos estimator: the median pairwise difference of a normal sample is 0.954 sigma);
      4. band    expected -/+ k x s x sqrt(1 + 1.571 / m + D^2 / S), m = values behind the median
                 (pi/2 sigma^2/m is the variance of a median), D their mean distance to the target and
                 S the sum of squares of t within the reference seasons (sigma^2/S is the variance of
                 the slope, so D^2/S that of extrapolating it; 0 without trend): a prediction band.
                 k is the sensitivity z read as a Student-t quantile: s is estimated from few values,
                 so a band of z x s is crossed by normal data far more often than the normal tail
                 promises (z = 3 with s from 13 values: 4x as often). k = the Cornish-Fisher expansion
                 of t_df at z: z + (z^3 + z) / (4 df) + (5 z^5 + 16 z^3 + 3 z) / (96 df^2), with
                 df = 0.86 x (reference values - levels fitted (1, or the seasons) - 1 with a trend),
                 0.86 being the Shamos estimator's efficiency (at least 1). So `sensitivity` keeps one
                 meaning -- the false-alarm rate of a |z| > sensitivity event -- with any history length;
      5. verdict training when n < min_training_buckets; else anomalous when the value is above the
                 upper bound (direction both|spike) or below the lower bound (both|drop).
    The seasonal model needs two values in the target's season and three same-season reference pairs;
    until then the target is judged by the non-seasonal model (wider: it includes the seasonal swing).

    Why medians: a mean and a standard deviation learn from every training value, so one past outlier
    (a spike, an outage) moves the expected value and inflates the band for the whole training window,
    hiding the next anomaly; a median moves by at most one rank, and the pairwise median scale keeps
    its value until nearly 30% of the pairs are contaminated. Medians are exact, computed with
    row_number() (median_sql below): the same SQL on DuckDB, PostgreSQL and BigQuery.

    Output columns: series_id, t, season, value, expected, lower_bound, upper_bound (value, expected and
    bounds in the series' own unit), training_count, training, anomalous, seasonal. -#}

{#- The exact median of `value_expr` per `keys` over `from_sql`, NULL values left out: a SELECT with
    the key columns, dq_median and dq_count. -#}
{% macro anomaly_median_sql(from_sql, keys, value_expr) %}
  {%- set k = keys | join(', ') -%}
  {%- set sql -%}
select {{ k }}, avg(dq_v) as dq_median, max(dq_cnt) as dq_count
from (
  select {{ k }}, dq_v,
    row_number() over (partition by {{ k }} order by dq_v) as dq_rn,
    count(*) over (partition by {{ k }}) as dq_cnt
  from (select {{ k }}, {{ value_expr }} as dq_v from {{ from_sql }}) dq_m0
  where dq_v is not null
) dq_m1
where dq_rn >= floor((dq_cnt + 1) / 2.0) and dq_rn <= floor((dq_cnt + 2) / 2.0)
group by {{ k }}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- cfg: training_buckets, min_training_buckets, sensitivity, direction, seasonality (none = no seasons). -#}
{% macro anomaly_detector_sql(history_sql, targets_sql, cfg) %}
  {%- set d = dataplex_dq.type_double() -%}
  {%- set seasonal = cfg.seasonality not in [none, 'none'] -%}
  {%- set keys = ['series_id', 'target_t', 'kind'] -%}
  {%- set n = cfg.training_buckets | int -%}
  {%- set sql -%}
with dq_targets as (
  select series_id, t, season, cast(value as {{ d }}) as raw_value, dq_log, dq_trend,
    case when dq_log then ln(1 + cast(value as {{ d }})) else cast(value as {{ d }}) end as value
  from ({{ targets_sql }}) dq_t0
),
dq_history as (
  {{ history_sql }}
),
dq_train as (
  select g.series_id, g.t as target_t, g.season as target_season, h.t, h.season,
    case when g.dq_log then ln(1 + cast(h.value as {{ d }})) else cast(h.value as {{ d }}) end as value
  from dq_targets g
  join dq_history h on h.series_id = g.series_id and h.t < g.t and h.t >= g.t - {{ n }}
  where h.value is not null
),
dq_ref as (
  {#- the reference part of the window: all but its most recent quarter, which the trend and scale do not learn from -#}
  select * from (
    select tr.*, row_number() over (partition by series_id, target_t order by t desc) as dq_recent,
      count(*) over (partition by series_id, target_t) as dq_n
    from dq_train tr
  ) dq_r0
  where dq_recent > floor(dq_n / 4.0)
),
dq_pairs as (
  select a.series_id, a.target_t, 'A' as kind, b.value - a.value as dv, cast(b.t - a.t as {{ d }}) as dt
  from dq_ref a join dq_ref b on a.series_id = b.series_id and a.target_t = b.target_t and a.t < b.t
  {%- if seasonal %}
  union all
  select a.series_id, a.target_t, 'S' as kind, b.value - a.value as dv, cast(b.t - a.t as {{ d }}) as dt
  from dq_ref a join dq_ref b on a.series_id = b.series_id and a.target_t = b.target_t and a.t < b.t and a.season = b.season
  {%- endif %}
),
dq_slope_raw as (
  {{ dataplex_dq.anomaly_median_sql('dq_pairs', keys, 'dv / dt') }}
),
dq_slope as (
  select s.series_id, s.target_t, s.kind, case when g.dq_trend then s.dq_median else 0 end as dq_median
  from dq_slope_raw s join dq_targets g on g.series_id = s.series_id and g.t = s.target_t
),
dq_dev as (
  select p.series_id, p.target_t, p.kind, abs(p.dv - s.dq_median * p.dt) as dev
  from dq_pairs p join dq_slope s on s.series_id = p.series_id and s.target_t = p.target_t and s.kind = p.kind
),
dq_scale as (
  {{ dataplex_dq.anomaly_median_sql('dq_dev', keys, 'dev') }}
),
dq_level_in as (
  select tr.series_id, tr.target_t, 'A' as kind, tr.value - coalesce(s.dq_median, 0) * (tr.t - tr.target_t) as adj
  from dq_train tr left join dq_slope s on s.series_id = tr.series_id and s.target_t = tr.target_t and s.kind = 'A'
  {%- if seasonal %}
  union all
  select tr.series_id, tr.target_t, 'S' as kind, tr.value - coalesce(s.dq_median, 0) * (tr.t - tr.target_t) as adj
  from dq_train tr left join dq_slope s on s.series_id = tr.series_id and s.target_t = tr.target_t and s.kind = 'S'
  where tr.season = tr.target_season
  {%- endif %}
),
dq_level as (
  {{ dataplex_dq.anomaly_median_sql('dq_level_in', keys, 'adj') }}
),
dq_count as (
  select series_id, target_t, count(*) as training_count from dq_train group by series_id, target_t
),
dq_dof as (
  select series_id, target_t, count(*) as n_ref, count(distinct season) as n_seasons from dq_ref group by series_id, target_t
),
dq_spread_s as (
  {#- sum of squares of t within each season (all values: one season without seasonality) -#}
  select series_id, target_t, {{ 'season' if seasonal else '0 as season' }}, sum(cast(t - target_t as {{ d }}) * (t - target_t)) - sum(cast(t - target_t as {{ d }})) * sum(t - target_t) / count(*) as ss
  from dq_ref group by series_id, target_t{{ ', season' if seasonal else '' }}
),
dq_spread as (
  select series_id, target_t, sum(ss) as ss_season from dq_spread_s group by series_id, target_t
),
dq_ss_all as (
  select series_id, target_t,
    sum(cast(t - target_t as {{ d }}) * (t - target_t)) - sum(cast(t - target_t as {{ d }})) * sum(t - target_t) / count(*) as ss_all
  from dq_ref group by series_id, target_t
),
dq_spread_all as (
  select tr.series_id, tr.target_t, max(q.ss_all) as ss_all,
    avg(cast(tr.target_t - tr.t as {{ d }})) as dist_all,
    {{ "avg(case when tr.season = tr.target_season then cast(tr.target_t - tr.t as " ~ d ~ ") end)" if seasonal else "cast(null as " ~ d ~ ")" }} as dist_season
  from dq_train tr left join dq_ss_all q on q.series_id = tr.series_id and q.target_t = tr.target_t
  group by tr.series_id, tr.target_t
),
dq_model as (
  select
    g.series_id, g.t, g.season, g.value, g.raw_value, g.dq_log,
    coalesce(c.training_count, 0) as training_count,
    {%- if seasonal %}
    (ls.dq_count >= 2 and ss.dq_count >= 3) as seasonal,
    case when ls.dq_count >= 2 and ss.dq_count >= 3 then ls.dq_median else la.dq_median end as expected,
    case when ls.dq_count >= 2 and ss.dq_count >= 3 then 1.0483 * ss.dq_median else 1.0483 * sa.dq_median end as scale,
    case when ls.dq_count >= 2 and ss.dq_count >= 3 then ls.dq_count else la.dq_count end as level_count,
    case when ls.dq_count >= 2 and ss.dq_count >= 3 then df.n_ref - df.n_seasons else df.n_ref - 1 end - case when g.dq_trend then 1 else 0 end as dof,
    case when not g.dq_trend then 0.0
         when ls.dq_count >= 2 and ss.dq_count >= 3 then sp.dist_season * sp.dist_season / nullif(sd.ss_season, 0)
         else sp.dist_all * sp.dist_all / nullif(sp.ss_all, 0) end as trend_var
    {%- else %}
    false as seasonal,
    la.dq_median as expected,
    1.0483 * sa.dq_median as scale,
    la.dq_count as level_count,
    df.n_ref - 1 - case when g.dq_trend then 1 else 0 end as dof,
    case when not g.dq_trend then 0.0 else sp.dist_all * sp.dist_all / nullif(sp.ss_all, 0) end as trend_var
    {%- endif %}
  from dq_targets g
  left join dq_count c on c.series_id = g.series_id and c.target_t = g.t
  left join dq_dof df on df.series_id = g.series_id and df.target_t = g.t
  left join dq_spread sd on sd.series_id = g.series_id and sd.target_t = g.t
  left join dq_spread_all sp on sp.series_id = g.series_id and sp.target_t = g.t
  left join dq_level la on la.series_id = g.series_id and la.target_t = g.t and la.kind = 'A'
  left join dq_scale sa on sa.series_id = g.series_id and sa.target_t = g.t and sa.kind = 'A'
  {%- if seasonal %}
  left join dq_level ls on ls.series_id = g.series_id and ls.target_t = g.t and ls.kind = 'S'
  left join dq_scale ss on ss.series_id = g.series_id and ss.target_t = g.t and ss.kind = 'S'
  {%- endif %}
),
dq_band as (
  select m.*,
    {%- set z = cfg.sensitivity -%}
    ({{ z }} + ({{ z }} * {{ z }} * {{ z }} + {{ z }}) / (4.0 * m.dof_eff) + (5 * power({{ z }}, 5) + 16 * power({{ z }}, 3) + 3 * {{ z }}) / (96.0 * m.dof_eff * m.dof_eff))
      * m.scale * sqrt(1.0 + 1.571 / m.level_count + coalesce(m.trend_var, 0)) as half_width,
    (m.training_count < {{ cfg.min_training_buckets | int }} or m.expected is null or m.scale is null) as training
  from (select dq_m.*, greatest(dq_m.dof * 0.86, 1.0) as dof_eff from dq_model dq_m) m
)
select
  series_id, t, season, raw_value as value,
  case when dq_log then exp(expected) - 1 else expected end as expected,
  {{ "cast(null as " ~ d ~ ")" if cfg.direction == 'spike' else "case when training then null when dq_log then exp(expected - half_width) - 1 else expected - half_width end" }} as lower_bound,
  {{ "cast(null as " ~ d ~ ")" if cfg.direction == 'drop' else "case when training then null when dq_log then exp(expected + half_width) - 1 else expected + half_width end" }} as upper_bound,
  training_count,
  training,
  coalesce(not training and value is not null and (
    {%- set tests = [] -%}
    {%- if cfg.direction in ['both', 'spike'] -%}{%- do tests.append("value > expected + half_width") -%}{%- endif -%}
    {%- if cfg.direction in ['both', 'drop'] -%}{%- do tests.append("value < expected - half_width") -%}{%- endif -%}
    {{ tests | join(' or ') }}), false) as anomalous,
  seasonal
from dq_band
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
