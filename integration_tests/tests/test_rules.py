"""Every rule of the integration project, evaluated by `dbt build` on each target (DuckDB, PostgreSQL,
BigQuery), against the metrics computed by hand in integration_tests/expected_metrics.yml: the same
numbers on every warehouse."""

from __future__ import annotations

import json

import pytest
import yaml

from dataplex_dq.rule_types import RULE_TYPES
from dbt_harness import INTEGRATION_DIR, assert_metrics

EXPECTED: dict = yaml.safe_load((INTEGRATION_DIR / "expected_metrics.yml").read_text())
ROW_LEVEL = {t.name for t in RULE_TYPES.values() if t.row_level}  # python/dataplex_dq/rule_types.py


def test_every_rule_has_an_expectation(target_build):
    build, metrics = target_build.build, target_build.metrics
    dq_tests = [
        n for n in build.manifest["nodes"].values() if (n.get("test_metadata") or {}).get("namespace") == "dataplex_dq"
    ]
    assert len(dq_tests) == len(EXPECTED), "each dataplex_dq test of the project needs an entry in expected_metrics.yml"
    assert sorted(metrics) == sorted(EXPECTED), "a rule left no metrics row, or has no expectation"


@pytest.mark.parametrize("rule", sorted(EXPECTED))
def test_rule_metrics(target_build, rule):
    assert_metrics(target_build.metrics, {rule: EXPECTED[rule]})


@pytest.mark.parametrize("rule", sorted(EXPECTED))
def test_dbt_status_follows_the_rule(target_build, rule):
    build = target_build.build
    result = build.results_by_name()[rule]
    assert result["status"] == EXPECTED[rule]["dbt_status"], f"{rule}: dbt says {result['status']}: {result['message']}"
    assert result["failures"] == (0 if EXPECTED[rule]["passed"] else 1)


@pytest.mark.parametrize("rule", sorted(r for r, e in EXPECTED.items() if e["status"] != "SUSPENDED"))
def test_failing_rows_query_returns_the_failing_rows(target_build, rule):
    row = target_build.metrics[rule]
    if row["rule_type"] not in ROW_LEVEL:
        assert row["failing_rows_query"] is None
        return
    if row["scope_sampling_percent"]:
        pytest.skip("sampling is not reproduced by failing_rows_query")
    with target_build.db() as db:
        failing = db.query(row["failing_rows_query"])
    assert len(failing) == row["evaluated_count"] - row["passed_count"]
    expected_ids = EXPECTED[rule].get("failing_ids")
    if expected_ids is not None:
        assert sorted(r["id"] for r in failing) == sorted(expected_ids), f"{rule}: failing ids"


def test_metrics_row_describes_the_rule(target_build):
    metrics = target_build.metrics
    for name, row in metrics.items():
        spec = json.loads(row["rule_spec"])
        assert spec["name"] == name
        assert row["rule_type"] in spec
        assert spec.get("column") == row["rule_column"]
        assert spec.get("dimension") == row["rule_dimension"]
        if row["rule_type"] in ROW_LEVEL:
            assert row["rule_threshold"] == (spec.get("threshold") or 1.0)
        else:
            assert row["rule_threshold"] is None
