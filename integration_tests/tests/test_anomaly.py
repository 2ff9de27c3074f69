"""docs/SEMANTICS.md §13: anomaly detection -- exact verdicts on hand-computed histories, history tables, one pipeline.

A fresh dbt project (seeds written here), built twice with the reference time fixed by the var
`dataplex_dq_anomaly_now` = 2024-03-16, so the judged bucket is Friday 2024-03-15 and the training
window is the 21 days 2024-02-23 .. 2024-03-14.

ad_orders (meta.dataplex_dq.anomaly_detection + the dataplex_dq.anomaly_detection test; timestamp
column created_at, daily buckets, seasonality day_of_week, training_buckets 21, sensitivity 3):

  rows per day     Fri Sat Sun Mon Tue Wed Thu
  week of 02-23     20   5   5  20  20  21  20
  week of 03-01     80   6   5  21  20  20  21      <- Friday 03-01 is an outlier (80)
  week of 03-08     22   5   6  20  21  20  21
  Friday 03-15      40                              <- judged

Hand computation (macros/anomaly/detector.sql); row counts are modelled as x = ln(1 + rows).
  The point test learns from all 21 training values; same-weekday pairs: 3 per weekday, 21 in all.
  slopes dx/dt: Fri ln(81/21)/7, ln(23/21)/14, ln(23/81)/7; Sat ln(7/6)/7, 0, ln(6/7)/7; Sun 0, ln(7/6)/14,
  ln(7/6)/7; Mon ln(22/21)/7, 0, ln(21/22)/7; Tue 0, ln(22/21)/14, ln(22/21)/7; Wed ln(21/22)/7,
  ln(21/22)/14, 0; Thu ln(22/21)/7, ln(22/21)/14, 0: five below 0, six 0, ten above -> the 11th is 0: no trend.
  scale: |dx| of the 21 pairs, sorted: 0 x 6, ln(22/21) x 8, ln(23/21), ln(7/6) x 4, ln(81/23), ln(81/21);
  the trimmed mean keeps the smallest floor(0.9 x 21) = 18 -- the two pairs of the outlier (80) are left out:
  s = 1.0757 x (8 ln(22/21) + ln(23/21) + 3 ln(7/6)) / 18 = 0.0553139.
  expected = median of the Fridays {ln 21, ln 81, ln 23} = ln 23 -> 22 rows (m = 3 values).
  trend uncertainty: the Fridays are 7, 14, 21 days back (mean D = 14); within each weekday t has the sum of
  squares 98 (3 values a week apart): S = 7 x 98 = 686 -> D^2/S = 196 / 686.
  k: df = 0.86 x (21 values - 7 weekday levels - 1 trend) = 11.18, k = 3 + 30 / (4 df) + 1656 / (96 df^2)
  = 3.80885 (the Student-t quantile for sensitivity 3 with a scale from so few values).
  half width h = k s sqrt(1 + 1.571 / 3 + 196 / 686) = 0.283396; band exp(ln 23 -/+ h) - 1 = [16.32410, 29.53550];
  40 is above: ANOMALOUS. A mean/stddev model of the Fridays (mean 40.67, sd 34.1) would accept anything in
  [-61.6, 142.9]: the outlier it absorbed hides the anomaly.
  run test (reference part: all but the 5 most recent days, 16 values): Wed 03-13 and Thu 03-14 sit
  ln(22/21) / 2 above their reference medians -- far inside any band: no run.
  freshness: every day's newest row is at 18:00 -> 21600 s every day: band [21600, 21600], normal.
  null_fraction(email): 0 every training day, 0.5 on 03-15 -> band [0, 0]: ANOMALOUS.
  mean(amount): 10 every day -> band [10, 10], normal (a statistic_range_expectation MEAN 10..10).

ad_jobs (a data_quality_scan with camelCase anomalyDetection, no timestamp column: one measurement per
job, trainingBuckets 5, minTrainingBuckets 3): first build -> TRAINING with 0 training values, second
build -> TRAINING with 1.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conftest import drop_target_schemas, require_target, target_env, target_schema
from dbt_harness import INTEGRATION_DIR, Db, DbtProject, run_dataplex_dq, write_project

NOW = "2024-03-16"
WEEKS = [  # Fri .. Thu
    [20, 5, 5, 20, 20, 21, 20],
    [80, 6, 5, 21, 20, 20, 21],
    [22, 5, 6, 20, 21, 20, 21],
]
TARGET_ROWS = 40
TREND_VAR = 14**2 / (7 * 98)  # mean distance of the Fridays (7, 14, 21) squared / within-weekday sum of squares
DOF = 0.86 * (21 - 7 - 1)  # robust scale efficiency x (training values - weekday levels - trend)
K = 3 + (3**3 + 3) / (4 * DOF) + (5 * 3**5 + 16 * 3**3 + 3 * 3) / (96 * DOF**2)  # t quantile for sensitivity 3
SCALE = 1.0757 * (8 * math.log(22 / 21) + math.log(23 / 21) + 3 * math.log(7 / 6)) / 18  # trimmed mean of 18 pairs
HALF_WIDTH = K * SCALE * math.sqrt(1 + 1.571 / 3 + TREND_VAR)
LOWER, UPPER = math.exp(math.log(23) - HALF_WIDTH) - 1, math.exp(math.log(23) + HALF_WIDTH) - 1


def _orders_csv() -> str:
    lines = ["id,created_at,amount,email"]
    day0 = datetime(2024, 2, 23)
    counts = [c for week in WEEKS for c in week] + [TARGET_ROWS]
    i = 0
    lines.append("0,2024-02-20 12:00:00,10,x@y")  # before the window: never counted
    for d, n in enumerate(counts):
        day = day0 + timedelta(days=d)
        for k in range(n):
            i += 1
            ts = day + timedelta(hours=18) - timedelta(minutes=k)
            email = "" if d == len(counts) - 1 and k % 2 == 0 else "a@b.c"
            lines.append(f"{i},{ts:%Y-%m-%d %H:%M:%S},10,{email}")
    return "\n".join(lines) + "\n"


SCHEMA = """\
version: 2
seeds:
  - name: ad_orders
    config:
      column_types: {id: integer, created_at: timestamp, amount: integer, email: varchar}
      meta:
        dataplex_dq:
          anomaly_detection:
            timestamp_column: created_at
            time_bucket: day
            training_buckets: 21
            min_training_buckets: 7
            sensitivity: 3
            seasonality: day_of_week
            volume: {}
            freshness: {}
            data:
              columns: [email, amount]
              metrics: [null_fraction, mean]
    data_tests:
      - dataplex_dq.anomaly_detection:
          name: orders-anomalies
  - name: ad_jobs
    config:
      column_types: {id: integer, amount: integer}
    data_tests:
      - dataplex_dq.data_quality_scan:
          name: jobs-scan
          arguments:
            rules:
              - column: id
                nonNullExpectation: {}
                dimension: COMPLETENESS
            anomalyDetection:
              trainingBuckets: 5
              minTrainingBuckets: 3
              volume: {}
