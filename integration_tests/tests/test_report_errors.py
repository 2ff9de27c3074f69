"""The post-hook's error paths: errored and skipped rules, stale artifacts, a failing export, and
`dataplex-dq build` exit codes. Each case gives a clear message, still writes the result files, and
a rerun leaves no duplicates."""

from __future__ import annotations

import json
import shutil
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb
import pytest

from dbt_harness import INTEGRATION_DIR, DbtProject, DbtResult, run_dataplex_dq, write_project

SCHEMA = """\
version: 2
seeds:
  - name: items
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: qty-present, arguments: {dimension: COMPLETENESS}}
          - dataplex_dq.range_expectation: {name: qty-small, arguments: {max_value: 5, dimension: VALIDITY}}
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: broken-expression
          arguments: {sql_expression: "no_such_column > 0", dimension: VALIDITY}
models:
  - name: broken_model
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: downstream-present}
"""


@dataclass
class Built:
    """The project after its `dbt build` (one errored, one skipped test), and its DuckDB file."""

    project: DbtProject
    build: DbtResult
    db: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    tmp = tmp_path_factory.mktemp("report_errors")
    db = tmp / "errors.duckdb"
    project = write_project(
        tmp,
        "report_errors",
        {
            "seeds/items.csv": "id,qty\n1,1\n2,\n3,9\n",
            "models/broken_model.sql": "select qty from {{ ref('items') }} where no_such_column = 1\n",
            "models/schema.yml": SCHEMA,
        },
        env={"DBT_DUCKDB_PATH": str(db)},
        project_config="seeds:\n  report_errors:\n    +column_types: {id: integer, qty: integer}\n",
    )
    return Built(project, project.run("build"), db)


def _report(p: DbtProject, target_path: Path | None = None):
    if target_path is None:
        return p.report()
    return replace(p, target_path=target_path).report()


def _rows(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "select rule_name, rule_status, rule_message, rule_passed, job_quality_result.score"
            " from main.dataplex_dq_results order by rule_name"
        ).fetchall()
    finally:
        con.close()


def test_errored_and_skipped_rules_are_reported_not_scored(built):
    p, db = built.project, built.db
    assert built.build.statuses("report_errors") == {
        "items": "success",
        "broken_model": "skipped",  # downstream of failing tests
        "qty-present": "fail",
        "qty-small": "fail",
        "broken-expression": "error",
        "downstream-present": "skipped",
    }
    assert "no_such_column" in (built.build.nodes["broken-expression"].message or "")
    first = _report(p)
    out = first.stdout
    assert first.returncode == 2, out  # a rule errored: the job has errors
    assert "error:" in out and "broken-expression" in out and "no_such_column" in out
    # a skipped rule says why (dbt leaves no message on a skipped test: the report gives the reason)
    skipped_line = next(line for line in out.splitlines() if line.startswith("skipped:"))
    assert "rule 'downstream-present': dbt skipped this test (a model or seed it depends on failed" in skipped_line
    result = json.loads((p.target_path / "dataplex_dq" / "seed.report_errors.items.json").read_text())
    # qty-present fails (1 NULL of 3), qty-small fails (9 > 5): 0 of 2 evaluated rules passed
    assert [r["rule"]["name"] for r in result["rules"]] == ["qty-present", "qty-small"]
    assert result.get("score", 0.0) == 0.0 and "passed" not in result
    rows = _rows(db)
    by_name = {r[0]: r for r in rows}
    assert by_name["broken-expression"][1] == "ERROR" and "no_such_column" in by_name["broken-expression"][2]
    assert by_name["broken-expression"][3] is None
    assert by_name["downstream-present"][1] == "SKIPPED"
    assert by_name["qty-present"][1:4] == ("FAILED", None, False)
    assert by_name["qty-present"][4] == 0.0
    # again: the rows of the invocation read again, never a second copy
    second = _report(p)
    assert second.returncode == 2
    assert len(_rows(db)) == len(rows) == 4


def test_stale_run_results_are_refused(built, tmp_path):
    p = built.project
    stale = tmp_path / "target"
    shutil.copytree(p.target_path, stale)
    rr = json.loads((stale / "run_results.json").read_text())
    rr["metadata"]["invocation_id"] = str(uuid.uuid4())
    (stale / "run_results.json").write_text(json.dumps(rr))
    res = _report(p, stale)
    assert res.returncode == 2
    assert "comes from dbt invocation" in res.stdout and "Run `dbt build` again" in res.stdout


