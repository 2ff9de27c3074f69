"""`dataplex-dq report` end to end on the integration project, on each target (DuckDB, PostgreSQL,
BigQuery): protos, scores, and the rows of the results table in the warehouse."""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
import yaml

from dataplex_dq.run.assemble import result_from_bytes, result_from_json
from dataplex_dq.run.jobs import job_id
from dbt_harness import INTEGRATION_DIR, run_dataplex_dq

EXPECTED: dict = yaml.safe_load((INTEGRATION_DIR / "expected_metrics.yml").read_text())

EXPORT_COLUMNS = [
    "data_quality_scan",
    "data_source",
    "data_quality_job_id",
    "data_quality_job_configuration",
    "job_labels",
    "job_start_time",
    "job_end_time",
    "job_quality_result",
    "job_dimension_result",
    "job_rows_scanned",
    "rule_name",
    "rule_description",
    "rule_type",
    "rule_evaluation_type",
    "rule_column",
    "rule_dimension",
    "rule_threshold_percent",
    "rule_parameters",
    "rule_passed",
    "rule_rows_evaluated",
    "rule_rows_passed",
    "rule_rows_passed_percent",
    "rule_rows_null",
    "rule_failed_records_query",
    "created_on",
    "last_updated",
    "rule_assertion_row_count",
    "debug_queries",
    "rule_suspended",
    "rule_attributes",
    "rule_status",
    "rule_message",
    "rule_statistic_value",
    "job_row_weighted_score",
    "dbt_invocation_id",
    "dbt_test_unique_id",
    "dbt_node_unique_id",
    "job_notification_result",
    "rule_statistic_value_text",
    "dbt_target",
    "job_declared_rules",
    "job_declared_rule_count",
    "job_run_rule_count",
    "rule_execution_seconds",
    "rule_bytes_processed",
    "rule_bytes_billed",
    "rule_slot_ms",
    "job_execution_seconds",
    "job_bytes_processed",
    "job_bytes_billed",
    "job_slot_ms",
    "job_query_count",
    "dbt_test_cost",
]


