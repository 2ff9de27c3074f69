"""The buckets earlier runs recorded extend the trend's reach (issue 33; docs/SEMANTICS.md §13).

A row-count check learns its trend over twice its training window of recorded history, and a run measures only its
window (plus the judged bucket): the older half of the reach is there because earlier runs recorded it. A table of
orders is flat (100 / 104 rows on alternate days) for 28 days, then grows 6% a day. With `training_buckets: 14`:

  - project `daily`: `dbt test` on days 28, 35 and 42 (`dataplex_dq_anomaly_now`); the last run judges day 41 with
    the recorded days 13..40 in reach, and its trend is the flat one the table had (2.6% a day in the model's scale,
    pulled up by the ramp days in reach): the level test finds the growth;
  - project `fresh`: the same data, only the last run: its history is its own window, days 27..40, all but one of
    them on the ramp, and the trend it learns is the growth itself (5.8% a day): normal.

Each expected value is checked against the detector's formulas written again in Python (test_anomaly.py's
_reference). DuckDB only: the
detector's SQL is checked exactly on every warehouse by test_anomaly.py; this is the pipeline (runs storing
buckets, a later run reading them).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conftest import require_target, target_env
from dbt_harness import DbtProject, write_project
from test_anomaly import _reference

DAY0 = datetime(2024, 3, 4)
DAYS = 42


def _rows(day: int) -> int:
    flat = 100 + 4 * (day % 2)
    return flat if day < 28 else round(flat * 1.06 ** (day - 27))


def _orders_csv() -> str:
    lines = ["id,created_at"]
    i = 0
    for d in range(DAYS):
        for k in range(_rows(d)):
            i += 1
            lines.append(f"{i},{DAY0 + timedelta(days=d, hours=12, seconds=k):%Y-%m-%d %H:%M:%S}")
    return "\n".join(lines) + "\n"


SCHEMA = """\
version: 2
seeds:
  - name: ah_orders
    config:
      column_types: {id: integer, created_at: timestamp}
    data_tests:
      - dataplex_dq.anomaly_detection:
          name: orders-volume
          arguments:
            timestamp_column: created_at
            time_bucket: day
            training_buckets: 14
            min_training_buckets: 7
            seasonality: none
            volume: {}
"""


def _project(root: Path, name: str) -> DbtProject:
    project = write_project(
        root,
        name,
        {"seeds/ah_orders.csv": _orders_csv(), "seeds/schema.yml": SCHEMA},
        env=target_env("duckdb", root, f"dq_anomaly_history_{name}"),
        target="duckdb",
        deps=False,
    )
    assert project.run("deps").returncode == 0
    seeded = project.run("seed")
    assert seeded.returncode == 0, seeded.output
    return project


def _judge(project: DbtProject, day: int) -> dict:
    """`dbt test` with the reference time at the start of `day` (so day - 1 is judged); its verdict."""
    now = f"{DAY0 + timedelta(days=day):%Y-%m-%d}"
    result = project.run("test", "--vars", f"{{dataplex_dq_anomaly_now: '{now}'}}")
    invocation = result.run_results["metadata"]["invocation_id"]
    rows = project.query(
        "select t, value, expected, lower_bound, upper_bound, training_count, anomalous, drift from "
        f"{project.relation('dataplex_dq_anomaly_results')} where dq_invocation_id = '{invocation}'"
    )
    assert len(rows) == 1, rows
    return rows[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    require_target("duckdb")
    daily = _project(tmp_path_factory.mktemp("anomaly_history"), "daily")
    fresh = _project(tmp_path_factory.mktemp("anomaly_history"), "fresh")
    return {
        "daily": [_judge(daily, day) for day in (28, 35, 42)],
        "fresh": _judge(fresh, 42),
        "recorded": daily.query(
            f"select t from {daily.relation('dataplex_dq_anomaly_volume')} order by t",
        ),
    }


def _reference_41(days: range, judged: dict[int, bool]) -> dict[str, float | bool]:
    """The verdict of day 41 by test_anomaly.py's Python reference of the detector (a count with a trend, a 14-bucket
    window, no seasonality), the history being `days` with the verdicts `judged` (day: anomalous); in the model's
    scale."""
    case = {
        "call": "T14",
        "values": {d: float(_rows(d)) for d in days},
        "target": 41,
        "log": True,
        "verdicts": [(d, float(_rows(d)), 0.0, anomalous, None, None) for d, anomalous in judged.items()],
    }
    return _reference(case)


def test_a_schedule_records_the_reach_and_the_trend_stays_the_tables(runs):
    first, second, last = runs["daily"]
    t0 = (DAY0 - datetime(1970, 1, 1)).days
    # each run measured its window and the judged bucket, 15 days; together days 13..41, each once
    assert [r["t"] - t0 for r in runs["recorded"]] == list(range(13, 42))
    assert (first["t"] - t0, first["value"], bool(first["anomalous"])) == (27, 104, False)
    # a week into the growth (1.06^7 = 1.50): found, and left out of later training
    assert (second["t"] - t0, second["value"], bool(second["anomalous"]), bool(second["drift"])) == (
        34,
        150,
        True,
        True,
    )
    # two weeks in: the trend reaches back to the recorded flat days (13..40 but the anomaly of day 34), the level is
    # the window's (27..40 but 34); with runs a week apart the window's ramp days were never judged, so they stay in
    # training and widen the point band (182.5 rows expected, 235 inside it), but the level test's changes against
    # the days one and two weeks before, along the table's own trend, find the growth: a drift, reported with the
    # band of that test (centred on the value less the change the ramp implies)
    ref = _reference_41(range(DAYS), judged={27: False, 34: True})
    assert round(float(ref["slope"]), 5) == 0.02603 and round(math.exp(ref["expected"]) - 1, 1) == 182.5
    assert (ref["point"], ref["level"]) == (False, True)
    assert (last["t"] - t0, last["value"], last["training_count"], bool(last["anomalous"])) == (41, 235, 13, True)
    assert bool(last["drift"])
    center = math.log(236) - ref["level_change"]
    assert last["expected"] == pytest.approx(math.exp(center) - 1, rel=1e-9)
    assert last["upper_bound"] == pytest.approx(math.exp(center + ref["level_width"]) - 1, rel=1e-9)
    assert round(last["expected"], 1) == 159.9


def test_without_the_recorded_history_the_window_learns_the_growth_as_its_trend(runs):
    fresh, last = runs["fresh"], runs["daily"][2]
    assert (fresh["t"], fresh["value"]) == (last["t"], last["value"])
    assert (fresh["training_count"], bool(fresh["anomalous"])) == (14, False)
    # the same day with its own window alone (27..40): the trend is the growth, and the expected value follows it
    ref = _reference_41(range(27, DAYS), judged={})
    expected = math.exp(ref["expected"]) - 1
    assert (ref["point"], ref["level"], bool(fresh["drift"])) == (False, False, False)
    assert fresh["expected"] == pytest.approx(expected, rel=1e-9)
    assert round(float(ref["slope"]), 5) == 0.05771 and round(expected, 1) == 230.1
