"""Issue 17 and issue 9 B, end to end on every target (DuckDB, PostgreSQL, BigQuery emulator), on the
exactness project (integration_tests/exact_project, hand-computed results in its expected.yml):

1. `dataplex-dq build` runs dbt in-process and then exports (PostgreSQL used to fail the commit);
2. bounds, set values and statistic bounds keep their exact value (never rounded to the column's type);
3. columns are resolved as the warehouse resolves them (PostgreSQL folds to lower case only);
4. the dbt target is recorded, also when the report is not given --target;
6. MIN/MAX of DATE and TIMESTAMP columns keep their value (text form);
7. a job whose rules were all skipped is "not evaluated", not passed;
9 B. partial runs (`dbt retry`, `--select` of one test) update only the rules they ran in the
     "latest" result models, and a rule removed from the project drops out.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import drop_target_schemas
from dbt_harness import INTEGRATION_DIR, DbtProject, DbtResult, run_dataplex_dq, target_env, write_project

PROJECT = INTEGRATION_DIR / "exact_project"
EXPECTED: dict = yaml.safe_load((PROJECT / "expected.yml").read_text())
SEED = "seed.dataplex_dq_exact_tests.exact_values"
SEED_RULES = sorted(n for n in EXPECTED if not n.startswith("broken-"))  # every rule declared on exact_values
BROKEN = "model.dataplex_dq_exact_tests.downstream"


def expected(target: str) -> dict[str, dict]:
    """expected.yml with the target's overrides applied."""
    out = {}
    for rule, declared in EXPECTED.items():
        exp = dict(declared)
        override = exp.pop("postgres", None)
        out[rule] = override if (target == "postgres" and override is not None) else exp
    return out


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class ExactRun:
    """The exactness project copied into a temporary folder and built on one target, then the
    partial runs of 9 B: each step's (dbt result, report, invocation id)."""

    target: str
    project: DbtProject
    build: subprocess.CompletedProcess[str] | None = None
    build_invocation: str = ""
    build_protos: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, tuple[DbtResult, subprocess.CompletedProcess[str], str]] = field(default_factory=dict)
    retry_latest: tuple[dict, dict] | None = None
    retry_broken_latest: list[dict] = field(default_factory=list)

    @property
    def dir(self) -> Path:
        return self.project.project_dir

    def relation(self, identifier: str) -> str:
        return self.project.relation(identifier)

    def report(self):
        """`dataplex-dq report` from the project folder, without --target (as a user would)."""
        return self.project.report("--profiles-dir", str(INTEGRATION_DIR), flags=False)

    def query(self, sql: str) -> list[dict]:
        return self.project.query(sql)

    def results(self, invocation: str | None = None) -> list[dict]:
        rows = self.query(f"select * from {self.relation('dataplex_dq_results')}")
        return [r for r in rows if invocation is None or r["dbt_invocation_id"] == invocation]

    def invocation(self) -> str:
        return json.loads((self.dir / "target" / "run_results.json").read_text())["metadata"]["invocation_id"]


@pytest.fixture(scope="module")
def run(dbt_target, tmp_path_factory):
    """`dataplex-dq build` of the exactness project on the target, then the partial runs of 9 B."""
    tmp = tmp_path_factory.mktemp(f"exact_{dbt_target}")
    env = {**target_env(dbt_target, tmp, "dq_exact"), "DBT_LOG_PATH": str(tmp / "logs")}
    # on DuckDB (the profile's default target) dbt runs without --target: the report must still
    # record the target (issue 17 item 4: from run_results.json args, else the profile's default)
    project = write_project(
        tmp, "exact_project", {}, env=env, target=None if dbt_target == "duckdb" else dbt_target, template=PROJECT
    )
    project.target_path = project.project_dir / "target"
    r = ExactRun(dbt_target, project)
    started = time.monotonic()
    target_args = ["--target", dbt_target] if dbt_target != "duckdb" else []
    r.build = run_dataplex_dq("build", "--profiles-dir", str(INTEGRATION_DIR), *target_args, env=env, cwd=r.dir)
    r.build_invocation = r.invocation()
    out_dir = r.dir / "target" / "dataplex_dq"
    r.build_protos = {
        uid: json.loads((out_dir / f"{uid}.json").read_text())
        for uid in (SEED, BROKEN)
        if (out_dir / f"{uid}.json").exists()
    }
    r.steps = {}
    try:
        # 9 B step 1: `dbt retry` (reruns every rule that failed, errored or was skipped; the model
        # downstream of the failing rules is skipped again), report
        retry = r.project.run("retry")
        r.steps["retry"] = (retry, r.report(), r.invocation())
        r.retry_latest = _latest(r)  # the result models as they are after the retry's report
        r.retry_broken_latest = r.query(
            f"select * from {r.relation('dq_latest_scores')} where dbt_node_unique_id = '{BROKEN}' and score_level = "
            "'table' and dimension = '(overall)'"
        )
        # 9 B step 2: remove one rule from the project, run one test with --select, report
        schema_yml = r.dir / "seeds" / "schema.yml"
        text = schema_yml.read_text()
        removed = (
            "          - dataplex_dq.range_expectation:\n"
            "              name: amount-min-exponent\n"
            '              arguments: {min_value: "5e-3"}\n'
        )
        assert removed in text
        schema_yml.write_text(text.replace(removed, ""))
        one = r.project.run("build", "--select", "amount-set-exact")
        r.steps["select"] = (one, r.report(), r.invocation())
        seconds = time.monotonic() - started
        print(f"\n[dataplex_dq] exactness project on {dbt_target}: build + retry + select with reports {seconds:.1f}s")
        yield r
    finally:
        drop_target_schemas(dbt_target, env)


