"""The Jinja work of compiling dataplex_dq tests (issue 32 item 1), counted, never timed.

A fresh `dbt compile` process counts every macro call dbt makes (a counting wrapper around
dbt_common's macro generator, in the driver below: instrumentation of this test only) while it compiles
a 20-rule data_quality_scan, then the same 20 rules as per-rule tests, over one DuckDB table. Each
macro call costs dbt a copy of the node's context; the counts are what compiling these tests costs in
Jinja, independent of the machine's load. Before issue 32 (743af8c) the scan made 2,573 calls
(camel_case alone 607, the registry rebuilt 133 times) and the per-rule tests 2,547 (400 of them
scan_rule_name: each test derived the names of the scan's 20 rules again, though they are given).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from dbt_harness import write_project

# (rule type, column or None, fields, common fields): every rule type, as in the anchor's 20 rules
RULES: list[tuple[str, str | None, dict[str, Any], dict[str, Any]]] = [
    ("non_null_expectation", "id", {}, {"dimension": "COMPLETENESS"}),
    ("non_null_expectation", "email", {}, {"threshold": 0.98}),
    ("uniqueness_expectation", "id", {}, {"ignore_null": True, "threshold": 0.99}),
    ("regex_expectation", "email", {"regex": "^[^@]+@[^@]+[.][a-z]+$"}, {"threshold": 0.95}),
    ("regex_expectation", "status", {"regex": "^(ok|retry|fail)$"}, {}),
    ("range_expectation", "amount", {"min_value": "0", "max_value": "10000"}, {"threshold": 0.95}),
    ("range_expectation", "amount", {"min_value": "0", "strict_min_enabled": True}, {"ignore_null": True}),
    ("range_expectation", "event_date", {"min_value": "2024-01-01", "max_value": "2024-12-31"}, {}),
    (
        "range_expectation",
        "created_at",
        {"min_value": "2024-01-01 00:00:00", "strict_max_enabled": True, "max_value": "2025-01-01 00:00:00"},
        {},
    ),
    ("range_expectation", "qty", {"min_value": "1", "max_value": "10"}, {"threshold": 0.99}),
    ("set_expectation", "country", {"values": ["US", "DE", "FR", "GB", "JP"]}, {"threshold": 0.97}),
    ("set_expectation", "status", {"values": ["ok", "retry", "fail"]}, {}),
    ("statistic_range_expectation", "amount", {"statistic": "MEAN", "min_value": "0", "max_value": "1000"}, {}),
    ("statistic_range_expectation", "qty", {"statistic": "MAX", "max_value": "10"}, {}),
    ("statistic_range_expectation", "amount", {"statistic": "MIN", "min_value": "-100"}, {}),
    ("row_condition_expectation", None, {"sql_expression": "qty * amount < 100000"}, {"threshold": 0.99}),
    ("row_condition_expectation", None, {"sql_expression": "qty > 0"}, {}),
    ("table_condition_expectation", None, {"sql_expression": "count(*) > 1"}, {}),
    ("sql_assertion", None, {"sql_statement": "select * from ${data()} where amount < -1000"}, {}),
    ("sql_assertion", None, {"sql_statement": "select id from ${data()} group by id having count(*) > 1"}, {}),
]

MODEL = """\
{{ config(materialized='table') }}
select cast(i as bigint) as id, 'u' || i || '@example.com' as email, cast(i * 1.5 as decimal(12, 2)) as amount,
       cast(i % 10 + 1 as integer) as qty, 'ok' as status, 'US' as country,
       cast(date '2024-01-01' + cast(i as integer) as date) as event_date,
       timestamp '2024-01-01 00:00:00' + to_seconds(i) as created_at
from range(50) r(i)
"""

# the package's macros compiled, and their KB of Jinja without comments: 153 and 109 for the scan, 124 and
# 81 for the per-rule tests before issue 32 item 1's work on them (bcfc96c); 146 and 91, 122 and 68 before
# the declaration was read at parse time (0b89c4b)
SCAN_BUILT, SCAN_BUILT_KB = 113, 66
PER_RULE_BUILT, PER_RULE_BUILT_KB = 102, 57

# Counts dbt's macro calls while it compiles the selected tests, and names the package's macros dbt
# compiles into templates (the first call of each in the process) with their source's length without
# Jinja comments (comments cost dbt nothing); prints them as JSON on the last line.
DRIVER = """\
import collections, json, re, sys
from dbt_common.clients import jinja
calls = collections.Counter()
built = {}
call_macro = jinja.BaseMacroGenerator.call_macro
def counted(self, *args, **kwargs):
    calls[self.get_name()] += 1
    return call_macro(self, *args, **kwargs)
