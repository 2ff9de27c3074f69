"""A test dbt skips (its model failed) or that errors leaves no metrics row: the on-run-end hook records each of
its declared rules from the declaration (macros/results/on_run_end.sql, hook_declared_rows), on every target.

One throwaway project per target: a model whose query fails (it reads a relation that does not exist), with
per-rule tests and a data_quality_scan of every field shape a declaration may give (snake_case and camelCase,
numbers, booleans and quotes in values, thresholds, dimensions, suspended rules, debug queries, attributes), so
`dbt build` skips them all. Every declared rule must be in the results table as SKIPPED, with the fields the
declaration gave, as they were before the hook wrote these rows through hook_rows_sql (one packed literal on
DuckDB) instead of one literal SELECT per rule (bench_hook.py --rules-scan-skipped: a skipped 1,000-rule scan
took the hook 13 s)."""

from __future__ import annotations

import json

import pytest

from conftest import drop_target_schemas
from dbt_harness import target_env, write_project

SCHEMA = """\
version: 2
models:
  - name: broken
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.range_expectation:
              name: qty-range
              arguments: {min_value: 0, max_value: 10.5, strict_max_enabled: true, dimension: VALIDITY,
                          threshold: 0.9, ignore_null: true}
          - dataplex_dq.set_expectation:
              name: qty-set
              arguments: {values: [1, 'two', true, 3.5], attributes: {owner: "o'brien", tier: 1}}
          - dataplex_dq.non_null_expectation:
              name: qty-present
              arguments: {suspended: true, debug_queries: [{description: dq, sql_statement: "select 1"}]}
    data_tests:
      - dataplex_dq.row_count_expectation: {name: rows-counted, arguments: {min_value: 1}}
      - dataplex_dq.data_quality_scan:
          name: broken_scan
          arguments:
            rowFilter: "qty > 0"
            rules:
              - {column: qty, rangeExpectation: {minValue: '0', maxValue: 5, strictMinEnabled: true}, ignoreNull: true,
                 threshold: 0.8, dimension: VALIDITY}
              - {name: named-set, column: name, set_expectation: {values: [a, "b'c", 2]},
                 description: "quote ' here", attributes: {k: v, n: 2}}
              - {column: name, uniquenessExpectation: {}, suspended: true,
                 debugQueries: [{description: first, sqlStatement: "select 1"}]}
              - {tableConditionExpectation: {sqlExpression: "count(*) > 0"}}
              - {column: qty, statisticRangeExpectation: {statistic: max, maxValue: '9'}}
"""


