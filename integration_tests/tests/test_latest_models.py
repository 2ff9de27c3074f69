"""Issue 32 item 3: the "latest" result models read the latest results table (dataplex_dq_latest_results, kept
by the writer), never the history, and give the SAME rows as their definitions before (latest_before/: views
ranking the whole history); the retention setting deletes older jobs, never a rule's latest result.

On DuckDB, PostgreSQL and the BigQuery emulator, one project: an errored rule, skipped rules (a broken
model's tests), a scan with a suspended rule, two data sources; then a tie (a copy of a job with the same
start time and a greater job id) and another target written by hand (the table rebuilt with --full-refresh),
then the writer's own runs (a partial `--select` run, a build of one data source), the old and new models
compared after each step; last, a run with `dataplex_dq_retention_days`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import drop_target_schemas
from dbt_harness import DbtProject, target_env, write_project

BEFORE = Path(__file__).parents[1] / "latest_before"  # outside tests/: dbt would parse .sql there as data tests

SCHEMA = """\
version: 2
seeds:
  - name: items
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: qty-present, arguments: {dimension: COMPLETENESS, threshold: 0.5}}
          - dataplex_dq.range_expectation: {name: qty-range, arguments: {max_value: 5, dimension: VALIDITY}}
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: broken-expression
          arguments: {sql_expression: "no_such_column > 0", dimension: VALIDITY}
  - name: others
    data_tests:
      - dataplex_dq.data_quality_scan:
          arguments:
            rules:
              - {column: code, setExpectation: {values: [a, b]}, dimension: VALIDITY}
              - {column: code, uniquenessExpectation: {}, dimension: UNIQUENESS}
              - {tableConditionExpectation: {sqlExpression: "count(*) > 0"}}
              - {column: code, nonNullExpectation: {}, suspended: true}
models:
  - name: broken_model
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: downstream-present}
"""

PAIRS = [("dq_rule_results_latest", "old_rule_results_latest"), ("dq_latest_scores", "old_latest_scores")]


def _rows(project: DbtProject, model: str) -> list[tuple]:
    """A model's rows as a sorted list (every column, by name), comparable across models."""
    rows = project.query(f"select * from {project.relation(model)}")
    return sorted(tuple(sorted((k, repr(v)) for k, v in r.items())) for r in rows)


def _assert_same(project: DbtProject, step: str) -> None:
    for new, old in PAIRS:
        got, want = _rows(project, new), _rows(project, old)
        assert got == want, f"{step}: {new} differs from its definition before issue 32"
        assert got, f"{step}: {new} is empty"


def _invocation(project: DbtProject) -> str:
    return json.loads((project.target_path / "run_results.json").read_text())["metadata"]["invocation_id"]


def _copy_sql(project: DbtProject, invocation: str, node: str, overrides: dict[str, str]) -> str:
    """INSERT ... SELECT copying the rows of one job (invocation and node) with some columns replaced."""
    with project.db() as db:
        cols = db.columns(project.schema, "dataplex_dq_results")
    exprs = [overrides.get(c, c) for c in cols]
    rel = project.relation("dataplex_dq_results")
    return (
        f"insert into {rel} ({', '.join(cols)}) select {', '.join(exprs)} from {rel} "
        f"where dbt_invocation_id = '{invocation}' and dbt_node_unique_id = '{node}'"
    )


def _execute(project: DbtProject, *statements: str) -> None:
    """Statements written by hand (the harness's DuckDB connection is read-only)."""
    if project.warehouse == "duckdb":
        import duckdb

        con = duckdb.connect(project.env["DBT_DUCKDB_PATH"])
        try:
            for sql in statements:
                con.execute(sql)
        finally:
            con.close()
        return
    with project.db() as db:
        for sql in statements:
            db.execute(sql)


def _days_before(target: str, column: str, days: int) -> str:
    if target == "bigquery":
        return f"timestamp_sub({column}, interval {days} day)"
    return f"{column} - interval '{days} days'"


def _latest_jobs(project: DbtProject) -> dict[tuple[str, str, str], str]:
    rows = project.query(
        "select dbt_node_unique_id, dbt_target, rule_name, data_quality_job_id "
        f"from {project.relation('dq_rule_results_latest')}"
    )
    return {
        (r["dbt_node_unique_id"].rsplit(".", 1)[1], r["dbt_target"], r["rule_name"]): r["data_quality_job_id"]
        for r in rows
    }


@pytest.fixture(scope="module")
def history(dbt_target, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"latest_{dbt_target}")
    files = {
        "seeds/items.csv": "id,qty\n1,1\n2,\n3,9\n",
        "seeds/others.csv": "id,code\n1,a\n2,b\n3,b\n4,c\n",
        "models/broken_model.sql": "select qty from {{ ref('items') }} where no_such_column = 1\n",
        "models/schema.yml": SCHEMA,
        **{f"models/{p.name}": p.read_text() for p in BEFORE.glob("*.sql")},
    }
    project = write_project(
        tmp,
        "latest_models",
        files,
        env=target_env(dbt_target, tmp, "dq_latest"),
        target=None if dbt_target == "duckdb" else dbt_target,
    )
    steps: dict[str, object] = {}
    first = project.run("build")
    assert {n: s for n, s in first.statuses().items() if n in ("broken-expression", "downstream-present")} == {
        "broken-expression": "error",
        "downstream-present": "skipped",
    }, first.output[-3000:]
    steps["first"] = _invocation(project)
    yield project, steps
    drop_target_schemas(dbt_target, project.env)


