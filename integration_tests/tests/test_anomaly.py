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

Hand computation (macros/anomaly/detector.sql); row counts are modelled as x = ln(1 + rows):
  reference part: all but the floor(21 / 4) = 5 most recent days (Sun 03-10 .. Thu 03-14), so 16 values:
  Fri 20 80 22, Sat 5 6 5, Sun 5 5, Mon 20 21, Tue 20 20, Wed 21 20, Thu 20 21.
  same-weekday reference pairs (Fri 3, Sat 3, Sun..Thu 1 each = 11); slopes dx/dt: Fri ln(81/21)/7,
  ln(23/21)/14, ln(23/81)/7, Sat ln(7/6)/7, 0, ln(6/7)/7, Sun 0, Mon ln(22/21)/7, Tue 0, Wed ln(21/22)/7,
  Thu ln(22/21)/7: three below 0, three 0, five above -> the 6th is 0: no trend.
  scale: |dx| of the 11 pairs, sorted: 0 0 0, ln(22/21) x 3, ln(23/21), ln(7/6) x 2, ln(81/23), ln(81/21);
  the 6th is ln(22/21) -> s = 1.0483 ln(22/21).
  expected = median of the Fridays {ln 21, ln 81, ln 23} = ln 23 -> 22 rows (m = 3 values).
  trend uncertainty: the Fridays are 7, 14, 21 days back (mean D = 14); within each reference weekday t
  has the sum of squares Fri 98, Sat 98 (days 20, 13, 6 back), Sun..Thu 24.5 each: S = 318.5 -> D^2/S.
  k: df = 0.86 x (16 values - 7 weekday levels - 1 trend) = 6.88, k = 3 + 30 / (4 df) + 1656 / (96 df^2)
  = 4.45454 (the Student-t quantile for sensitivity 3 with a scale from so few values).
  half width h = k s sqrt(1 + 1.571 / 3 + 196 / 318.5); band exp(ln 23 -/+ h) - 1 = [15.73961, 30.60168];
  40 is above: ANOMALOUS. A mean/stddev model of the Fridays (mean 40.67, sd 34.1) would accept anything in
  [-61.6, 142.9]: the outlier it absorbed hides the anomaly.
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
TREND_VAR = 14**2 / (98 + 98 + 5 * 24.5)  # mean distance of the Fridays (7, 14, 21) squared / reference sum of squares
DOF = 0.86 * (16 - 7 - 1)  # Shamos efficiency x (reference values - weekday levels - trend)
K = 3 + (3**3 + 3) / (4 * DOF) + (5 * 3**5 + 16 * 3**3 + 3 * 3) / (96 * DOF**2)  # t quantile for sensitivity 3
HALF_WIDTH = K * 1.0483 * math.log(22 / 21) * math.sqrt(1 + 1.571 / 3 + TREND_VAR)
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
    assert (round(v["lower_bound"], 5), round(v["upper_bound"], 5)) == (15.73961, 30.60168)
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
    assert spec["table_condition_expectation"]["sql_expression"] == "count(*) >= 15.73961421 and count(*) <= 30.6016841"
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


# A trending series whose last 7 training buckets drift away (+3 a bucket), judged by the detector's SQL
# (a dbt model calling anomaly_detector_sql on DuckDB; the build test above runs the same SQL on all targets).
# value(t) = 100 + 2 t + e(t), e = +1 at even t, -1 at odd t; the drifting series adds 3 (t - 20) for t > 20.
# Training: t = 0..27 (28 buckets, no seasonality, trend on, no log); judged: t = 28.
# Hand computation (macros/anomaly/detector.sql), both series:
#   reference part: all but the floor(28 / 4) = 7 most recent values -> t = 0..20 (no drift in it).
#   slope: of the 210 reference pairs, 100 have equal parity (slope exactly 2), 55 slope 2 - 2/dt and 55
#   2 + 2/dt -> median 2. scale: |dv - 2 dt| is 0 for 100 pairs and 2 for 110 -> median 2, s = 1.0483 x 2.
#   level: a_i = v_i - 2 (t_i - 28) = 156 + e_i (+ drift): steady: 14 x 155, 14 x 157 -> 156; drifting:
#   10 x 155 (odd t <= 20), 11 x 157, 7 above (158, 163, ..) -> the 14th and 15th are 157 -> 157.
#   k: df = 0.86 x (21 - 1 level - 1 trend) = 16.34, k = 3 + 30 / (4 df) + 1656 / (96 df^2) = 3.52361.
#   D = mean distance of the 28 values = 14.5, S = sum over t = 0..20 of (t - 10)^2 = 770.
#   half width = k s sqrt(1 + 1.571 / 28 + 14.5^2 / 770) = 8.51709.
#   steady: 157 in 156 -/+ 8.51709 -> normal; drifting: 100 + 56 + 1 + 24 = 181 outside 157 -/+ 8.51709.
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


# A model learning trend and scale from the whole window (this detector before) takes the drift as trend:
# expected 160.84 instead of 157, and a scale inflated by the drifting pairs.
DRIFT_DOF = 0.86 * (21 - 1 - 1)
DRIFT_K = 3 + 30 / (4 * DRIFT_DOF) + 1656 / (96 * DRIFT_DOF**2)
DRIFT_HALF = DRIFT_K * 1.0483 * 2 * math.sqrt(1 + 1.571 / 28 + 14.5**2 / 770)


