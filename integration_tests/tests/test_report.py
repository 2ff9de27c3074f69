"""`dataplex-dq report` end to end on the DuckDB integration project: protos, scores, results table."""

from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import duckdb
import pytest
import yaml

from dataplex_dq.assemble import result_from_bytes, result_from_json
from dataplex_dq.export import job_id
from dbt_harness import INTEGRATION_DIR, run_dataplex_dq

EXPECTED: dict = yaml.safe_load((INTEGRATION_DIR / "expected_metrics.yml").read_text())

EXPORT_COLUMNS = [
    "data_quality_scan", "data_source", "data_quality_job_id", "data_quality_job_configuration", "job_labels",
    "job_start_time", "job_end_time", "job_quality_result", "job_dimension_result", "job_rows_scanned",
    "rule_name", "rule_description", "rule_type", "rule_evaluation_type", "rule_column", "rule_dimension",
    "rule_threshold_percent", "rule_parameters", "rule_passed", "rule_rows_evaluated", "rule_rows_passed",
    "rule_rows_passed_percent", "rule_rows_null", "rule_failed_records_query", "created_on", "last_updated",
    "rule_assertion_row_count", "debug_queries",
    "rule_suspended", "rule_attributes", "rule_status", "rule_message", "rule_statistic_value",
    "job_row_weighted_score", "dbt_invocation_id", "dbt_test_unique_id", "dbt_node_unique_id",
]


def _score(passed: int, total: int) -> float | None:
    if total == 0:
        return None
    return float((Decimal(passed) * 100 / Decimal(total)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


@pytest.fixture(scope="module")
def reported(duckdb_build):
    build, metrics, db = duckdb_build
    args = ["report", "--project-dir", str(INTEGRATION_DIR), "--profiles-dir", str(INTEGRATION_DIR), "--target-path", str(build.target_path)]
    env = {"DBT_DUCKDB_PATH": str(db)}
    first = run_dataplex_dq(*args, env=env)
    second = run_dataplex_dq(*args, env=env)
    return build, metrics, db, first, second


def _sources(build, metrics):
    by_source = defaultdict(list)
    for name, row in metrics.items():
        by_source[row["dq_data_source"]].append(name)
    return by_source


def test_report_exit_code_and_summary(reported):
    _, _, _, first, second = reported
    any_failed = any(e["status"] == "FAILED" for e in EXPECTED.values())
    assert first.returncode == (1 if any_failed else 0), first.stdout + first.stderr
    assert second.returncode == first.returncode
    assert "Dataplex data quality" in first.stdout
    assert "Exported" in first.stdout


def test_result_files_parse_and_match_the_expectations(reported):
    build, metrics, _, _, _ = reported
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
    build, metrics, db, _, _ = reported
    con = duckdb.connect(str(db), read_only=True)
    try:
        cols = [r[0] for r in con.execute("describe main.dataplex_dq_results").fetchall()]
        assert cols == EXPORT_COLUMNS
        rows = con.execute("select * from main.dataplex_dq_results").fetchall()
        rows = [dict(zip(cols, r)) for r in rows]
    finally:
        con.close()
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
            assert row["rule_rows_passed_percent"] == pytest.approx(100 * float(Fraction(str(exp["pass_ratio"]))), abs=1e-9)
            assert row["rule_evaluation_type"] == "Per row"
            threshold = metrics[name]["rule_threshold"]
            assert row["rule_threshold_percent"] == pytest.approx(threshold * 100)
        if exp.get("assertion_row_count") is not None:
            assert row["rule_assertion_row_count"] == exp["assertion_row_count"]
            assert row["rule_type"] == "SQL assertion"
            assert row["rule_evaluation_type"] == "Aggregate"
        assert row["job_quality_result"]["score"] == pytest.approx(
            _score(
                sum(1 for n, m in metrics.items() if m["dq_data_source"] == row["dbt_node_unique_id"] and EXPECTED[n]["status"] == "PASSED"),
                sum(1 for n, m in metrics.items() if m["dq_data_source"] == row["dbt_node_unique_id"] and EXPECTED[n]["status"] in ("PASSED", "FAILED")),
            ) or 0.0
        ) if row["job_quality_result"]["score"] is not None else True
