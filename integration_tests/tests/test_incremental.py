"""Incremental scans (docs/SEMANTICS.md §12) on each target: a fresh project run three times with `dataplex-dq build`,
rows appended between the runs (late rows inside and outside the lookback, rows whose field is NULL)
and, once, the newest row deleted, asserting each job's window and every count.

Three data sources, both forms and both casings:
  inc_events       per-rule tests, meta.dataplex_dq `incremental_field: updated_at`, no lookback;
  inc_scan_events  data_quality_scan with camelCase `incrementalField` / `incrementalLookback: 1 day`;
  inc_days         a view with a DATE field (`day`) and `sampling_percent: 50`: sampling applies to the
                   increment, so its rows are a subset of the window.

The window of a job is `start < field <= end` (start exclusive, none on the first job); `start` is the
previous successful job's end minus the lookback, read from the results table when the tests run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from conftest import drop_target_schemas
from dbt_harness import INTEGRATION_DIR, Db, run_dataplex_dq, target_env, write_project

T = "2024-01-0{}"  # day -> date text

# id -> (updated_at or None, amount or None)
ROUND_ROWS = {
    1: {
        1: ("2024-01-01 10:00:00", 10),
        2: ("2024-01-02 10:00:00", 20),
        3: ("2024-01-03 10:00:00", None),
        4: ("2024-01-04 10:00:00", 500),
        5: ("2024-01-05 10:00:00", 50),
        6: (None, 60),
    },
}
# round 2: appended 7, 8 (new), 9 (late: 2024-01-04 12:00, inside the scan's 1-day lookback only), 10 (NULL field)
ROUND_ROWS[2] = {
    **ROUND_ROWS[1],
    7: ("2024-01-06 10:00:00", 70),
    8: ("2024-01-07 10:00:00", 700),
    9: ("2024-01-04 12:00:00", 80),
    10: (None, 5),
}
# round 3, inc_events: the newest row (8) deleted, nothing new -> an empty window, the watermark stays
ROUND_ROWS[3] = {k: v for k, v in ROUND_ROWS[2].items() if k != 8}
# round 3, inc_scan_events: row 11 arrives late (2024-01-06 12:00), inside the lookback
SCAN_ROUND_ROWS = {1: ROUND_ROWS[1], 2: ROUND_ROWS[2], 3: {**ROUND_ROWS[2], 11: ("2024-01-06 12:00:00", 90)}}

SCHEMA = """\
version: 2
seeds:
  - name: inc_events
    config:
      meta:
        dataplex_dq: {incremental_field: updated_at}
    data_tests:
      - dataplex_dq.sql_assertion:
          name: inc-big-amounts
          arguments: {sql_statement: "select id from ${data()} where amount > 100"}
          config: {severity: warn}
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation: {name: inc-amount-not-null, config: {severity: warn}}
          - dataplex_dq.range_expectation:
              name: inc-amount-range
              config: {severity: warn}
              arguments:
                max_value: 100
                debug_queries:
                  - {description: scope, sql_statement: "select count(*) as scope_rows, min(id) as min_id, max(id) as max_id from ${data()}"}
  - name: inc_scan_events
    data_tests:
      - dataplex_dq.data_quality_scan:
          arguments:
            incrementalField: updated_at
            incrementalLookback: 1 day
            rules:
              - {name: scan-amount-not-null, column: amount, nonNullExpectation: {}}
              - {name: scan-amount-range, column: amount, rangeExpectation: {maxValue: "100"}}
              - {name: scan-big-amounts, sqlAssertion: {sqlStatement: "select id from ${data()} where amount > 100"}}
models:
  - name: inc_days
    config:
      meta:
        dataplex_dq: {incremental_field: day, sampling_percent: 50}
    columns:
      - name: id
        data_tests:
          - dataplex_dq.non_null_expectation: {name: days-id-not-null}