def _score(passed: int, total: int) -> float | None:
    if total == 0:
        return None
    return float((Decimal(passed) * 100 / Decimal(total)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


@pytest.fixture(scope="session")
def reported(target_build):
    """`dataplex-dq report` run twice on the target's build (the second run must not duplicate rows)."""
    tb = target_build
    if "reported" not in tb.extra:
        args = [
            "report",
            "--project-dir",
            str(INTEGRATION_DIR),
            "--profiles-dir",
            str(INTEGRATION_DIR),
            "--target",
            tb.target,
            "--target-path",
            str(tb.build.target_path),
        ]
        first = run_dataplex_dq(*args, env=tb.env)
        second = run_dataplex_dq(*args, env=tb.env)
        tb.extra["reported"] = (first, second)
    first, second = tb.extra["reported"]
    return tb, first, second


def _json(value):
    """A JSON column as a Python value (DuckDB hands JSON back as text; psycopg2 and the BigQuery
    client decode it)."""
    return json.loads(value) if isinstance(value, str) else value


def _sources(build, metrics):
    by_source = defaultdict(list)
    for name, row in metrics.items():
        by_source[row["dq_data_source"]].append(name)
    return by_source


def test_report_exit_code_and_summary(reported):
    _, first, second = reported
    any_failed = any(e["status"] == "FAILED" for e in EXPECTED.values())
    assert first.returncode == (1 if any_failed else 0), first.stdout + first.stderr
    assert second.returncode == first.returncode
    assert "Dataplex data quality" in first.stdout
    assert "recorded rows of" in first.stdout


def test_result_files_parse_and_match_the_expectations(reported):
    tb, _, _ = reported
    build, metrics = tb.build, tb.metrics
    out_dir = build.target_path / "dataplex_dq"
    for source, names in _sources(build, metrics).items():
        base = source
        result = result_from_json((out_dir / f"{base}.json").read_text())
        assert result == result_from_bytes((out_dir / f"{base}.pb").read_bytes())
        evaluated = [n for n in names if EXPECTED[n]["status"] in ("PASSED", "FAILED")]
        passed = [n for n in evaluated if EXPECTED[n]["status"] == "PASSED"]
        assert sorted(r.rule.name for r in result.rules) == sorted(evaluated), source
        expected_score = _score(len(passed), len(evaluated))
        if expected_score is None:
            assert not result.HasField("score")
        else:
            assert result.score == pytest.approx(expected_score, abs=1e-4), source
        assert result.passed == (len(passed) == len(evaluated))
        for r in result.rules:
            exp = EXPECTED[r.rule.name]
            assert r.passed == exp["passed"], r.rule.name
            if exp.get("evaluated_count") is not None:
                assert r.evaluated_count == exp["evaluated_count"]
                assert r.passed_count == exp["passed_count"]
                assert r.pass_ratio == pytest.approx(float(Fraction(str(exp["pass_ratio"]))), abs=1e-12)
                assert r.failing_rows_query
            if exp.get("null_count") is not None:
                assert r.null_count == exp["null_count"]
            if exp.get("assertion_row_count") is not None:
                assert r.assertion_row_count == exp["assertion_row_count"]
        # dimension scores: the same formula over each dimension's evaluated rules
        dims = defaultdict(lambda: [0, 0])
        for n in evaluated:
            d = metrics[n]["rule_dimension"]
            if d:
                dims[d][1] += 1
                dims[d][0] += EXPECTED[n]["status"] == "PASSED"
        got = {d.dimension.name: (d.score, d.passed) for d in result.dimensions}
        assert sorted(got) == sorted(dims)
        for d, (p, t) in dims.items():
            assert got[d][0] == pytest.approx(_score(p, t), abs=1e-4)
            assert got[d][1] == (p == t)
        cols = defaultdict(lambda: [0, 0])
        for n in evaluated:
            c = metrics[n]["rule_column"]
            if c:
                cols[c][1] += 1
                cols[c][0] += EXPECTED[n]["status"] == "PASSED"
        got_cols = {c.column: c.score for c in result.columns}
        assert sorted(got_cols) == sorted(cols)
        for c, (p, t) in cols.items():
            assert got_cols[c] == pytest.approx(_score(p, t), abs=1e-4)


def test_results_table_rows(reported):
    tb, _, _ = reported
    build, metrics = tb.build, tb.metrics
    with tb.db() as db:
        cols = db.columns(tb.schema, "dataplex_dq_results")
        rows = db.query(f"select * from {tb.relation('dataplex_dq_results')}")
    assert cols == EXPORT_COLUMNS
    # one row per rule, reported twice: still one copy
    assert len(rows) == len(EXPECTED)
    invocation = build.run_results["metadata"]["invocation_id"]
    for row in rows:
        name = row["rule_name"]
        exp = EXPECTED[name]
        assert row["rule_status"] == exp["status"]
        assert row["dbt_invocation_id"] == invocation
        assert row["data_quality_job_id"] == job_id(invocation, row["dbt_node_unique_id"])
        assert row["rule_suspended"] is (exp["status"] == "SUSPENDED")
        if exp["status"] == "SUSPENDED":
            assert row["rule_passed"] is None
        else:
            assert row["rule_passed"] is exp["passed"]
        if exp.get("evaluated_count") is not None and exp["status"] != "SUSPENDED":
            assert row["rule_rows_evaluated"] == exp["evaluated_count"]
            assert row["rule_rows_passed"] == exp["passed_count"]
            assert row["rule_rows_passed_percent"] == pytest.approx(
                100 * float(Fraction(str(exp["pass_ratio"]))), abs=1e-9
            )
            assert row["rule_evaluation_type"] == "Per row"
            threshold = metrics[name]["rule_threshold"]
            assert row["rule_threshold_percent"] == pytest.approx(threshold * 100)
            assert row["rule_failed_records_query"] == metrics[name]["failing_rows_query"]
        if exp.get("assertion_row_count") is not None:
            assert row["rule_assertion_row_count"] == exp["assertion_row_count"]
            assert row["rule_type"] == "SQL assertion"
            assert row["rule_evaluation_type"] == "Aggregate"
        source_rules = [n for n, m in metrics.items() if m["dq_data_source"] == row["dbt_node_unique_id"]]
        expected_score = _score(
            sum(1 for n in source_rules if EXPECTED[n]["status"] == "PASSED"),
            sum(1 for n in source_rules if EXPECTED[n]["status"] in ("PASSED", "FAILED")),
        )
        quality = row["job_quality_result"]
        if isinstance(quality, str):  # a warehouse without STRUCT keeps it as JSON text
            quality = json.loads(quality)
        if expected_score is None:
            assert quality["score"] is None
        else:
            assert quality["score"] == pytest.approx(expected_score, abs=1e-9)
        assert quality["passed"] is all(EXPECTED[n]["status"] in ("PASSED", "SUSPENDED") for n in source_rules)
        # the JSON columns decode to the same values on every warehouse
        params = _json(row["rule_parameters"])
        spec = json.loads(metrics[name]["rule_spec"])
        assert params == spec[metrics[name]["rule_type"]], name
        dims = _json(row["job_dimension_result"])
        assert isinstance(dims, dict) and all(set(v) == {"passed", "score"} for v in dims.values()), dims
        config = _json(row["data_quality_job_configuration"])
        assert config["trigger"] == "ondemand" and config["incremental"] is False
        assert _json(row["job_labels"])["dbt_target"] == tb.target
        attributes = _json(row["rule_attributes"])
        assert attributes == (
            json.loads(metrics[name]["rule_attributes"]) if metrics[name]["rule_attributes"] else None
        )


def test_results_table_debug_queries(reported):
    """The nested ARRAY<STRUCT<..., ARRAY<STRUCT>>> column round-trips on every warehouse."""
    tb, _, _ = reported
    with tb.db() as db:
        rows = db.query(f"select rule_name, debug_queries from {tb.relation('dataplex_dq_results')}")
    by_rule = {r["rule_name"]: _json(r["debug_queries"]) for r in rows}
    for name, exp in EXPECTED.items():
        if not exp.get("debug_query_results"):
            continue
        got = by_rule[name]
        assert [q["description"] for q in got] == [q["description"] for q in exp["debug_query_results"]]
        for q, e in zip(got, exp["debug_query_results"], strict=True):
            assert "${data()}" in q["sql_statement"]
            values = {r["name"]: r["value"] for r in q["debug_query_results"]}
            assert values == e["results"], name
    # a rule without debug queries has an empty list (NULL where the warehouse keeps NULL arrays)
    for name, value in by_rule.items():
        if not EXPECTED[name].get("debug_query_results"):
            assert value in ([], None), name


def test_cost_columns_are_what_dbt_recorded(reported):
    """Issue 10 item 2: each row carries its test's execution_time and adapter_response from
    run_results.json (BigQuery: bytes; the emulator bills 0), a rule's own cost where its test ran it
    alone, and the job's sums; the summary shows each job's cost."""
    tb, first, _ = reported
    results = {r["unique_id"]: r for r in tb.build.run_results["results"]}
    with tb.db() as db:
        rows = db.query(f"select * from {tb.relation('dataplex_dq_results')}")
    rules_of_test = defaultdict(int)
    tests_of_job = defaultdict(set)
    for row in rows:
        rules_of_test[row["dbt_test_unique_id"]] += 1
        tests_of_job[row["data_quality_job_id"]].add(row["dbt_test_unique_id"])
    bigquery = tb.target == "bigquery"
    for row in rows:
        ran = results[row["dbt_test_unique_id"]]
        assert _json(row["dbt_test_cost"]) == {
            "execution_time": pytest.approx(ran["execution_time"], rel=1e-12),
            "adapter_response": ran["adapter_response"],
        }, row["rule_name"]
        own = rules_of_test[row["dbt_test_unique_id"]] == 1
        assert row["rule_execution_seconds"] == (pytest.approx(ran["execution_time"], rel=1e-12) if own else None)
        assert row["rule_bytes_billed"] == (ran["adapter_response"]["bytes_billed"] if own and bigquery else None)
        job_tests = [results[t] for t in tests_of_job[row["data_quality_job_id"]]]
        assert row["job_query_count"] == len(job_tests)
        assert row["job_execution_seconds"] == pytest.approx(sum(t["execution_time"] for t in job_tests), rel=1e-9)
        assert row["job_bytes_billed"] == (
            sum(t["adapter_response"]["bytes_billed"] for t in job_tests) if bigquery else None
        )
    assert set(rules_of_test.values()) == {1}  # per-rule tests only here (scans: test_scan.py)
    header = next(line for line in first.stdout.splitlines() if "data source" in line)
    assert header.rstrip(" ┃|").endswith("cost"), header
    assert "Costliest queries: " in first.stdout


_READ_BOTH = r"""
import json, sys
from pathlib import Path
from dataplex_dq.run.recorded import read_rows, recorded_jobs
from dataplex_dq.warehouse.connection import Warehouse

project, target, manifest, schema, quoted, invocation = sys.argv[1:7]
with Warehouse(Path(project), Path(project), target, Path(manifest)) as wh:
    relation = wh.relation(getattr(wh.credentials, "database", None), schema, "dataplex_dq_results")
    read = read_rows(wh, relation, invocation)
    every = wh.query(f"select * from {quoted} where dbt_invocation_id = '{invocation}'")
    jobs = {str(j.job.job_id): j for j in recorded_jobs(read, [], wh.adapter_type)}
    same = {str(j.job.job_id): j for j in recorded_jobs(every, [], wh.adapter_type)}
    first = {}
    for r in read:
        first.setdefault(r["data_quality_job_id"], []).append(bool(r["dq_job_first"]))
    print(json.dumps({
        "rows": len(read), "every": len(every),
        "first_per_job": {k: sum(v) for k, v in first.items()},
        "declared_on": sum(1 for r in read if r["job_declared_rules"] is not None),
        "source_on": sum(1 for r in read if r["data_source"] is not None),
        "jobs": len(jobs),
        "same_jobs": sorted(jobs) == sorted(same) and all(jobs[k].job == same[k].job for k in jobs),
        "same_outcomes": all(
            sorted(jobs[k].outcomes, key=lambda o: o.rule_name) == sorted(same[k].outcomes, key=lambda o: o.rule_name)
            for k in jobs
        ),
        "same_cards": all(jobs[k].card == same[k].card and jobs[k].notification == same[k].notification for k in jobs),
        "declared": {k: list(j.job.declared_rules or ()) for k, j in jobs.items()},
    }))
"""


def test_the_read_query_reads_a_jobs_own_columns_once_and_the_jobs_are_the_same(reported):
    """Issue 32 item 4: results_of_invocation_sql gives a job's nested columns (declared rules, data source, scan,
    configuration, scores, notification) on one row of the job (dq_job_first), NULL on its others; the jobs read
    from it equal those read from every column of every row (`select *`, what the read query was), on each target."""
    import subprocess
    import sys

    tb, _, _ = reported
    invocation = tb.build.run_results["metadata"]["invocation_id"]
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _READ_BOTH,
            str(INTEGRATION_DIR),
            tb.target,
            str(tb.build.target_path / "manifest.json"),
            tb.schema,
            tb.relation("dataplex_dq_results"),
            invocation,
        ],
        env=tb.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    jobs = {row["dq_data_source"] for row in tb.metrics.values()}
    assert got["rows"] == got["every"] == len(EXPECTED)
    assert got["jobs"] == len(jobs) == len(got["first_per_job"])
    assert set(got["first_per_job"].values()) == {1}  # one row per job carries its columns
    assert got["declared_on"] == got["source_on"] == len(jobs)  # and no other row
    assert got["same_jobs"] and got["same_outcomes"] and got["same_cards"]
    for names in got["declared"].values():
        assert names and names == sorted(names) and set(names) <= set(EXPECTED)