# ------------------------------------------------------------------ item 1: dataplex-dq build exports


def test_build_command_exports_on_every_target(run):
    out = run.build.stdout + run.build.stderr
    assert "commit failed" not in out and "export failed" not in out, out[-3000:]
    rows = run.results(run.build_invocation)
    assert len(rows) == len(EXPECTED), out[-3000:]
    assert f"Read {len(EXPECTED)} recorded rows" in out
    # exit 2: rules were skipped (and on PostgreSQL one rule errors at compile time)
    assert run.build.returncode == 2, out[-3000:]


# ------------------------------------------------------------------ items 2, 3, 6: exact values


def test_bounds_columns_and_statistics_are_exact(run):
    rows = {r["rule_name"]: r for r in run.results(run.build_invocation)}
    got, want = {}, {}
    for rule, exp in expected(run.target).items():
        row = rows[rule]
        want[rule] = exp
        g = {"status": row["rule_status"]}
        if "passed" in exp:
            g["passed"] = row["rule_rows_passed"]
        if "stat" in exp:
            g["stat"] = row["rule_statistic_value_text"]
            # a number's text form may carry trailing zeros (the BigQuery emulator prints NUMERIC
            # with 9 decimals): compare numbers by value
            if (
                g["stat"] is not None
                and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", exp["stat"])
                and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", g["stat"])
            ):
                g["stat"] = exp["stat"] if Decimal(g["stat"]) == Decimal(exp["stat"]) else g["stat"]
        got[rule] = g
    assert got == want
    # the statistic of a numeric column also keeps its double value
    assert float(rows["amount-max-stat-exact"]["rule_statistic_value"]) == 10.01
    assert rows["d-min-stat"]["rule_statistic_value"] is None  # a date has no double value, its text is kept


def test_column_errors_list_the_real_column_names(run):
    row = {r["rule_name"]: r for r in run.results(run.build_invocation)}["invoice-lower-not-null"]
    if run.target != "postgres":
        assert row["rule_status"] == "PASSED"
        return
    message = row["rule_message"] or ""
    assert "column 'invoiceno' does not exist" in message and "InvoiceNo" in message, message
    assert "field 'column'" in message and "rule 'invoice-lower-not-null'" in message


def test_regex_the_target_cannot_compile(run):
    """item 5: PostgreSQL (POSIX ARE) refuses RE2's named group at compile time, saying what it lacks;
    RE2's \\b runs as a word boundary there (\\y)."""
    rows = {r["rule_name"]: r for r in run.results(run.build_invocation)}
    named, word = rows["invoice-named-group"], rows["invoice-word-boundary"]
    assert (word["rule_status"], word["rule_rows_passed"]) == ("FAILED", 2)
    if run.target != "postgres":
        assert (named["rule_status"], named["rule_rows_passed"]) == ("FAILED", 2)
        return
    message = named["rule_message"] or ""
    assert named["rule_status"] == "ERROR"
    assert "Compilation Error" in message and "field 'regex'" in message, message
    assert "named group '(?P<name>...)'" in message and "POSIX AREs" in message, message


# ------------------------------------------------------------------ item 4: the target is recorded


def test_target_is_recorded_without_target_flag(run):
    for step in ("retry", "select"):
        _dbt_run, report, invocation = run.steps[step]
        rows = run.results(invocation)
        assert rows, report.stdout + report.stderr
        assert {r["dbt_target"] for r in rows} == {run.target}
        assert {_json(r["job_labels"])["dbt_target"] for r in rows} == {run.target}


# ------------------------------------------------------------------ item 7: all skipped = not evaluated