"""  # noqa: E501 - embedded SQL/YAML/JS kept as written

# expected per round: window (start, end) and counts
EVENTS = {
    1: {
        "window": (None, "2024-01-05 10:00:00"),
        "rows": [1, 2, 3, 4, 5],
        "range_passed": 3,
        "nulls": 1,
        "big": 1,
        "failing": {3, 4},
    },
    2: {
        "window": ("2024-01-05 10:00:00", "2024-01-07 10:00:00"),
        "rows": [7, 8],
        "range_passed": 1,
        "nulls": 0,
        "big": 1,
        "failing": {8},
    },
    3: {
        "window": ("2024-01-07 10:00:00", "2024-01-07 10:00:00"),
        "rows": [],
        "range_passed": 0,
        "nulls": 0,
        "big": 0,
        "failing": set(),
    },
}
SCAN = {
    1: {"window": (None, "2024-01-05 10:00:00"), "rows": [1, 2, 3, 4, 5], "range_passed": 3, "nulls": 1, "big": 1},
    2: {
        "window": ("2024-01-04 10:00:00", "2024-01-07 10:00:00"),
        "rows": [5, 7, 8, 9],
        "range_passed": 3,
        "nulls": 0,
        "big": 1,
    },
    3: {
        "window": ("2024-01-06 10:00:00", "2024-01-07 10:00:00"),
        "rows": [8, 11],
        "range_passed": 1,
        "nulls": 0,
        "big": 1,
    },
}
DAYS_END = {1: "2024-01-05", 2: "2024-01-07", 3: "2024-01-07"}
DAYS_WINDOW_ROWS = {1: 5, 2: 2, 3: 0}  # rows 1-5; then 7, 8 (day > 01-05); then none (row 8 deleted)


def _csv(rows: dict[int, tuple[str | None, int | None]]) -> str:
    lines = ["id,updated_at,amount"] + [
        f"{i},{ts or ''},{'' if a is None else a}" for i, (ts, a) in sorted(rows.items())
    ]
    return "\n".join(lines) + "\n"


def _ts(value) -> str | None:
    """A window bound as the warehouse wrote it, normalized: BigQuery adds '+00' to TIMESTAMP text."""
    if value is None:
        return None
    text = str(value).replace("T", " ")
    for suffix in ("+00:00", "+00", " UTC"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
    return text


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class IncrementalRuns:
    """The three `dataplex-dq build` runs on one target: per round, the results-table rows of that
    run by rule name, the ids of each rule's failing-rows query, the protos and the output."""

    target: str
    runs: dict[int, dict[str, Any]]


@pytest.fixture(scope="module")
def incremental_runs(dbt_target, tmp_path_factory) -> Iterator[IncrementalRuns]:
    """Three `dataplex-dq build` runs; after each: the results-table rows, protos and metrics of that run."""
    tmp = tmp_path_factory.mktemp(f"incremental_{dbt_target}")
    types = ("INT64", "TIMESTAMP") if dbt_target == "bigquery" else ("integer", "timestamp")
    env = target_env(dbt_target, tmp, "dq_incr")
    project = write_project(
        tmp,
        "incremental",
        {
            "models/schema.yml": SCHEMA,
            "models/inc_days.sql": "{{ config(materialized='view') }}\n"
            "select id, cast(updated_at as date) as day, amount from {{ ref('inc_events') }}\n",
        },
        env=env,
        target=dbt_target,
        project_config="seeds:\n  incremental:\n"
        f"    +column_types: {{id: {types[0]}, updated_at: {types[1]}, amount: {types[0]}}}\n",
    )
    proj = project.project_dir
    (proj / "seeds").mkdir()
    runs = {}
    results = project.relation("dataplex_dq_results")
    try:
        for n in (1, 2, 3):
            (proj / "seeds" / "inc_events.csv").write_text(_csv(ROUND_ROWS[n]))
            (proj / "seeds" / "inc_scan_events.csv").write_text(_csv(SCAN_ROUND_ROWS[n]))
            res = run_dataplex_dq(
                # this project's nodes and the results table only (not the package's result models)
                "build",
                "--select",
                "package:incremental",
                "dataplex_dq_results",
                "--project-dir",
                str(proj),
                "--profiles-dir",
                str(INTEGRATION_DIR),
                "--target",
                dbt_target,
                "--target-path",
                str(tmp / "target"),
                env={**env, "DBT_LOG_PATH": str(tmp / "logs")},
                cwd=proj,
            )
            # exit 1 every round: scan-amount-range (severity error) fails (a NULL, or an amount over 100)
            assert res.returncode == 1, f"round {n}: exit {res.returncode}\n{res.stdout[-4000:]}\n{res.stderr[-3000:]}"
            invocation = json.loads((tmp / "target" / "run_results.json").read_text())["metadata"]["invocation_id"]
            with Db(dbt_target, env) as db:
                rows = db.query(f"select * from {results} where dbt_invocation_id = '{invocation}'")
                by_rule = {r["rule_name"]: r for r in rows}
                failing = {}
                for name, r in by_rule.items():
                    if r["rule_failed_records_query"]:
                        failing[name] = sorted(int(x["id"]) for x in db.query(r["rule_failed_records_query"]))
            protos = {p.stem: json.loads(p.read_text()) for p in (tmp / "target" / "dataplex_dq").glob("*.json")}
            runs[n] = {
                "rows": by_rule,
                "failing": failing,
                "protos": protos,
                "output": res.stdout,
                "compiled": tmp / "target" / "compiled",
            }
        yield IncrementalRuns(dbt_target, runs)
    finally:
        drop_target_schemas(dbt_target, env)