def test_recent_drift_is_not_learned_as_trend(tmp_path):
    require_target("duckdb")

    def value(t: int, drift: bool) -> float:
        return 100 + 2 * t + (1 if t % 2 == 0 else -1) + (3 * (t - 20) if drift and t > 20 else 0)

    got = _verdicts_at_28(tmp_path, "drift", {s: (lambda t, s=s: value(t, s == "drift")) for s in ("drift", "steady")})
    assert round(DRIFT_HALF, 5) == 8.51709
    steady, drift = got["steady"], got["drift"]
    assert (steady["value"], steady["expected"], bool(steady["anomalous"])) == (157, 156, False)
    assert (drift["value"], drift["expected"], bool(drift["anomalous"])) == (181, 157, True)
    assert drift["lower_bound"] == pytest.approx(157 - DRIFT_HALF, abs=1e-9)
    assert drift["upper_bound"] == pytest.approx(157 + DRIFT_HALF, abs=1e-9)
    assert steady["upper_bound"] == pytest.approx(156 + DRIFT_HALF, abs=1e-9)
    assert (drift["training_count"], bool(drift["training"]), bool(drift["seasonal"])) == (28, False, False)


# The run test (macros/anomaly/detector.sql, step 6): a gradual drift whose every value stays inside the point band
# is flagged when the target and the 2 values before it all leave a narrower band around the reference part's
# forecast. Same series as above (training t = 0..27, no seasonality, trend on, no log; judged: t = 28):
#   steady: value(t) = 100 + 2 t + e(t), e = +1 at even t, -1 at odd t (judged value 157);
#   drift:  steady + 8 on t = 26, 27, 28 (judged value 165);
#   bump2:  steady + 8 on t = 27, 28 only (judged value 165): a run of two is not a drift.
# Reference part t = 0..20 for all three (no bump in it): slope 2, s = 1.0483 x 2, df = 16.34 (as above).
# Point test: level = median of the 28 a_i = v_i - 2 (t_i - 28): drift: 13 x 155, 13 x 157, 163, 165 -> 157;
#   bump2: 13 x 155, 14 x 157, 163 -> 157; half width 8.51709 (as above): 165 < 157 + 8.51709 -> no point anomaly.
# Run test: reference forecast = median of the 21 reference a_i (11 x 157 at even t, 10 x 155) = 157, m = 21,
#   D = mean distance of the reference values = 18, S = 770 -> trend term 18^2 / 770; sensitivity 0.6 x 3 = 1.8:
#   k = 1.8 + (1.8^3 + 1.8) / (4 df) + (5 x 1.8^5 + 16 x 1.8^3 + 3 x 1.8) / (96 df^2) = 1.92431,
#   run half width = k s sqrt(1 + 1.571 / 21 + 324 / 770) = 4.93396.
#   residuals of t = 26, 27, 28 from 157 - 2 (28 - t): drift 8, 6, 8 -> all above 4.93396: ANOMALOUS (drift), reported
#   with the band it was judged against, 157 -/+ 4.93396; steady 0, -2, 0 and bump2 0, 6, 8 -> normal.
RUN_K = 1.8 + (1.8**3 + 1.8) / (4 * DRIFT_DOF) + (5 * 1.8**5 + 16 * 1.8**3 + 3 * 1.8) / (96 * DRIFT_DOF**2)
RUN_HALF = RUN_K * 1.0483 * 2 * math.sqrt(1 + 1.571 / 21 + 18**2 / 770)


def test_gradual_drift_inside_the_point_band_is_flagged_by_the_run(tmp_path):
    require_target("duckdb")

    def value(t: int, series: str) -> float:
        bump = {"drift": (26, 27, 28), "bump2": (27, 28)}.get(series, ())
        return 100 + 2 * t + (1 if t % 2 == 0 else -1) + (8 if t in bump else 0)

    got = _verdicts_at_28(tmp_path, "run", {s: (lambda t, s=s: value(t, s)) for s in ("drift", "steady", "bump2")})
    assert (round(RUN_K, 5), round(RUN_HALF, 5)) == (1.92431, 4.93396)
    drift, steady, bump2 = got["drift"], got["steady"], got["bump2"]
    assert (drift["value"], drift["expected"], bool(drift["anomalous"]), bool(drift["drift"])) == (165, 157, True, True)
    assert drift["lower_bound"] == pytest.approx(157 - RUN_HALF, abs=1e-9)
    assert drift["upper_bound"] == pytest.approx(157 + RUN_HALF, abs=1e-9)
    assert (steady["value"], steady["expected"], bool(steady["anomalous"]), bool(steady["drift"])) == (
        157,
        156,
        False,
        False,
    )
    assert (bump2["value"], bump2["expected"], bool(bump2["anomalous"]), bool(bump2["drift"])) == (
        165,
        157,
        False,
        False,
    )
    assert bump2["upper_bound"] == pytest.approx(157 + DRIFT_HALF, abs=1e-9)
