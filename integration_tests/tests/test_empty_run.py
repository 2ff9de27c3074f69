"""`dbt build --empty` reads every relation with `limit 0`: a check of the SQL, not of the data. It must
record nothing (results table, anomaly history) and the report must say there is nothing to report."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dbt_harness import DbtProject, DbtResult, run_dataplex_dq, write_project

SCHEMA = """\
seeds:
  - name: events
    config:
      meta:
        dataplex_dq:
          anomaly_detection: {volume: {}, min_training_buckets: 3}
    columns:
      - name: id
        data_tests:
          - dataplex_dq.non_null_expectation: {name: id-present}
    data_tests:
      - dataplex_dq.anomaly_detection
      - dataplex_dq.table_condition_expectation:
          name: enough-events
          arguments: {sql_expression: "count(*) >= 2"}
"""


@dataclass
class EmptyRun:
    project: DbtProject
    before: dict[str, int]
    empty: DbtResult


def _counts(project: DbtProject) -> dict[str, int]:
    return {
        table: project.query(f"select count(*) as n from main.{table}")[0]["n"]
        for table in ("dataplex_dq_results", "dataplex_dq_anomaly_volume", "dataplex_dq_anomaly_results")
    }


@pytest.fixture(scope="module")
def empty_run(tmp_path_factory) -> EmptyRun:
    tmp = tmp_path_factory.mktemp("empty_run")
    project = write_project(
        tmp,
        "empty_run",
        {"seeds/events.csv": "id\n1\n2\n3\n", "models/schema.yml": SCHEMA},
        env={"DBT_DUCKDB_PATH": str(tmp / "empty.duckdb")},
        project_config='on-run-end: "{{ dataplex_dq.on_run_end(results) }}"\n',
    )
    first = project.run("build")
    assert first.returncode == 0, first.output[-3000:]
    before = _counts(project)
    empty = project.run("build", "--empty")
    return EmptyRun(project, before, empty)


def test_a_real_build_records(empty_run):
    # 3 rules (2 declared, 1 volume check) and one volume measurement: what --empty must not add to
    assert empty_run.before == {
        "dataplex_dq_results": 3,
        "dataplex_dq_anomaly_volume": 1,
        "dataplex_dq_anomaly_results": 1,
    }


def test_dbt_build_empty_records_nothing(empty_run):
    assert "dataplex_dq: an --empty run reads no rows: nothing written to the results table" in empty_run.empty.output
    assert _counts(empty_run.project) == empty_run.before


def test_report_after_an_empty_build_says_why_not(empty_run):
    res = empty_run.project.report()
    out = res.stdout + res.stderr
    assert res.returncode == 2, out
    assert "Traceback" not in out
    assert "was written by `dbt build --empty`, which reads no rows" in out
    assert _counts(empty_run.project) == empty_run.before


def test_dataplex_dq_build_empty_checks_the_sql_and_reports_nothing(empty_run):
    project = empty_run.project
    res = run_dataplex_dq(
        "build",
        "--empty",
        "--project-dir",
        str(project.project_dir),
        "--profiles-dir",
        str(project.profiles_dir),
        "--target-path",
        str(project.target_path),
        env=project.env,
        cwd=project.project_dir,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "dbt build --empty read no rows: nothing to report or export; every model's and rule's SQL ran." in out
    assert _counts(project) == empty_run.before