@pytest.fixture(scope="module")
def skipped(dbt_target, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"skipped_{dbt_target}")
    project = write_project(
        tmp,
        "skipped_project",
        {
            "models/broken.sql": "{{ config(materialized='table') }}\nselect qty, name from dq_no_such_relation\n",
            "models/schema.yml": SCHEMA,
        },
        env=target_env(dbt_target, tmp, "dq_skipped"),
        target=None if dbt_target == "duckdb" else dbt_target,
    )
    build = project.run("build")
    invocation = build.run_results["metadata"]["invocation_id"]
    rows = project.query(
        "select rule_name, rule_status, rule_type, rule_column, rule_dimension, rule_threshold_percent, "
        "rule_suspended, rule_parameters, rule_attributes, rule_description, debug_queries, rule_message "
        f"from {project.relation('dataplex_dq_results')} where dbt_invocation_id = '{invocation}'"
    )
    yield build, {r["rule_name"]: r for r in rows}, project
    drop_target_schemas(dbt_target, project.env)


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def test_every_declared_rule_of_a_skipped_test_is_recorded_as_declared(skipped):
    build, rows, _ = skipped
    rows = {name: r for name, r in rows.items() if name != "rows-counted"}
    statuses = {r["unique_id"].split(".")[2]: r["status"] for r in build.run_results["results"]}
    assert statuses["broken"] == "error" and statuses["broken_scan"] == "skipped", statuses
    assert sorted(rows) == [
        "named-set",
        "qty-present",
        "qty-range",
        "qty-set",
        "range-qty-0",
        "statistic-range-qty-4",
        "table-condition-3",
        "uniqueness-name-2",
    ]
    # a suspended rule is SUSPENDED whatever happened to its test (docs/SEMANTICS.md)
    suspended = {"qty-present", "uniqueness-name-2"}
    assert {name: r["rule_status"] for name, r in rows.items()} == {
        name: "SUSPENDED" if name in suspended else "SKIPPED" for name in rows
    }
    got = {
        name: (
            r["rule_type"],
            r["rule_column"],
            r["rule_dimension"],
            None if r["rule_threshold_percent"] is None else float(r["rule_threshold_percent"]),
            bool(r["rule_suspended"]),
            _json(r["rule_parameters"]),
        )
        for name, r in rows.items()
    }
    assert got == EXPECTED, got
    assert _json(rows["qty-set"]["rule_attributes"]) == {"owner": "o'brien", "tier": "1"}
    assert _json(rows["named-set"]["rule_attributes"]) == {"k": "v", "n": "2"}
    assert rows["named-set"]["rule_description"] == "quote ' here"
    assert "select 1" in json.dumps(_json(rows["qty-present"]["debug_queries"]))
    assert "select 1" in json.dumps(_json(rows["uniqueness-name-2"]["debug_queries"]))


# rule: (type, column, dimension, threshold %, suspended, rule_parameters): bounds and set values as the proto's
# texts (a YAML true is 'true'), the statistic upper case, the threshold of a row-level rule (100 when not given),
# none for an aggregate one
EXPECTED = {
    "range-qty-0": (
        "Range Check",
        "qty",
        "VALIDITY",
        80.0,
        False,
        {"min_value": "0", "max_value": "5", "strict_min_enabled": True},
    ),
    "named-set": ("Set check", "name", None, 100.0, False, {"values": ["a", "b'c", "2"]}),
    "uniqueness-name-2": ("Uniqueness Check", "name", None, 100.0, True, {}),
    "table-condition-3": ("Table condition", None, None, None, False, {"sql_expression": "count(*) > 0"}),
    "statistic-range-qty-4": ("Statistic check", "qty", None, None, False, {"statistic": "MAX", "max_value": "9"}),
    "qty-present": ("Null check", "qty", None, 100.0, True, {}),
    "qty-range": (
        "Range Check",
        "qty",
        "VALIDITY",
        90.0,
        False,
        {"min_value": "0", "max_value": "10.5", "strict_max_enabled": True},
    ),
    "qty-set": ("Set check", "qty", None, 100.0, False, {"values": ["1", "two", "true", "3.5"]}),
}


TESTS = (
    "data_quality_scan, anomaly_detection, range_expectation, non_null_expectation, set_expectation, "
    "regex_expectation, uniqueness_expectation, statistic_range_expectation, row_condition_expectation, "
    "table_condition_expectation, sql_assertion, template_reference"
)


def test_a_test_the_package_does_not_have_is_an_error_that_names_it(skipped):
    """`dataplex_dq.row_count_expectation` parses (dbt looks the macro up only when it compiles the test) and is
    skipped with its failed model: recorded as an ERROR naming the test and the package's tests, and the report
    says so, not that the results table's row cannot be read."""
    _, rows, project = skipped
    row = rows["rows-counted"]
    assert row["rule_status"] == "ERROR"
    assert not row["rule_type"]
    message = f"dataplex_dq has no test 'row_count_expectation'; its tests: {TESTS}"
    assert row["rule_message"] == message
    report = project.report("--no-export")
    assert report.returncode == 2, report.stdout + report.stderr  # a rule errored
    out = " ".join(report.stdout.split())
    assert f"model 'broken' rule 'rows-counted': {message}" in out, report.stdout
    assert "cannot be read" not in report.stdout