jinja.BaseMacroGenerator.call_macro = counted
get_node_template = jinja.TemplateCache.get_node_template
def recorded(self, node):
    if node.macro_sql not in self.file_cache and getattr(node, "package_name", "") == "dataplex_dq":
        built[node.name] = len(re.sub(r"{#.*?#}", "", node.macro_sql, flags=re.S))
    return get_node_template(self, node)
jinja.TemplateCache.get_node_template = recorded
from dbt.cli.main import dbtRunner
result = dbtRunner().invoke(sys.argv[1:])
print(json.dumps({"success": result.success, "calls": dict(calls), "built": built}))
"""


def schema_yml() -> str:
    """One model: the 20 rules as one data_quality_scan (tag scan) and as 20 per-rule tests (tag per_rule),
    the column rules declared under their columns."""
    scan_rules: list[dict[str, Any]] = []
    model_tests: list[dict[str, Any]] = []
    columns: dict[str, list[dict[str, Any]]] = {}
    for i, (rule_type, column, fields, common) in enumerate(RULES):
        scan_rules.append({"name": f"r{i:02d}", **({"column": column} if column else {}), **common, rule_type: fields})
        test = {
            f"dataplex_dq.{rule_type}": {
                "name": f"p{i:02d}",
                "arguments": {**fields, **common},
                "config": {"tags": ["per_rule"]},
            }
        }
        (columns.setdefault(column, []) if column else model_tests).append(test)
    scan = {
        "dataplex_dq.data_quality_scan": {
            "name": "work_scan",
            "arguments": {"rules": scan_rules},
            "config": {"tags": ["scan"]},
        }
    }
    model = {
        "name": "events",
        "data_tests": [scan, *model_tests],
        "columns": [{"name": c, "data_tests": tests} for c, tests in columns.items()],
    }
    return json.dumps({"version": 2, "models": [model]})


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compile_work")
    proj = write_project(
        tmp,
        "compile_work",
        {"models/events.sql": MODEL, "models/schema.yml": schema_yml()},
        env={"DBT_DUCKDB_PATH": str(tmp / "work.duckdb")},
    )
    res = proj.run("run", "--select", "events")
    assert res.success, res.output[-3000:]
    assert proj.run("parse").success  # the compiles below read this partial parse, as `dbt test` would
    return proj


def compile_work(proj, tag: str) -> dict[str, Any]:
    """{calls: {macro name: calls}, built: {package macro compiled: its length}} of one fresh
    `dbt compile --select tag:<tag>` process."""
    cmd = [
        sys.executable,
        "-c",
        DRIVER,
        "compile",
        "--select",
        f"tag:{tag}",
        "--project-dir",
        str(proj.project_dir),
        "--profiles-dir",
        str(proj.profiles_dir),
        "--target-path",
        str(proj.target_path),
    ]
    env = {**os.environ, **proj.env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    out = subprocess.run(cmd, cwd=proj.project_dir, env=env, capture_output=True, text=True, check=False)
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert last["success"], "\n".join(line for line in out.stdout.splitlines() if "dataplex_dq:" in line)[-3000:]
    return last


@pytest.fixture(scope="module")
def scan_work(project) -> dict[str, Any]:
    return compile_work(project, "scan")


@pytest.fixture(scope="module")
def per_rule_work(project) -> dict[str, Any]:
    return compile_work(project, "per_rule")


def test_scan_compiles_with_fewer_macro_calls(scan_work) -> None:
    calls = scan_work["calls"]
    # the declaration was read and checked when dbt parsed the test (macros/identity.sql, scan_parse):
    # compile starts from the rules it recorded
    assert [name for name in READ_AT_PARSE if name in calls] == []
    assert calls.get("camel_case", 0) <= 20, calls.get("camel_case")
    # the registry is read once per rule or less, not for each of its facts
    assert calls["rule_types"] <= 2 * len(RULES), calls["rule_types"]  # 140 before
    # the metrics columns' types and the rule types' SQL pieces once per scan
    assert calls["metrics_column_types"] == 1
    assert calls["rule_sql_pieces"] <= 9, calls["rule_sql_pieces"]  # at most once per rule type
    assert "incremental_window" not in calls  # no incremental setting: no window to compute
    assert "bytes_billed_guard" not in calls  # no meta.dataplex_dq.max_bytes_billed: no cap to check
    assert sum(calls.values()) <= 900, sum(calls.values())  # 2,573 before issue 32, 1,310 at 0b89c4b


def test_per_rule_tests_compile_with_fewer_macro_calls(per_rule_work) -> None:
    calls = per_rule_work["calls"]
    assert calls["rule_test"] == len(RULES)
    assert [name for name in READ_AT_PARSE if name in calls] == []  # per_rule_parse read them
    # a rule's registry facts once for its validation and once for its SQL pieces
    assert calls["rule_types"] <= 2 * len(RULES) + 5, calls["rule_types"]
    # no meta.dataplex_dq: the data source's settings are not checked key by key
    assert "validate_scope_settings" not in calls
    assert "validate_post_scan_actions" not in calls
    # a sibling scan's rule names are read as given, not derived again for each test (400 calls before)
    assert "scan_rule_name" not in calls
    # the data source's tests are picked by filters, not indexed by a Jinja loop over each of them in
    # every test (rules_of_source: O(tests per data source) per test, 20 calls before)
    assert "rules_of_source" not in calls
    assert sum(calls.values()) <= 1700, sum(calls.values())  # 2,547 before issue 32, 1,882 at 0b89c4b


# What reads and checks a declaration, done once when dbt parses a valid one (macros/identity.sql): never
# called when dbt compiles it again from the partial parse.
READ_AT_PARSE = [
    "scan_parse",
    "per_rule_parse",
    "scan_spec_of",
    "spec_snake_case",
    "scan_read_rules",
    "scan_rule_keys",
    "normalize_scan_rule",
    "scan_rule_name",
    "normalize_rule",
    "rule_test_arguments",
    "validate_rule",
    "validate_rule_identity",
    "validate_rule_params",
    "scan_unknown_arguments",
]


# What a valid declaration does not compile (issue 32 item 1: dbt compiles each macro called as its own
# template, ~7 ms per KB of Jinja code, once per process): the checks of settings and values that are
# not given, and the full checks of what is common and valid.
NOT_COMPILED = [
    "regex_problem",  # RE2's tokenizer (~9 KB): the anchor's patterns are of RE2's plain subset (re2_plain)
    "re2_unicode_classes",
    "bound_problem_message",  # the typed bounds are of the common shapes
    "is_real_date_time",
    "rules_of_source",  # an index of the data source's tests nobody read
]


def test_a_valid_scan_compiles_less_jinja(scan_work) -> None:
    built = scan_work["built"]
    assert [name for name in NOT_COMPILED if name in built] == []
    assert "validate_scope_settings" not in built  # no settings: nothing to check
    assert "validate_post_scan_actions" not in built
    assert len(built) == SCAN_BUILT, sorted(built)
    assert sum(built.values()) // 1024 == SCAN_BUILT_KB, sum(built.values())


def test_valid_per_rule_tests_compile_less_jinja(per_rule_work) -> None:
    built = per_rule_work["built"]
    assert [name for name in NOT_COMPILED if name in built] == []
    assert len(built) == PER_RULE_BUILT, sorted(built)
    assert sum(built.values()) // 1024 == PER_RULE_BUILT_KB, sum(built.values())


def test_a_per_rule_test_checks_its_name_and_count_against_a_sibling_scan(tmp_path) -> None:
    """The per-data-source checks read the data source's tests through filters (rule_test.sql,
    validate_rules_of_source): a per-rule test named as a rule of a 1,000-rule scan on the same model
    clashes with it, and the data source then holds 1,001 rules, over Dataplex's 1,000."""
    rules = [{"name": f"n{i:04d}", "column": "id", "non_null_expectation": {}} for i in range(1000)]
    model = {
        "name": "events",
        "data_tests": [{"dataplex_dq.data_quality_scan": {"name": "big_scan", "arguments": {"rules": rules}}}],
        "columns": [
            {"name": "id", "data_tests": [{"dataplex_dq.non_null_expectation": {"name": "n0005"}}]},
            {"name": "email", "data_tests": [{"dataplex_dq.non_null_expectation": {"name": "other-name"}}]},
        ],
    }
    files = {"models/events.sql": MODEL, "models/schema.yml": json.dumps({"version": 2, "models": [model]})}
    proj = write_project(tmp_path, "sibling_scan", files, env={"DBT_DUCKDB_PATH": str(tmp_path / "s.duckdb")})
    assert proj.run("run", "--select", "events").success
    res = proj.run("compile", "--select", "n0005", check=False)
    assert not res.success
    assert "rule 'n0005'" in res.output
    assert "another rule on the same data source is also named 'n0005'" in res.output
    assert "the data source has 1002 rules; Dataplex allows at most 1000 per data source" in res.output
    res = proj.run("compile", "--select", "other-name", check=False)
    assert "rule 'other-name'" in res.output
    assert "the data source has 1002 rules" in res.output
    assert "also named" not in res.output