def test_the_latest_models_read_no_history(history):
    """The compiled latest models read the latest results table, never the results table (on BigQuery: no
    partition of the history is scanned at all, whatever its size)."""
    project, _ = history
    compiled = project.target_path / "compiled" / "dataplex_dq" / "models"
    for model in ("dq_rule_results_latest", "dq_latest_scores"):
        sql = (compiled / f"{model}.sql").read_text()
        assert "dataplex_dq_latest_results" in sql, model
        assert "dataplex_dq_results`" not in sql and 'dataplex_dq_results"' not in sql, model
        assert "dq_rule_results" not in sql.replace("dq_rule_results_latest", ""), model


def test_the_same_rows_as_before_through_every_step(history, dbt_target):
    project, steps = history
    first = steps["first"]
    _assert_same(project, "after the first build")
    latest = _latest_jobs(project)
    assert latest[("items", dbt_target, "qty-present")] == latest[("items", dbt_target, "broken-expression")]
    assert ("broken_model", dbt_target, "downstream-present") in latest  # skipped: its latest result is SKIPPED

    # by hand: a tie (the same job, same start time, a greater job id) and the same job on another target;
    # rows written outside the writer reach the latest table with --full-refresh (it is rebuilt from the history)
    items = "seed.latest_models.items"
    _execute(
        project,
        _copy_sql(
            project,
            first,
            items,
            {"data_quality_job_id": "data_quality_job_id || '-tie'", "dbt_invocation_id": "'tie'"},
        ),
        _copy_sql(
            project,
            first,
            items,
            {"data_quality_job_id": "data_quality_job_id || '-ci'", "dbt_invocation_id": "'ci'", "dbt_target": "'ci'"},
        ),
    )
    refresh = project.run("build", "--select", "dataplex_dq_latest_results+", "--full-refresh")
    assert refresh.success, refresh.output[-3000:]
    _assert_same(project, "after the tie and the other target")
    latest = _latest_jobs(project)
    tie_job = latest[("items", dbt_target, "qty-present")]
    assert tie_job.endswith("-tie") and latest[("items", "ci", "qty-present")].endswith("-ci")

    # the writer: a partial run (one rule of items), then one data source; each rule keeps its own latest
    partial = project.run("test", "--select", "qty-range")
    assert partial.returncode in (0, 1), partial.output[-3000:]
    _assert_same(project, "after a partial run")
    latest = _latest_jobs(project)
    assert latest[("items", dbt_target, "qty-present")] == tie_job
    assert latest[("items", dbt_target, "qty-range")] not in (tie_job, tie_job[: -len("-tie")])
    others = project.run("build", "--select", "others")
    assert others.returncode in (0, 1), others.output[-3000:]
    _assert_same(project, "after a build of one data source")
    steps["others"] = _invocation(project)


def test_retention_deletes_old_jobs_but_never_a_latest_result(history, dbt_target):
    project, steps = history
    if "others" not in steps:
        pytest.skip("needs the history of test_the_same_rows_as_before_through_every_step")
    shifted = _days_before(dbt_target, "job_start_time", 400)
    # an old job of `others` that later jobs supersede, and an old job of `others` on a target nothing else
    # reports (its latest result is 400 days old)
    others, old = "seed.latest_models.others", {"dbt_invocation_id": "'old'", "job_start_time": shifted}
    _execute(
        project,
        _copy_sql(project, steps["others"], others, {**old, "data_quality_job_id": "'old-superseded'"}),
        _copy_sql(
            project, steps["others"], others, {**old, "data_quality_job_id": "'old-latest'", "dbt_target": "'legacy'"}
        ),
    )
    refresh = project.run("build", "--select", "dataplex_dq_latest_results+", "--full-refresh")
    assert refresh.success, refresh.output[-3000:]
    rel = project.relation("dataplex_dq_results")
    old_jobs = "where dbt_invocation_id = 'old' group by data_quality_job_id"
    count = f"select data_quality_job_id, count(*) as n from {rel} {old_jobs}"
    assert {r["data_quality_job_id"]: r["n"] for r in project.query(count)} == {"old-superseded": 4, "old-latest": 4}
    before = {r["dbt_invocation_id"] for r in project.query(f"select distinct dbt_invocation_id from {rel}")}

    run = project.run("test", "--select", "others", "--vars", "{dataplex_dq_retention_days: 30}")
    assert run.returncode in (0, 1), run.output[-3000:]
    assert {r["data_quality_job_id"]: r["n"] for r in project.query(count)} == {"old-latest": 4}
    after = {r["dbt_invocation_id"] for r in project.query(f"select distinct dbt_invocation_id from {rel}")}
    assert after == (before - {"old"}) | {"old", _invocation(project)}  # nothing recent was deleted
    _assert_same(project, "after retention")
    legacy = {k: v for k, v in _latest_jobs(project).items() if k[1] == "legacy"}
    assert len(legacy) == 4 and set(legacy.values()) == {"old-latest"}  # 400 days old, still the latest


def test_a_bad_retention_setting_is_one_line(history):
    project, _ = history
    run = project.run("test", "--select", "others", "--vars", "{dataplex_dq_retention_days: 'a week'}", check=False)
    assert run.returncode != 0
    assert "var dataplex_dq_retention_days must be a whole number of days, not a week" in run.output