"""


def _project(root: Path, target: str) -> DbtProject:
    schema = SCHEMA
    if target == "bigquery":  # BigQuery's type names
        schema = schema.replace(": integer", ": int64").replace(": varchar", ": string")
    return write_project(
        root,
        "anomaly_checks",
        {
            "seeds/ad_orders.csv": _orders_csv(),
            "seeds/ad_jobs.csv": "id,amount\n1,5\n2,6\n3,7\n",
            "seeds/schema.yml": schema,
        },
        env=target_env(target, root, "dq_anomaly"),
        target=target,
        project_config=f"""\
        vars:
          dataplex_dq_anomaly_now: "{NOW}"
        """,
        deps=False,
    )


_BUILT: dict[str, dict] = {}


@pytest.fixture(scope="module", params=["duckdb", "postgres", "bigquery"])
def anomaly_build(request, tmp_path_factory):
    target = request.param
    require_target(target)
    project = _project(tmp_path_factory.mktemp(f"anomaly_{target}"), target)
    assert project.run("deps").returncode == 0
    seed = project.run("seed")
    assert seed.returncode == 0, seed.output
    first = project.run("test", "--select", "ad_orders", "ad_jobs")
    second = project.run("test", "--select", "ad_orders", "ad_jobs")
    assert second.returncode == 1, second.output  # two anomalies fail the orders test
    schema = target_schema(target, project.env)

    def q(name):
        if target == "bigquery":
            return f"`{project.env['DBT_BQ_PROJECT']}`.`{schema}`.`{name}`"
        return f'"{schema}"."{name}"'

    with Db(target, project.env) as db:
        out = {
            "project": project,
            "first": first,
            "second": second,
            "target": target,
            "verdicts": db.query(
                f"select * from {q('dataplex_dq_anomaly_results')} where dq_invocation_id = "
                f"'{second.run_results['metadata']['invocation_id']}' order by data_source, rule_index"
            ),
            "all_verdicts": db.query(
                f"select data_source, check_name, dq_invocation_id from {q('dataplex_dq_anomaly_results')}"
            ),
            "volume": db.query(
                f"select data_source, check_name, t, value, mode from {q('dataplex_dq_anomaly_volume')} order by "
                "data_source, t"
            ),
            "freshness": db.query(f"select check_name, t, value from {q('dataplex_dq_anomaly_freshness')} order by t"),
            "data": db.query(
                f"select check_name, t, value from {q('dataplex_dq_anomaly_data')} order by check_name, t"
            ),
        }
        rels = {}
        for r in second.run_results["results"]:
            node = second.manifest["nodes"][r["unique_id"]]
            if node.get("relation_name"):
                rels[node["name"]] = node["relation_name"]
        out["metrics"] = {n: db.query(f"select * from {rel} order by rule_index") for n, rel in rels.items()}
    if target == "duckdb":  # the post-hook on the second run (one target is enough: it reads ordinary metrics rows)
        out["report"] = run_dataplex_dq(
            "report",
            "--project-dir",
            str(project.project_dir),
            "--profiles-dir",
            str(INTEGRATION_DIR),
            "--target",
            target,
            "--target-path",
            str(project.target_path),
            env=project.env,
        )
        with Db(target, project.env) as db:
            out["exported"] = db.query(
                f"select rule_name, rule_status, rule_passed, dbt_node_unique_id from {q('dataplex_dq_results')} "
                "order by rule_name"
            )
    yield out
    drop_target_schemas(target, project.env)


def _verdict(build, name):
    rows = [
        v for v in build["verdicts"] if v["check_name"] == name and v["data_source"] == "seed.anomaly_checks.ad_orders"
    ]
    assert len(rows) == 1, (name, build["verdicts"])
    return rows[0]


def test_volume_outlier_in_the_season_does_not_hide_the_anomaly(anomaly_build):
    v = _verdict(anomaly_build, "volume-anomaly")
    assert v["value"] == 40
    assert v["expected"] == pytest.approx(22)
    assert v["lower_bound"] == pytest.approx(LOWER, abs=1e-9)
    assert v["upper_bound"] == pytest.approx(UPPER, abs=1e-9)
    assert (round(v["lower_bound"], 5), round(v["upper_bound"], 5)) == (16.3241, 29.5355)
    assert v["training_count"] == 21
    assert bool(v["anomalous"]) is True and bool(v["training"]) is False and bool(v["seasonal"]) is True


def test_freshness_null_fraction_and_mean_verdicts(anomaly_build):
    f = _verdict(anomaly_build, "freshness-anomaly")
    assert (f["value"], f["expected"], f["lower_bound"], f["upper_bound"]) == (21600, 21600, 21600, 21600)
    assert bool(f["anomalous"]) is False
    n = _verdict(anomaly_build, "null-fraction-email-anomaly")
    assert n["value"] == pytest.approx(0.5) and n["expected"] == 0 and n["upper_bound"] == 0
    assert bool(n["anomalous"]) is True
    m = _verdict(anomaly_build, "mean-amount-anomaly")
    assert (m["value"], m["lower_bound"], m["upper_bound"]) == (10, 10, 10) and bool(m["anomalous"]) is False


def test_checks_are_ordinary_rules_with_their_band(anomaly_build):
    rows = anomaly_build["metrics"]["orders-anomalies"]
    by_name = {r["rule_name"]: r for r in rows}
    assert [r["rule_name"] for r in rows] == [
        "volume-anomaly",
        "freshness-anomaly",
        "null-fraction-email-anomaly",
        "null-fraction-amount-anomaly",
        "mean-amount-anomaly",
    ]
    vol = by_name["volume-anomaly"]
    assert (vol["rule_type"], vol["rule_dimension"], vol["rule_status"], bool(vol["passed"])) == (
        "table_condition_expectation",
        "VOLUME",
        "FAILED",
        False,
    )
    spec = json.loads(vol["rule_spec"])
    assert spec["table_condition_expectation"]["sql_expression"] == "count(*) >= 16.3240986 and count(*) <= 29.53549927"
    attrs = json.loads(vol["rule_attributes"])
    assert attrs["anomaly_check"] == "volume" and attrs["anomaly_status"] == "anomalous"
    assert (attrs["value"], attrs["expected"], attrs["training_count"]) == ("40", "22", "21")
    assert attrs["result_table"].endswith(".dataplex_dq_anomaly_results")
    assert by_name["freshness-anomaly"]["rule_dimension"] == "FRESHNESS"
    assert by_name["null-fraction-email-anomaly"]["rule_dimension"] == "COMPLETENESS"
    mean = by_name["mean-amount-anomaly"]
    assert json.loads(mean["rule_spec"])["statistic_range_expectation"] == {
        "statistic": "MEAN",
        "min_value": "10",
        "max_value": "10",
    }
    assert (mean["rule_status"], mean["statistic_value"], mean["rule_column"]) == ("PASSED", 10, "amount")
    results = anomaly_build["second"].results_by_name()
    assert results["orders-anomalies"]["failures"] == 2


def test_per_job_history_in_a_scan_is_training(anomaly_build):
    rows = anomaly_build["metrics"]["jobs-scan"]
    assert [(r["rule_index"], r["rule_name"], r["rule_status"]) for r in rows] == [
        (0, "non-null-id-0", "PASSED"),
        (1, "volume-anomaly", "TRAINING"),
    ]
    assert json.loads(rows[1]["rule_attributes"])["training_count"] == "1"
    jobs = [r for r in anomaly_build["volume"] if r["data_source"] == "seed.anomaly_checks.ad_jobs"]
    assert [(r["t"], r["value"], r["mode"]) for r in jobs] == [(1, 3, "job"), (2, 3, "job")]
    assert anomaly_build["second"].results_by_name()["jobs-scan"]["status"] == "pass"


def test_history_from_the_data_is_idempotent(anomaly_build):
    orders = [r for r in anomaly_build["volume"] if r["data_source"] == "seed.anomaly_checks.ad_orders"]
    # two builds: the 22 buckets of the window (21 training + the judged one), each once
    assert len(orders) == 22
    assert [r["value"] for r in orders] == [c for week in WEEKS for c in week] + [TARGET_ROWS]
    verdicts = [v for v in anomaly_build["all_verdicts"] if v["data_source"] == "seed.anomaly_checks.ad_orders"]
    assert len(verdicts) == 10  # 5 checks x 2 invocations
    assert len({v["dq_invocation_id"] for v in verdicts}) == 2


# ------------------------------------------------------------------ declaration errors (DuckDB)

BAD = [
    (
        "bad-bucket",
        "{time_bucket: month, volume: {}}",
        ["field 'anomaly_detection.time_bucket'", "hour, day or week, got month"],
    ),
    ("unknown-field", "{trainingDays: 3, volume: {}}", ["field 'anomaly_detection.trainingDays'", "unknown field"]),
    (
        "no-such-column",
        "{data: {columns: [amt], metrics: [mean]}}",
        ["field 'anomaly_detection.data.columns[0]'", "'amt' does not exist"],
    ),
    (
        "mean-of-text",
        "{data: {columns: [name], metrics: [mean]}}",
        ["field 'anomaly_detection.data.metrics[0]'", "reads numeric columns"],
    ),
    (
        "ts-not-timestamp",
        "{timestamp_column: name, volume: {}}",
        ["field 'anomaly_detection.timestamp_column'", "must be a DATE, DATETIME or TIMESTAMP"],
    ),
    (
        "dow-on-hours",
        "{timestamp_column: created_on, time_bucket: hour, seasonality: day_of_week, volume: {}}",
        ["field 'anomaly_detection.seasonality'", "day_of_week needs time_bucket: day"],
    ),
    (
        "min-above-training",
        "{training_buckets: 5, min_training_buckets: 9, volume: {}}",
        ["field 'anomaly_detection.min_training_buckets'", "between 3 and training_buckets (5), got 9"],
    ),
    ("no-checks", "{sensitivity: 2}", ["field 'anomaly_detection'", "declares no check"]),
    ("freshness-no-ts", "{freshness: {}}", ["field 'anomaly_detection.freshness'", "needs a timestamp"]),
]


@pytest.fixture(scope="module")
def bad_declarations(tmp_path_factory):
    root = tmp_path_factory.mktemp("anomaly_bad")
    seed = "id,amount,name,created_on\n1,5,a,2024-01-01\n"
    tests = "\n".join(f"      - dataplex_dq.anomaly_detection: {{name: {n}, arguments: {args}}}" for n, args, _ in BAD)
    schema = (
        "version: 2\nseeds:\n  - name: ad_bad\n    config: {column_types: {id: integer, amount: integer, name: "
        "varchar, created_on: date}}\n"
        "    data_tests:\n" + tests + "\n"
        "  - name: ad_meta_only\n    config: {meta: {dataplex_dq: {anomaly_detection: {volume: {}}}}}\n"
        "    data_tests:\n      - dataplex_dq.table_condition_expectation: {name: meta-not-run, arguments: "
        "{sql_expression: 'count(*) > 0'}}\n"
    )
    project = write_project(
        root,
        "anomaly_bad",
        {"seeds/ad_bad.csv": seed, "seeds/ad_meta_only.csv": seed, "seeds/schema.yml": schema},
        env={"DBT_DUCKDB_PATH": str(root / "bad.duckdb")},
    )
    assert project.run("seed").returncode == 0
    return project.run("test").results_by_name()


@pytest.mark.parametrize("name,fragments", [(n, f) for n, _, f in BAD])
def test_bad_declaration_is_a_compile_error(bad_declarations, name, fragments):
    r = bad_declarations[name]
    assert r["status"] == "error"
    for fragment in ["seed 'ad_bad'", *fragments]:
        assert fragment in r["message"], f"{fragment!r} not in {r['message']}"


def test_meta_declaration_without_a_test_is_an_error(bad_declarations):
    msg = bad_declarations["meta-not-run"]["message"]
    assert "seed 'ad_meta_only'" in msg and "meta.dataplex_dq.anomaly_detection" in msg and "no test runs it" in msg


def test_post_hook_reports_training_and_generated_assets(anomaly_build):
    if anomaly_build["target"] != "duckdb":
        pytest.skip("the post-hook is checked on DuckDB")
    report = anomaly_build["report"]
    assert report.returncode == 1, report.stdout + report.stderr  # two anomalies of severity error
    assert "+1 training" in report.stdout and "volume-anomaly (anomaly)" in report.stdout
    target = anomaly_build["project"].target_path / "dataplex_dq"
    orders = json.loads((target / "seed.anomaly_checks.ad_orders.json").read_text())
    assets = orders["anomalyDetectionGeneratedAssets"]
    assert assets["resultTable"] == "dq_anomaly.main.dataplex_dq_anomaly_results"
    assert assets["volumeIntermediateTable"] == "dq_anomaly.main.dataplex_dq_anomaly_volume"
    assert orders["score"] == 60.0  # 3 of 5 checks normal
    assert {d["dimension"]["name"]: d["score"] for d in orders["dimensions"]} == {
        "COMPLETENESS": 50.0,
        "CONSISTENCY": 100.0,
        "FRESHNESS": 100.0,
        "VOLUME": 0.0,
    }
    jobs = json.loads((target / "seed.anomaly_checks.ad_jobs.json").read_text())
    assert [r["rule"]["name"] for r in jobs["rules"]] == ["non-null-id-0"]  # the training check is not in the proto
    assert jobs["score"] == 100.0
    exported = {(r["dbt_node_unique_id"], r["rule_name"]): r for r in anomaly_build["exported"]}
    training = exported[("seed.anomaly_checks.ad_jobs", "volume-anomaly")]
    assert (training["rule_status"], training["rule_passed"]) == ("TRAINING", None)


# Two series judged by the detector's SQL (a dbt model calling anomaly_detector_sql on DuckDB; the build test above
# runs the same SQL on all targets) at t = 28, trained on t = 0..27 (28 buckets, no seasonality, trend on, no log).
# Their numbers come from _reference below: the detector's formulas (docs/SEMANTICS.md §13) written again in plain
# Python, independently of the SQL, and checked by hand where they are simple:
#   base(t) = 100 + 2 t + e(t) with e = +-1 alternating. Pairs of equal parity have slope exactly 2 and |dv - 2 dt| = 0;
#   pairs of unequal parity have slope 2 -/+ 2 / dt and |dv - 2 dt| = 2. Over t = 0..27 that is 182 equal-parity pairs
#   of 378 (105 below 2, 91 above): slope 2; the trimmed mean keeps the smallest floor(0.9 x 378) = 340 deviations,
#   the 182 zeros and 158 twos: s = 1.0757 x 316 / 340 = 0.99976. Over the reference part t = 0..20 (the run test):
#   100 equal-parity pairs of 210 (55 below, 55 above): slope 2; keeps 189: 100 zeros, 89 twos: s = 1.0757 x 178 / 189.
#   k: df = 0.86 x (28 - 1 level - 1 trend) = 22.36 (point), 0.86 x (21 - 2) = 16.34 (run).
#   band: D = mean distance of the 28 values = 14.5, S = sum over t = 0..27 of (t - 13.5)^2 = 1827 (point);
#   run: D = 18 (the 21 reference values), S = 770 (t = 0..20).


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    return (ys[(len(ys) - 1) // 2] + ys[len(ys) // 2]) / 2


def _fit(ts: list[int], vs: list[float]) -> tuple[float, float]:
    """Theil-Sen slope and the trimmed-mean pairwise scale of one part of the window (no seasons)."""
    pairs = [(vs[j] - vs[i], ts[j] - ts[i]) for i in range(len(ts)) for j in range(i + 1, len(ts))]
    slope = _median([dv / dt for dv, dt in pairs])
    dev = sorted(abs(dv - slope * dt) for dv, dt in pairs)
    return slope, 1.0757 * sum(dev[: max(9 * len(dev) // 10, 1)]) / max(9 * len(dev) // 10, 1)


def _k(z: float, dof: float) -> float:
    d = max(0.86 * dof, 1.0)
    return z + (z**3 + z) / (4 * d) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * d * d)


def _reference(values: list[float], target: int = 28, n: int = 28) -> dict[str, float | bool]:
    """The verdict on values[target] (no seasonality, trend on, no log, sensitivity 3), in plain Python."""
    ts = list(range(target - n, target))
    vs = [values[t] for t in ts]
    ref = n - n // 4
    b, s = _fit(ts, vs)
    level = _median([v - b * (t - target) for t, v in zip(ts, vs, strict=True)])
    ss = sum((t - sum(ts) / n) ** 2 for t in ts)
    half = _k(3, n - 2) * s * math.sqrt(1 + 1.571 / n + (sum(target - t for t in ts) / n) ** 2 / ss)
    rb, rs = _fit(ts[:ref], vs[:ref])
    ref_level = _median([v - rb * (t - target) for t, v in zip(ts[:ref], vs[:ref], strict=True)])
    rss = sum((t - sum(ts[:ref]) / ref) ** 2 for t in ts[:ref])
    run_half = _k(1.8, ref - 2) * rs * math.sqrt(1 + 1.571 / ref + (sum(target - t for t in ts[:ref]) / ref) ** 2 / rss)
    residuals = [values[t] - rb * (t - target) - ref_level for t in (target - 2, target - 1, target)]
    point = abs(values[target] - level) > half
    run = min(residuals) > run_half or max(residuals) < -run_half
    return {
        "expected": level,
        "half": half,
        "ref_expected": ref_level,
        "run_half": run_half,
        "point": point,
        "run": run,
    }


def _verdicts_at_28(tmp_path: Path, name: str, series: dict[str, Callable[[int], float]]) -> dict[str, dict]:
    """The detector's verdicts (anomaly_detector_sql, DuckDB) on t = 28 of each series, trained on t = 0..27
    (training_buckets 28, min 7, sensitivity 3, no seasonality, trend on, no log), by series id."""
    rows = ", ".join(f"('{s}', {t}, {value(t)})" for s, value in series.items() for t in range(29))
    model = (
        "{% set history %}select series_id, t, cast(null as integer) as season, value\n"
        f"from (values {rows}) h(series_id, t, value){{% endset %}}\n"
        '{% set targets = "select series_id, t, season, value, false as dq_log, true as dq_trend from ("'
        ' ~ history ~ ") x where t = 28" %}\n'
        "{{ dataplex_dq.anomaly_detector_sql(history, targets, {'training_buckets': 28, 'min_training_buckets': 7,"
        " 'sensitivity': 3, 'direction': 'both', 'seasonality': 'none'}) }}\n"
    )
    project = write_project(
        tmp_path,
        f"{name}_check",
        {f"models/{name}_verdicts.sql": model},
        env=target_env("duckdb", tmp_path, f"dq_{name}"),
        project_config=f"models:\n  {name}_check:\n    +materialized: table\n",
    )
    assert project.run("run").success
    return {r["series_id"]: r for r in project.query(f"select * from {project.relation(name + '_verdicts')}")}


# A trending series whose last 7 training buckets drift away (+3 a bucket): the point test learns from the whole
# window, so part of the drift is taken as trend (expected 160.84 instead of 157, a band widened by the drifting pairs)
# -- and 181 still leaves it; the run test, judged against the reference part t = 0..20 (no drift in it), fires too.
#   steady: value(t) = base(t) with e = +1 at even t: a_i = v_i - 2 (t_i - 28) = 156 + e_i -> expected 156, normal.
def test_recent_drift_is_flagged(tmp_path):
    require_target("duckdb")

    def value(t: int, drift: bool) -> float:
        return 100 + 2 * t + (1 if t % 2 == 0 else -1) + (3 * (t - 20) if drift and t > 20 else 0)

    series = {s: [value(t, s == "drift") for t in range(29)] for s in ("drift", "steady")}
    got = _verdicts_at_28(tmp_path, "drift", {s: (lambda t, s=s: series[s][t]) for s in series})
    ref = {s: _reference(v) for s, v in series.items()}
    assert ref["steady"]["expected"] == 156 and round(ref["steady"]["half"], 5) == 3.64613
    assert (round(ref["drift"]["expected"], 5), round(ref["drift"]["half"], 5)) == (160.84028, 14.77539)
    assert ref["drift"]["point"] and ref["drift"]["run"] and not ref["steady"]["point"] and not ref["steady"]["run"]
    steady, drift = got["steady"], got["drift"]
    assert (steady["value"], steady["expected"], bool(steady["anomalous"])) == (157, 156, False)
    assert (drift["value"], bool(drift["anomalous"]), bool(drift["drift"])) == (181, True, False)
    assert drift["expected"] == pytest.approx(ref["drift"]["expected"], abs=1e-9)
    assert drift["lower_bound"] == pytest.approx(ref["drift"]["expected"] - ref["drift"]["half"], abs=1e-9)
    assert drift["upper_bound"] == pytest.approx(ref["drift"]["expected"] + ref["drift"]["half"], abs=1e-9)
    assert steady["upper_bound"] == pytest.approx(156 + ref["steady"]["half"], abs=1e-9)
    assert (drift["training_count"], bool(drift["training"]), bool(drift["seasonal"])) == (28, False, False)


# The run test (macros/anomaly/detector.sql, step 6): a gradual drift whose every value stays inside the point band
# is flagged when the target and the 2 values before it all leave a narrower band around the reference part's
# forecast. base(t) with e = -1 at even t, +1 at odd t (training t = 0..27; judged: t = 28):
#   steady: base(t) (judged value 155); drift: base + 4 on t = 26, 27, 28 (judged 159); bump2: base + 4 on t = 27,
#   28 only (judged 159): a run of two is not a drift.
# Point test: a_i = v_i - 2 (t_i - 28) = 156 + e_i (+4): drift: 13 x 155, 13 x 157, 159, 161 -> 157; bump2: 14 x 155,
#   13 x 157, 161 -> 156 (slope still 2); the bumped pairs raise the trimmed scale a little: half widths 4.26920 and
#   3.94613 (steady 3.64613): 159 - 157 = 2 and 159 - 156 = 3 are inside them -> no point anomaly.
# Run test: reference forecast = median of the 21 reference a_i (11 x 155 at even t, 10 x 157) = 155; residuals of
#   t = 26, 27, 28 from 155 - 2 (28 - t): drift 4, 6, 4 -> all above the run half width, k(1.8, 16.34) = 1.92431
#   x s_ref (1.0757 x 178 / 189) x sqrt(1 + 1.571 / 21 + 18^2 / 770) = 2.38413: ANOMALOUS (drift), reported with
#   the band it was judged against, 155 -/+ 2.38413; steady -2, 0, -2 and bump2 -2, 4, 4 -> normal.
def test_gradual_drift_inside_the_point_band_is_flagged_by_the_run(tmp_path):
    require_target("duckdb")

    def value(t: int, name: str) -> float:
        bump = {"drift": (26, 27, 28), "bump2": (27, 28)}.get(name, ())
        return 100 + 2 * t + (-1 if t % 2 == 0 else 1) + (4 if t in bump else 0)

    series = {s: [value(t, s) for t in range(29)] for s in ("drift", "steady", "bump2")}
    got = _verdicts_at_28(tmp_path, "run", {s: (lambda t, s=s: series[s][t]) for s in series})
    ref = {s: _reference(v) for s, v in series.items()}
    assert round(_k(1.8, 19), 5) == 1.92431 and round(ref["drift"]["run_half"], 5) == 2.38413
    assert [(r["point"], r["run"]) for r in ref.values()] == [(False, True), (False, False), (False, False)]
    assert (ref["drift"]["expected"], ref["bump2"]["expected"], ref["drift"]["ref_expected"]) == (157, 156, 155)
    drift, steady, bump2 = got["drift"], got["steady"], got["bump2"]
    assert (drift["value"], drift["expected"], bool(drift["anomalous"]), bool(drift["drift"])) == (159, 155, True, True)
    assert drift["lower_bound"] == pytest.approx(155 - ref["drift"]["run_half"], abs=1e-9)
    assert drift["upper_bound"] == pytest.approx(155 + ref["drift"]["run_half"], abs=1e-9)
    assert (steady["value"], steady["expected"], bool(steady["anomalous"]), bool(steady["drift"])) == (
        155,
        156,
        False,
        False,
    )
    assert (bump2["value"], bump2["expected"], bool(bump2["anomalous"]), bool(bump2["drift"])) == (
        159,
        156,
        False,
        False,
    )
    assert bump2["upper_bound"] == pytest.approx(156 + ref["bump2"]["half"], abs=1e-9)
