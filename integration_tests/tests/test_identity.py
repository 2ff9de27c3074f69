"""Issue 8 item 3: rule identity is computed once, in Jinja.

When dbt parses the project, every dataplex_dq test records its rules -- names (declared or derived),
whether the name was given, and the normalized DataQualityRule -- in its node's
`config.meta.dataplex_dq_rules` (macros/identity.sql). The metrics row of an evaluated rule carries
the same identity (`rule_name`, `rule_spec`); a rule that left no row (its test errored or was
skipped) is reported under its recorded identity, which the post-hook reads and never re-derives
(python/dataplex_dq/record/declared.py). One `dbt build` and one report on DuckDB.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from dbt_harness import DbtProject, DbtResult, write_project

# A scan that errors at compile time (its columns do not exist, rule #5 has no rule type); the same
# rules as python/tests/test_scan_report.py, whose RECORDED is what a real `dbt parse` must record.
ERRORED_RULES = [
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
    {"column": "x", "dimension": "VALIDITY"},  # no rule type: not recorded
]
ERRORED_RECORDED = [
    (0, True, {
        "name": "amount-in-range", "column": "amount", "dimension": "VALIDITY", "threshold": 0.99, "ignore_null": True,
        "range_expectation": {"min_value": "0", "max_value": "10000", "strict_min_enabled": True}}),
    (1, False, {
        "name": "non-null-customer-id-1", "column": "Customer ID", "dimension": "COMPLETENESS",
        "non_null_expectation": {}}),
    (2, False, {
        "name": "table-condition-2", "suspended": True,
        "table_condition_expectation": {"sql_expression": "count(*) > 0"}}),
    (3, False, {
        "name": "statistic-range-amount-3", "column": "amount",
        "statistic_range_expectation": {"statistic": "MEAN", "max_value": "5.5"},
        "debug_queries": [{"description": "d", "sql_statement": "select 1"}], "attributes": {"owner": "x", "n": "1"}}),
    (4, False, {"name": "set-status-4", "column": "status", "set_expectation": {"values": ["a", "1", "True"]}}),
]  # fmt: skip

SCHEMA = {
    "version": 2,
    "seeds": [
        {
            "name": "items",
            "columns": [
                {
                    "name": "qty",
                    "data_tests": [
                        {"dataplex_dq.non_null_expectation": {"arguments": {"dimension": "COMPLETENESS"}}},
                        {
                            "dataplex_dq.range_expectation": {
                                "description": "qty is small",
                                "arguments": {"max_value": 5, "attributes": {"owner": "shop", "tier": 1}},
                            }
                        },
                    ],
                }
            ],
            "data_tests": [
                {
                    "dataplex_dq.data_quality_scan": {
                        "name": "items_scan",
                        "arguments": {
                            "rules": [
                                {"rangeExpectation": {"maxValue": 5}, "column": "qty", "threshold": 0.5},
                                {"name": "status-known", "setExpectation": {"values": ["a", "b"]}, "column": "status"},
                                {"nonNullExpectation": {}, "column": "id", "suspended": True},
                            ]
                        },
                    }
                },
                {"dataplex_dq.data_quality_scan": {"name": "errored_scan", "arguments": {"rules": ERRORED_RULES}}},
            ],
        }
    ],
    "models": [
        {
            "name": "broken_model",
            "columns": [{"name": "qty", "data_tests": ["dataplex_dq.non_null_expectation"]}],
            "data_tests": [
                {
                    "dataplex_dq.data_quality_scan": {
                        "name": "skipped_scan",
                        "arguments": {"rules": [{"nonNullExpectation": {}, "column": "qty"}]},
                    }
                }
            ],
        }
    ],
}


@dataclass
class Built:
    project: DbtProject
    build: DbtResult
    db: Path
    report_returncode: int
    report_output: str
    rows: dict[str, dict[str, Any]]  # results table rows after the report, by rule name
    tests: dict[str, dict[str, Any]]  # manifest node of each dataplex_dq test, by name


def _rows(db: Path) -> dict[str, dict[str, Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute(
            "select rule_name, rule_status, rule_column, rule_dimension, dbt_test_unique_id, job_declared_rules,"
            " data_source.table_id as table_id from main.dataplex_dq_results"
        )
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    tmp = tmp_path_factory.mktemp("identity")
    db = tmp / "identity.duckdb"
    project = write_project(
        tmp,
        "identity",
        {
            "seeds/items.csv": "id,qty,status\n1,1,a\n2,,b\n3,9,c\n",
            "seeds/schema.yml": yaml.safe_dump(SCHEMA, sort_keys=False),
            "models/broken_model.sql": "select qty from {{ ref('items') }} where no_such_column = 1\n",
        },
        env={"DBT_DUCKDB_PATH": str(db)},
        project_config="seeds:\n  identity:\n    +column_types: {id: integer, qty: integer, status: varchar}\n",
    )
    build = project.run("build")
    report = project.report("--no-fail-on-rule-failure")
    tests = {
        n["name"]: n
        for n in build.manifest["nodes"].values()
        if (n.get("test_metadata") or {}).get("namespace") == "dataplex_dq"
    }
    return Built(project, build, db, report.returncode, report.stdout + report.stderr, _rows(db), tests)


def _recorded(node: dict[str, Any]) -> list[tuple[int, bool, dict[str, Any]]]:
    return [(r["rule_index"], r["name_given"], r["rule"]) for r in node["config"]["meta"]["dataplex_dq_rules"]]


def _derived(node: dict[str, Any], base: str) -> str:
    """A per-rule test's derived name: `<rule type>-<column>-<6 hex digits of md5(unique_id)>`."""
    return f"{base}-{hashlib.md5(node['unique_id'].encode()).hexdigest()[:6]}"