def test_all_skipped_job_is_not_evaluated(run):
    rows = [r for r in run.results(run.build_invocation) if r["dbt_node_unique_id"] == BROKEN]
    assert sorted(r["rule_status"] for r in rows) == ["SKIPPED", "SKIPPED"]
    assert {_json(r["job_quality_result"])["passed"] for r in rows} == {None}
    assert {_json(r["job_quality_result"])["score"] for r in rows} == {None}
    job = run.query(
        f"select * from {run.relation('dq_job_scores')} where dbt_invocation_id = '{run.build_invocation}' and "
        f"dbt_node_unique_id = '{BROKEN}'"
    )
    assert [(j["passed"], j["score"], j["job_status"], j["rules_skipped"]) for j in job] == [
        (None, None, "NOT_EVALUATED", 2)
    ]
    # the proto: passed false (not a vacuous true), no score, no rule results
    proto = run.build_protos[BROKEN]
    assert (proto.get("passed", False), "score" in proto, proto.get("rules", [])) == (False, False, [])
    # the summary says so
    line = next(x for x in run.build.stdout.splitlines() if "downstream" in x)
    assert "not evaluated" in line and "0/0" in line, run.build.stdout[-3000:]


# ------------------------------------------------------------------ 9 B: partial runs


def _latest(run) -> tuple[dict, dict]:
    rules = {
        r["rule_name"]: r
        for r in run.query(
            f"select * from {run.relation('dq_rule_results_latest')} where dbt_node_unique_id = '{SEED}'"
        )
    }
    overall = run.query(
        f"select * from {run.relation('dq_latest_scores')} where dbt_node_unique_id = '{SEED}' and score_level = "
        "'table' and dimension = '(overall)'"
    )
    assert len(overall) == 1, overall
    return rules, overall[0]


def _score(passed: int, evaluated: int) -> float:
    return round(100 * passed / evaluated + 1e-9, 2)


def test_retry_updates_only_the_rules_it_ran(run):
    dbt_run, _report, invocation = run.steps["retry"]
    assert dbt_run.returncode == 1, dbt_run.output[-3000:]  # the failing rules still fail
    exp = expected(run.target)
    not_passed = {n for n, e in exp.items() if e["status"] != "PASSED"}
    scan_rules = {n for n in exp if n.startswith("scan-")}
    # retry reran the model and every test that did not pass: the per-rule tests that failed, errored
    # or were skipped, and the whole scan (two of its rules fail)
    rerun = (not_passed - scan_rules) | scan_rules
    rows = run.results(invocation)
    assert {r["rule_name"] for r in rows} == rerun
    broken = [r for r in rows if r["dbt_node_unique_id"] == BROKEN]
    assert sorted(r["rule_status"] for r in broken) == ["SKIPPED", "SKIPPED"]
    seed_rows = [r for r in rows if r["dbt_node_unique_id"] == SEED]
    assert {(r["job_run_rule_count"], r["job_declared_rule_count"]) for r in seed_rows} == {
        (len(seed_rows), len(SEED_RULES))
    }

    rules, overall = run.retry_latest
    assert set(rules) == set(SEED_RULES)  # every declared rule
    for name, r in rules.items():
        assert r["dbt_invocation_id"] == (invocation if name in rerun else run.build_invocation), name
    evaluated = [e for n, e in exp.items() if not n.startswith("broken-") and e["status"] in ("PASSED", "FAILED")]
    passed = [e for e in evaluated if e["status"] == "PASSED"]
    n = len(SEED_RULES)
    assert (overall["rules_total"], overall["rules_evaluated"], overall["rules_declared"]) == (n, len(evaluated), n)
    assert overall["score"] == _score(len(passed), len(evaluated))
    assert overall["dbt_invocation_id"] == invocation
    broken_latest = run.retry_broken_latest
    assert [(b["score"], b["passed"], b["rules_total"], b["rules_skipped"]) for b in broken_latest] == [
        (None, None, 2, 2)
    ]


def test_select_of_one_test_and_a_removed_rule(run):
    dbt_run, _report, invocation = run.steps["select"]
    assert dbt_run.returncode == 1, dbt_run.output[-3000:]  # amount-set-exact fails (2 of 5)
    rows = run.results(invocation)
    assert [(r["rule_name"], r["rule_status"], r["rule_rows_passed"]) for r in rows] == [
        ("amount-set-exact", "FAILED", 2)
    ]
    n = len(SEED_RULES) - 1  # one rule removed
    assert (rows[0]["job_run_rule_count"], rows[0]["job_declared_rule_count"]) == (1, n)
    job = run.query(f"select * from {run.relation('dq_job_scores')} where dbt_invocation_id = '{invocation}'")
    assert [(j["score"], j["rules_total"], j["rules_declared"]) for j in job] == [(0.0, 1, n)]

    exp = {n: e for n, e in expected(run.target).items() if not n.startswith("broken-") and n != "amount-min-exponent"}
    rules, overall = _latest(run)
    assert set(rules) == set(exp)  # amount-min-exponent, removed from the project, dropped out
    assert rules["amount-set-exact"]["dbt_invocation_id"] == invocation
    evaluated = [e for e in exp.values() if e["status"] in ("PASSED", "FAILED")]
    passed = [e for e in evaluated if e["status"] == "PASSED"]
    assert (overall["rules_total"], overall["rules_evaluated"], overall["rules_declared"]) == (n, len(evaluated), n)
    assert overall["score"] == _score(len(passed), len(evaluated))
