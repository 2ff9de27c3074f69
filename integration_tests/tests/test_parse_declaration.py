"""The declaration read once, when dbt parses the test (issue 32 item 1; macros/identity.sql, scan_parse and
per_rule_parse): a valid declaration is recorded in the test's config.meta and compiling starts from it; an
invalid one records nothing and compile reads it as before, raising every problem; a changed declaration is
read again by dbt's partial parse. DuckDB only: what is recorded depends on the declaration, not the warehouse.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dbt_harness import write_project

MODEL = """\
{{ config(materialized='table') }}
select cast(i as integer) as id, cast(i * 1.5 as double) as amount, 'ok' as status from range(10) r(i)
"""

KEY = "dataplex_dq_declaration"


def schema(max_amount: int) -> str:
    scan_rules = [
        {"name": "amount-range", "column": "amount", "rangeExpectation": {"maxValue": str(max_amount)}},
        {"column": "status", "set_expectation": {"values": ["ok", "retry"]}, "threshold": 0.9},
        {"table_condition_expectation": {"sql_expression": "count(*) > 0"}},
    ]
    broken_rules = [{"column": "id", "non_null_expectation": {}, "threshold": 2}]
    model = {
        "name": "events",
        "data_tests": [
            {"dataplex_dq.data_quality_scan": {"name": "good_scan", "arguments": {"rules": scan_rules}}},
            {"dataplex_dq.data_quality_scan": {"name": "broken_scan", "arguments": {"rules": broken_rules}}},
            {
                "dataplex_dq.sql_assertion": {
                    "name": "ref-rule",
                    "arguments": {"sql_statement": "select * from {{ ref('events') }} where id < 0"},
                }
            },
        ],
        "columns": [
            {
                "name": "amount",
                "data_tests": [
                    {"dataplex_dq.range_expectation": {"name": "good-rule", "arguments": {"min_value": 0}}},
                    {"dataplex_dq.range_expectation": {"name": "no-bounds"}},
                    {
                        "dataplex_dq.range_expectation": {
                            "name": "broken-rule",
                            "arguments": {"min_value": 0, "threshold": 2},
                        }
                    },
                ],
            }
        ],
    }
    return json.dumps({"version": 2, "models": [model]})


def by_name(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in manifest["nodes"].values() if n["resource_type"] == "test"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("parse_declaration")
    proj = write_project(
        tmp,
        "parse_declaration",
        {"models/events.sql": MODEL, "models/schema.yml": schema(100)},
        env={"DBT_DUCKDB_PATH": str(tmp / "p.duckdb")},
    )
    assert proj.run("run", "--select", "events").success
    return proj


def test_a_valid_declaration_is_recorded_normalized_and_an_invalid_one_is_not(project) -> None:
    res = project.run("parse")
    assert res.success, res.output[-3000:]
    tests = by_name(res.manifest)
    scan = tests["good_scan"]["config"]["meta"][KEY]
    # the spec's other fields (none given here) and the rules as compile reads them: camelCase read,
    # names derived, bounds as the proto's strings
    assert scan["spec"] == {}
    rules = scan["rules"]
    assert [r["name"] for r in rules] == ["amount-range", "set-status-1", "table-condition-2"]
    assert [r["rule_type"] for r in rules] == ["range_expectation", "set_expectation", "table_condition_expectation"]
    assert rules[0]["params"] == {"max_value": "100"}
    assert rules[0]["column"] == "amount"
    assert rules[1]["params"] == {"values": ["ok", "retry"]}
    assert rules[1]["threshold"] == 0.9
    per_rule = tests["good-rule"]["config"]["meta"][KEY]["rule"]
    assert per_rule["rule_type"] == "range_expectation"
    assert per_rule["name"] == "good-rule"
    assert per_rule["params"] == {"min_value": "0"}
    # a declaration with a problem records none: compile reads it again and raises the problem
    assert KEY not in tests["broken_scan"]["config"]["meta"]
    assert KEY not in tests["broken-rule"]["config"]["meta"]
    # (a rule-type field's problem too: each rule type's check is called by name, as dbt parses a test with
    # only the macros it finds called; a check looked up by name did not run while parsing)
    assert KEY not in tests["no-bounds"]["config"]["meta"]
    # nor one whose arguments hold Jinja: dbt renders them again at compile (a ref() while parsing is the
    # test's own relation)
    assert KEY not in tests["ref-rule"]["config"]["meta"]
    # the identity is recorded for every test, as before
    assert all("dataplex_dq_rules" in t["config"]["meta"] for t in tests.values())


def test_an_invalid_declaration_raises_its_problems_at_compile_as_before(project) -> None:
    res = project.run("test", "--select", "broken_scan", "broken-rule", check=False)
    assert not res.success
    assert (
        "rule #0 'non-null-id-0' (dataplex_dq.data_quality_scan non_null_expectation), field 'threshold': "
        "must be a number between 0 and 1 (0 means 1.0), got 2" in res.output
    )
    assert (
        "rule 'broken-rule' (dataplex_dq.range_expectation), field 'threshold': "
        "must be a number between 0 and 1 (0 means 1.0), got 2" in res.output
    )


def test_a_changed_declaration_is_read_again_by_a_partial_parse(project) -> None:
    res = project.run("compile", "--select", "good_scan", "good-rule", "ref-rule")
    assert res.success, res.output[-3000:]
    sql = {n["name"]: n["compiled_code"] for n in by_name(res.manifest).values() if n.get("compiled_code")}
    assert '"events" where id < 0' in sql["ref-rule"], sql["ref-rule"]
    assert "<= cast('100' as double)" in sql["good_scan"], sql["good_scan"]
    (project.project_dir / "models" / "schema.yml").write_text(schema(250))
    res = project.run("compile", "--select", "good_scan")
    assert res.success, res.output[-3000:]
    node = by_name(res.manifest)["good_scan"]
    assert node["config"]["meta"][KEY]["rules"][0]["params"] == {"max_value": "250"}
    assert "<= cast('250' as double)" in node["compiled_code"] and "'100'" not in node["compiled_code"], node[
        "compiled_code"
    ]