def test_the_build_errors_one_scan_and_skips_the_broken_models_tests(built):
    statuses = {n: s for n, s in built.build.statuses("identity").items() if n in built.tests}
    qty_null = next(n for n in built.tests if n.startswith("dataplex_dq_non_null_expectation_items"))
    qty_range = next(n for n in built.tests if n.startswith("dataplex_dq_range_expectation_items"))
    downstream = next(n for n in built.tests if n.startswith("dataplex_dq_non_null_expectation_broken"))
    assert statuses == {
        qty_null: "fail",
        qty_range: "fail",
        "items_scan": "fail",
        "errored_scan": "error",
        downstream: "skipped",
        "skipped_scan": "skipped",
    }
    assert "column 'amount' does not exist" in (built.build.nodes["errored_scan"].message or "")
    assert built.report_returncode == 2, built.report_output  # a rule errored


def test_an_evaluated_rule_records_the_identity_its_metrics_row_carries(built):
    """The identity recorded at parse time is the one compile put in the metrics row: same name, same
    DataQualityRule (rule_spec), same attributes."""
    evaluated = [n for n in built.tests.values() if n["name"] not in ("errored_scan", "skipped_scan")]
    evaluated = [n for n in evaluated if not n["name"].startswith("dataplex_dq_non_null_expectation_broken")]
    assert len(evaluated) == 3
    compared = 0
    for node in evaluated:
        rows = {r["rule_index"]: r for r in built.project.query(f"select * from {node['relation_name']}")}
        for index, _, recorded in _recorded(node):
            row = rows[index]
            rule = {k: v for k, v in recorded.items() if k != "attributes"}
            attributes = recorded.get("attributes")
            assert (row["rule_name"], json.loads(row["rule_spec"])) == (rule["name"], rule)
            assert (json.loads(row["rule_attributes"]) if row["rule_attributes"] else None) == attributes
            compared += 1
    assert compared == 5
    qty_range = next(n for n in evaluated if n["name"].startswith("dataplex_dq_range_expectation"))
    assert _recorded(qty_range) == [
        (
            0,
            False,
            {
                "name": _derived(qty_range, "range-qty"),
                "description": "qty is small",
                "column": "qty",
                "range_expectation": {"max_value": "5"},
                "attributes": {"owner": "shop", "tier": "1"},
            },
        )
    ]
    assert [(i, given, r["name"]) for i, given, r in _recorded(built.tests["items_scan"])] == [
        (0, False, "range-qty-0"),
        (1, True, "status-known"),
        (2, False, "non-null-id-2"),
    ]


def test_an_errored_scan_is_reported_under_its_recorded_rules(built):
    """The scan never compiled: each rule it records (#5 has no rule type) is one ERROR row, named as
    recorded; the suspended one stays SUSPENDED."""
    assert _recorded(built.tests["errored_scan"]) == ERRORED_RECORDED
    uid = built.tests["errored_scan"]["unique_id"]
    reported = {
        n: (r["rule_status"], r["rule_column"], r["rule_dimension"])
        for n, r in built.rows.items()
        if r["dbt_test_unique_id"] == uid
    }
    assert reported == {
        "amount-in-range": ("ERROR", "amount", "VALIDITY"),
        "non-null-customer-id-1": ("ERROR", "Customer ID", "COMPLETENESS"),
        "table-condition-2": ("SUSPENDED", None, None),
        "statistic-range-amount-3": ("ERROR", "amount", None),
        "set-status-4": ("ERROR", "status", None),
    }


def test_skipped_tests_are_reported_under_their_recorded_names(built):
    downstream = next(
        n for n in built.tests.values() if n["name"].startswith("dataplex_dq_non_null_expectation_broken")
    )
    name = _derived(downstream, "non-null-qty")
    assert _recorded(downstream) == [(0, False, {"name": name, "column": "qty", "non_null_expectation": {}})]
    assert built.rows[name]["rule_status"] == "SKIPPED"
    assert built.rows["non-null-qty-0"]["rule_status"] == "SKIPPED"
    assert built.rows["non-null-qty-0"]["dbt_test_unique_id"] == built.tests["skipped_scan"]["unique_id"]
    # every rule the data source declares, from the records
    assert json.loads(built.rows[name]["job_declared_rules"]) == sorted([name, "non-null-qty-0"])