def test_artifacts_of_an_older_package_say_so(built, tmp_path):
    """manifest.json from before the installed package gained a macro the report calls (a package upgrade since the
    run; the demo's target/ of this morning): one line naming the macro and what to do, not dbt's "could not find a
    macro"; the other outputs still run."""
    p = built.project
    older = tmp_path / "target"
    shutil.copytree(p.target_path, older)
    manifest = json.loads((older / "manifest.json").read_text())
    del manifest["macros"]["macro.dataplex_dq.alert_settings"]
    (older / "manifest.json").write_text(json.dumps(manifest))
    res = _report(p, older)
    assert res.returncode == 2
    assert (
        f"output failed: alerts: {older / 'manifest.json'} has no macro dataplex_dq.alert_settings: it was written "
        "by an older dataplex_dq package than the one installed. Run dbt again with this package (e.g. `dbt build`), "
        "then dataplex-dq again"
    ) in " ".join(res.stdout.split())
    assert "could not find a macro" not in res.stdout
    assert (older / "dataplex_dq" / "seed.report_errors.items.json").exists()


def test_missing_artifacts_are_explained(built, tmp_path):
    p = built.project
    res = _report(p, tmp_path / "nowhere")
    assert res.returncode == 2
    assert res.stdout == (
        f"dataplex-dq report failed: {tmp_path / 'nowhere' / 'manifest.json'} not found: run `dbt build` (or"
        " `dbt test`) first, or point --target-path at the folder holding manifest.json\n"
    )


def test_an_unreadable_results_table_touches_nothing_and_rerun_completes(built):
    """The results table replaced by something else: the report says so in one line (exit 2) and leaves the
    previous result files as they were; once the table is gone, the report records the run again through the
    package's writer and completes."""
    p, db = built.project, built.db
    _report(p)
    out_file = p.target_path / "dataplex_dq" / "seed.report_errors.items.json"
    kept = out_file.read_text()
    con = duckdb.connect(str(db))
    con.execute("drop table if exists main.dataplex_dq_results")
    con.execute("create view main.dataplex_dq_results as select 1 as x")
    con.close()
    res = _report(p)
    assert res.returncode == 2
    assert "dataplex-dq report failed: cannot read the results table" in res.stdout, res.stdout
    assert "dataplex_dq_results" in res.stdout
    assert "Traceback" not in res.stdout + res.stderr
    assert out_file.read_text() == kept
    con = duckdb.connect(str(db))
    con.execute("drop view main.dataplex_dq_results")
    con.close()
    again = _report(p)
    assert again.returncode == 2  # still the errored rule, but the run was recorded again
    assert "Read 4 recorded rows" in again.stdout
    assert len(_rows(db)) == 4


def test_build_command_runs_dbt_then_the_report(tmp_path):
    schema = """\
        version: 2
        seeds:
          - name: items
            columns:
              - name: qty
                data_tests:
                  - dataplex_dq.range_expectation: {name: qty-small, arguments: {max_value: 5, threshold: 0.6}}
                  - dataplex_dq.range_expectation: {name: qty-tiny, arguments: {max_value: 1}}
        """
    env = {"DBT_DUCKDB_PATH": str(tmp_path / "b.duckdb")}
    p = write_project(
        tmp_path, "build_cmd", {"seeds/items.csv": "id,qty\n1,1\n2,2\n3,9\n", "models/schema.yml": schema}, env=env
    )
    proj = p.project_dir
    common = ["--project-dir", str(proj), "--profiles-dir", str(INTEGRATION_DIR)]
    res = run_dataplex_dq("build", *common, env=env, cwd=proj)
    assert res.returncode == 1, res.stdout + res.stderr  # qty-tiny failed
    assert "50.00" in res.stdout  # 1 of 2 rules passed
    res = run_dataplex_dq("build", "--no-fail-on-rule-failure", *common, env=env, cwd=proj)
    assert res.returncode == 0, res.stdout + res.stderr
    con = duckdb.connect(str(tmp_path / "b.duckdb"), read_only=True)
    try:
        # two invocations, two jobs, two rules each
        assert con.execute(
            "select count(*), count(distinct data_quality_job_id) from main.dataplex_dq_results"
        ).fetchone() == (4, 2)
    finally:
        con.close()