def _proto(run, name):
    return next(p for stem, p in run["protos"].items() if stem.endswith(name))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_per_rule_form_scans_each_increment(incremental_runs, n):
    runs = incremental_runs.runs
    run, exp = runs[n], EVENTS[n]
    rows = run["rows"]
    start, end = exp["window"]
    rowcount = len(exp["rows"])
    for name in ("inc-amount-not-null", "inc-amount-range", "inc-big-amounts"):
        r = rows[name]
        q = r["job_quality_result"]
        assert (_ts(q["incremental_start"]), _ts(q["incremental_end"])) == (start, end), f"round {n} {name}"
        cfg = _json(r["data_quality_job_configuration"])
        assert cfg["incremental"] is True and cfg["incremental_column"] == "updated_at"
        assert r["job_rows_scanned"] == rowcount
    nn, rng = rows["inc-amount-not-null"], rows["inc-amount-range"]
    assert (nn["rule_rows_evaluated"], nn["rule_rows_passed"], nn["rule_rows_null"]) == (
        rowcount,
        rowcount - exp["nulls"],
        exp["nulls"],
    )
    assert (rng["rule_rows_evaluated"], rng["rule_rows_passed"]) == (rowcount, exp["range_passed"])
    assert rows["inc-big-amounts"]["rule_assertion_row_count"] == exp["big"]
    if rowcount == 0:
        # docs/SEMANTICS.md §12: an empty window passes every row-level rule with ratio 1.0
        assert nn["rule_passed"] is True and rng["rule_passed"] is True
        assert nn["rule_rows_passed_percent"] == 100.0 and rng["rule_rows_passed_percent"] == 100.0
    # failing-rows queries see exactly this job's window (even run after the job)
    assert set(run["failing"].get("inc-amount-range", [])) == exp["failing"]
    # ${data()} in a debug query: exactly the increment
    dq = rng["debug_queries"]
    dq = _json(dq) if isinstance(dq, str) else dq
    if exp["failing"]:
        values = {v["name"]: v["value"] for v in dq[0]["debug_query_results"]}
        assert int(values["scope_rows"]) == rowcount
        assert (int(values["min_id"]), int(values["max_id"])) == (min(exp["rows"]), max(exp["rows"]))
    proto = _proto(run, "inc_events")
    window = proto["scannedData"]["incrementalField"]
    assert window["field"] == "updated_at"
    assert (_ts(window.get("start")) or None, _ts(window["end"])) == (start, end)
    assert int(proto.get("rowCount", 0)) == rowcount


@pytest.mark.parametrize("n", [1, 2, 3])
def test_scan_form_with_camel_case_lookback(incremental_runs, n):
    runs = incremental_runs.runs
    run, exp = runs[n], SCAN[n]
    rows = run["rows"]
    rowcount = len(exp["rows"])
    q = rows["scan-amount-range"]["job_quality_result"]
    # the lookback re-checks late rows: start = previous end - 1 day
    assert (_ts(q["incremental_start"]), _ts(q["incremental_end"])) == exp["window"]
    nn, rng = rows["scan-amount-not-null"], rows["scan-amount-range"]
    assert (nn["rule_rows_evaluated"], nn["rule_rows_passed"], nn["rule_rows_null"]) == (
        rowcount,
        rowcount - exp["nulls"],
        exp["nulls"],
    )
    assert (rng["rule_rows_evaluated"], rng["rule_rows_passed"]) == (rowcount, exp["range_passed"])
    assert rows["scan-big-amounts"]["rule_assertion_row_count"] == exp["big"]
    assert sorted(run["failing"]["scan-amount-range"]) == sorted(
        i for i in exp["rows"] if SCAN_ROUND_ROWS[n][i][1] is None or SCAN_ROUND_ROWS[n][i][1] > 100
    )
    proto = _proto(run, "inc_scan_events")
    assert proto["scannedData"]["incrementalField"]["field"] == "updated_at"
    assert int(proto.get("rowCount", 0)) == rowcount


@pytest.mark.parametrize("n", [1, 2, 3])
def test_date_field_with_sampling_reads_a_subset_of_the_window(incremental_runs, n):
    runs = incremental_runs.runs
    r = runs[n]["rows"]["days-id-not-null"]
    assert _ts(r["job_quality_result"]["incremental_end"]) == DAYS_END[n]
    assert 0 <= r["rule_rows_evaluated"] <= DAYS_WINDOW_ROWS[n]
    assert r["rule_rows_passed"] == r["rule_rows_evaluated"]
    assert _json(r["data_quality_job_configuration"])["sampling_percent"] == 50.0


def test_watermark_never_moves_backwards(incremental_runs):
    """Round 3 deleted the newest row of inc_events: max(updated_at) went back to 2024-01-06, the
    window is empty and its end stays at the previous job's end."""
    runs = incremental_runs.runs
    ends = [_ts(runs[n]["rows"]["inc-amount-range"]["job_quality_result"]["incremental_end"]) for n in (1, 2, 3)]
    assert ends == ["2024-01-05 10:00:00", "2024-01-07 10:00:00", "2024-01-07 10:00:00"]
    assert runs[3]["rows"]["inc-amount-range"]["job_quality_result"]["score"] == 100.0
