"""The post-hook's side of dataplex_dq.data_quality_scan: the rules a scan recorded in the manifest, one
outcome per recorded rule of an errored or skipped scan, and the scan's settings on its data source."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from dataplex_dq.record.artifacts import Artifacts, DataSource, RuleTest, load_artifacts, scan_settings
from dataplex_dq.record.artifacts import TestRun as Run
from dataplex_dq.record.declared import declared_rules
from dataplex_dq.run.metrics import RuleMetrics, RuleStatus
from dataplex_dq.run.outcomes import combine

SCAN_UID = "test.p.orders_scan.abc123"
RULES = [
    {
        "column": "amount",
        "rangeExpectation": {"minValue": 0, "maxValue": "10000", "strictMinEnabled": True},
        "dimension": "VALIDITY",
        "threshold": 0.99,
        "name": "amount-in-range",
        "ignoreNull": True,
    },
    {"nonNullExpectation": {}, "column": "Customer ID", "dimension": "COMPLETENESS"},
    {"table_condition_expectation": {"sql_expression": "count(*) > 0"}, "suspended": True},
    {
        "statisticRangeExpectation": {"statistic": "mean", "maxValue": 5.5},
        "column": "amount",
        "debugQueries": [{"description": "d", "sqlStatement": "select 1"}],
        "attributes": {"owner": "x", "n": 1},
    },
    {"setExpectation": {"values": ["a", 1, True]}, "column": "status"},
    {"column": "x", "dimension": "VALIDITY"},  # no rule type: cannot be represented
]


# The rules above as the package records them when dbt parses the project (config.meta.dataplex_dq_rules,
# macros/identity.sql); integration_tests/tests/test_identity.py checks that a real `dbt parse` records this.
RECORDED = [
    {
        "rule_index": 0,
        "name_given": True,
        "rule": {
            "name": "amount-in-range",
            "column": "amount",
            "dimension": "VALIDITY",
            "threshold": 0.99,
            "ignore_null": True,
            "range_expectation": {"min_value": "0", "max_value": "10000", "strict_min_enabled": True},
        },
    },
    {
        "rule_index": 1,
        "name_given": False,
        "rule": {
            "name": "non-null-customer-id-1",
            "column": "Customer ID",
            "dimension": "COMPLETENESS",
            "non_null_expectation": {},
        },
    },
    {
        "rule_index": 2,
        "name_given": False,
        "rule": {
            "name": "table-condition-2",
            "suspended": True,
            "table_condition_expectation": {"sql_expression": "count(*) > 0"},
        },
    },
    {
        "rule_index": 3,
        "name_given": False,
        "rule": {
            "name": "statistic-range-amount-3",
            "column": "amount",
            "statistic_range_expectation": {"statistic": "MEAN", "max_value": "5.5"},
            "debug_queries": [{"description": "d", "sql_statement": "select 1"}],
            "attributes": {"owner": "x", "n": "1"},
        },
    },
    {
        "rule_index": 4,
        "name_given": False,
        "rule": {"name": "set-status-4", "column": "status", "set_expectation": {"values": ["a", "1", "True"]}},
    },
]


def _scan(kwargs: dict | None = None, identity: list | None = None) -> RuleTest:
    return RuleTest(
        SCAN_UID,
        "orders_scan",
        "data_quality_scan",
        "model.p.orders",
        None,
        '"db"."audit"."dq_orders_scan"',
        kwargs if kwargs is not None else {"rules": RULES},
        None,
        0,
        identity=RECORDED if identity is None else identity,
    )


def test_declared_rules_of_a_scan_are_its_recorded_rules():
    assert declared_rules(_scan()) == [(r["rule_index"], r["rule"]) for r in RECORDED]
    assert declared_rules(_scan({"rules": "not a list"}, identity=[])) == []


def _artifacts(status: str, tests: list[RuleTest]) -> Artifacts:
    runs = {
        t.unique_id: Run(
            t.unique_id, status, "Compilation Error: boom", None, datetime(2024, 1, 1), datetime(2024, 1, 1)
        )
        for t in tests
    }
    source = DataSource("model.p.orders", "orders", "model", '"db"."main"."orders"', "db", "main", "orders")
    return Artifacts(
        Path("."), "p", "inv-1", None, None, {t.unique_id: t for t in tests}, {source.unique_id: source}, runs
    )


def test_an_errored_scan_yields_one_error_per_declared_rule():
    outcomes = combine(_artifacts("error", [_scan()]), [])
    assert [(o.rule_name, o.rule_index, o.status) for o in outcomes] == [
        ("amount-in-range", 0, RuleStatus.ERROR),
        ("non-null-customer-id-1", 1, RuleStatus.ERROR),
        # E.7: a suspended rule is never evaluated, so it stays SUSPENDED when its scan errored
        ("table-condition-2", 2, RuleStatus.SUSPENDED),
        ("statistic-range-amount-3", 3, RuleStatus.ERROR),
        ("set-status-4", 4, RuleStatus.ERROR),
    ]
    assert all(o.data_source == "model.p.orders" and o.test_unique_id == SCAN_UID for o in outcomes)
    assert [o.message for o in outcomes] == ["Compilation Error: boom"] * 2 + [None] + ["Compilation Error: boom"] * 2
    assert outcomes[0].dimension == "VALIDITY" and outcomes[1].column == "Customer ID"
    assert outcomes[3].attributes == {"owner": "x", "n": "1"}
    skipped = combine(_artifacts("skipped", [_scan()]), [])
    assert [o.status for o in skipped] == [RuleStatus.SKIPPED] * 2 + [RuleStatus.SUSPENDED] + [RuleStatus.SKIPPED] * 2
    # the rows the package's writer records for an errored scan: integration_tests/tests/test_scan.py
    # (test_report_of_an_errored_scan_has_one_error_per_declared_rule); a SUSPENDED row read back: test_recorded.py


def test_a_scan_that_ran_yields_its_metrics_rows_in_rule_order():
    rows = [
        RuleMetrics.from_row(
            {
                "dq_invocation_id": "inv-1",
                "dq_test_unique_id": SCAN_UID,
                "dq_data_source": "model.p.orders",
                "rule_index": i,
                "rule_name": n,
                "rule_type": "non_null_expectation",
                "rule_status": s,
                "passed": s != "FAILED",
            }
        )
        for i, n, s in [(2, "c", "PASSED"), (0, "a", "FAILED"), (1, "b", "SUSPENDED")]
    ]
    outcomes = combine(_artifacts("fail", [_scan()]), rows)
    assert [(o.rule_name, o.status) for o in outcomes] == [
        ("a", RuleStatus.FAILED),
        ("b", RuleStatus.SUSPENDED),
        ("c", RuleStatus.PASSED),
    ]


def test_scan_settings_apply_to_the_data_source(tmp_path):
    assert scan_settings(
        {
            "rowFilter": "a > 1",
            "samplingPercent": 10,
            "postScanActions": {"bigqueryExport": {"resultsTable": "t"}},
            "rules": [],
        }
    ) == {
        "row_filter": "a > 1",
        "sampling_percent": 10,
        "post_scan_actions": {"bigqueryExport": {"resultsTable": "t"}},
    }
    assert scan_settings({"row_filter": "b", "rowFilter": "ignored"}) == {"row_filter": "b"}
    manifest = {
        "metadata": {"project_name": "p"},
        "nodes": {
            "model.p.orders": {
                "unique_id": "model.p.orders",
                "resource_type": "model",
                "name": "orders",
                "config": {"meta": {"dataplex_dq": {"row_filter": "meta", "sampling_percent": 50}}},
            },
            SCAN_UID: {
                "unique_id": SCAN_UID,
                "resource_type": "test",
                "name": "orders_scan",
                "attached_node": "model.p.orders",
                "test_metadata": {
                    "namespace": "dataplex_dq",
                    "name": "data_quality_scan",
                    "kwargs": {"rowFilter": "scan", "rules": RULES},
                },
            },
        },
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "run_results.json").write_text(
        json.dumps({"metadata": {"invocation_id": "inv-1"}, "results": [{"unique_id": SCAN_UID, "status": "pass"}]})
    )
    artifacts = load_artifacts(tmp_path)
    assert artifacts.data_sources["model.p.orders"].settings == {"row_filter": "scan", "sampling_percent": 50}
