"""The results table's one writer, the package's own on-run-end hook: `dbt build` alone writes every row
(debug query results included), `dataplex-dq report` reads them and leaves them as they are, and the result
models read them.

On every target, the integration project is built once (conftest snapshots what the hook wrote before any
report); on DuckDB a small project adds errored, skipped and scan rules, `--select` and `dbt retry` runs
(docs/SEMANTICS.md §8, partial runs) and the batched (staging table) path."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
import yaml

from dbt_harness import Db, DbtProject, rendered, run_dataplex_dq, write_project
from test_report import EXPECTED, _score, reported  # noqa: F401  (reported: the shared report fixture)


def _by_rule(rows: list[dict]) -> dict[tuple[str, str], dict]:
    return {(r["dbt_node_unique_id"], r["rule_name"]): r for r in rows}


def test_the_report_reads_the_rows_the_build_wrote(reported):  # noqa: F811
    """What the hook wrote during `dbt build` is what the results table holds after `dataplex-dq report`:
    every row and column as it was (the report writes nothing but a notification outcome, and this project
    has no notification), the failing rules' debug query results included (the writer's last step)."""
    tb, _, _ = reported
    hook_rows = tb.extra["hook_rows"]
    assert len(hook_rows) == len(EXPECTED), "dbt build alone did not fill the results table"
    with tb.db() as db:
        report_rows = db.query(f"select * from {tb.relation('dataplex_dq_results')}")
    assert _by_rule(report_rows) == _by_rule(hook_rows)
    by_rule = {r["rule_name"]: r for r in hook_rows}
    queries = by_rule["qty-range-strict-both"]["debug_queries"]
    queries = json.loads(queries) if isinstance(queries, str) else queries
    assert queries and all(q["debug_query_results"] for q in queries), queries


def test_build_alone_fills_the_result_models(target_build):
    """dq_job_scores as `dbt build` left it (before any report): Dataplex's score per data source."""
    tb = target_build
    jobs = {r["dbt_node_unique_id"]: r for r in tb.extra["hook_job_scores"]}
    by_source = defaultdict(list)
    for name, row in tb.metrics.items():
        by_source[row["dq_data_source"]].append(name)
    assert sorted(jobs) == sorted(by_source)
    for source, names in by_source.items():
        evaluated = [n for n in names if EXPECTED[n]["status"] in ("PASSED", "FAILED")]
        passed = [n for n in evaluated if EXPECTED[n]["status"] == "PASSED"]
        job = jobs[source]
        assert job["rules_total"] == len(names), source
        assert job["rules_evaluated"] == len(evaluated), source
        expected = _score(len(passed), len(evaluated))
        assert (job["score"] is None) if expected is None else job["score"] == pytest.approx(expected, abs=1e-9), source
        assert job["passed"] is (len(passed) == len(evaluated)), source


def test_scores_of_the_result_models_equal_the_report_protos(reported):  # noqa: F811
    """One definition of each score, in SQL: the job, dimension and column scores the result models give over
    what `dbt build` alone wrote equal the scores of the DataQualityResult protos `dataplex-dq report` writes
    (read from the same rows: the job's and dimensions' as recorded, the columns' by column_scores_sql)."""
    from dataplex_dq.run.assemble import result_from_json

    tb, _, _ = reported
    jobs = {r["dbt_node_unique_id"]: r for r in tb.extra["hook_job_scores"]}
    dims, cols = defaultdict(dict), defaultdict(dict)
    for r in tb.extra["hook_dimension_scores"]:
        dims[r["dbt_node_unique_id"]][r["dimension"]] = (r["score"], r["passed"])
    for r in tb.extra["hook_column_scores"]:
        cols[r["dbt_node_unique_id"]][r["column_name"]] = r["score"]
    checked = 0
    for source, job in jobs.items():
        proto = result_from_json((tb.build.target_path / "dataplex_dq" / f"{source}.json").read_text())
        if proto.HasField("score"):
            assert job["score"] == pytest.approx(proto.score, abs=1e-4), source
        else:
            assert job["score"] is None, source
        assert bool(job["passed"]) is proto.passed, source
        got_dims = {d: s for d, (s, _) in dims[source].items() if s is not None}
        assert got_dims == pytest.approx({d.dimension.name: d.score for d in proto.dimensions}, abs=1e-4), source
        assert {d: p for d, (s, p) in dims[source].items() if s is not None} == {
            d.dimension.name: d.passed for d in proto.dimensions
        }, source
        got_cols = {c: s for c, s in cols[source].items() if s is not None}
        assert got_cols == pytest.approx({c.column: c.score for c in proto.columns}, abs=1e-4), source
        checked += len(got_dims) + len(got_cols) + 1
    assert checked > len(jobs)  # dimensions and columns were compared, not only jobs


# ---------------------------------------------------------------- errored, skipped, scan, partial runs

SCHEMA = """\
version: 2
seeds:
  - name: items
    config:
      meta:
        dataplex_dq: {row_filter: "id <> 99"}
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: qty-present, arguments: {dimension: COMPLETENESS, threshold: 0.5}}
          - dataplex_dq.range_expectation:
              arguments: {max_value: 5, dimension: VALIDITY, attributes: {owner: shop, tier: 2, pii: true}}
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: broken-expression
          description: errors in the warehouse
          arguments: {sql_expression: "no_such_column > 0", dimension: VALIDITY, attributes: {tier: 1}}
  - name: others
    data_tests:
      - dataplex_dq.data_quality_scan:
          arguments:
            samplingPercent: 100
            rules:
              - column: code
                setExpectation: {values: [a, b]}
                dimension: VALIDITY
                debugQueries: [{description: how many, sqlStatement: "select count(*) as n from ${data()}"}]
              - column: code
                uniquenessExpectation: {}
                dimension: UNIQUENESS
              - tableConditionExpectation: {sqlExpression: "count(*) > 0"}
              - column: code
                nonNullExpectation: {}
                suspended: true
models:
  - name: broken_model
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: downstream-present}
          - dataplex_dq.data_quality_scan:
              arguments:
                rules:
                  - {column: qty, rangeExpectation: {minValue: "0"}, name: downstream-range}
"""


def _rows(p: DbtProject, invocation: str | None = None) -> list[dict]:
    with Db("duckdb", p.env) as db:
        where = f" where dbt_invocation_id = '{invocation}'" if invocation else ""
        return db.query(f"select * from main.dataplex_dq_results{where}")


def _report(p: DbtProject):
    return run_dataplex_dq(
        "report",
        "--project-dir",
        str(p.project_dir),
        "--profiles-dir",
        str(p.profiles_dir),
        "--target-path",
        str(p.target_path),
        env=p.env,
    )


def _compare(hook_rows: list[dict], report_rows: list[dict]) -> None:
    """The report left the rows the hook wrote as they were."""
    assert _by_rule(report_rows) == _by_rule(hook_rows)


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hook_partial")
    return write_project(
        tmp,
        "hook_partial",
        {
            "seeds/items.csv": "id,qty\n1,1\n2,\n3,9\n99,\n",
            "seeds/others.csv": "id,code\n1,a\n2,b\n3,b\n4,c\n",
            "models/broken_model.sql": "select qty from {{ ref('items') }} where no_such_column = 1\n",
            "models/schema.yml": SCHEMA,
        },
        env={"DBT_DUCKDB_PATH": str(tmp / "partial.duckdb")},
        project_config="""\
        seeds:
          hook_partial:
            +column_types: {id: integer, qty: integer, code: varchar}
        """,
    )


def _invocation(p: DbtProject) -> str:
    return json.loads((p.target_path / "run_results.json").read_text())["metadata"]["invocation_id"]


def test_errored_skipped_and_scan_rules_are_recorded_once(partial):
    p = partial
    build = p.run("build")
    statuses = {r["unique_id"].split(".")[2]: r["status"] for r in build.run_results["results"]}
    assert statuses["broken-expression"] == "error" and statuses["downstream-present"] == "skipped"
    assert build.returncode == 1, build.output[-3000:]  # the build's own outcome: failing rules
    invocation = _invocation(p)
    hook_rows = _rows(p, invocation)
    by_rule = {r["rule_name"]: r for r in hook_rows}
    # 3 item rules, 4 scan rules, 2 skipped downstream rules (one per-rule test, one scan rule)
    assert len(hook_rows) == 9, sorted(by_rule)
    assert (
        by_rule["broken-expression"]["rule_status"] == "ERROR"
        and "no_such_column" in by_rule["broken-expression"]["rule_message"]
    )
    assert by_rule["downstream-present"]["rule_status"] == "SKIPPED"
    assert by_rule["downstream-range"]["rule_status"] == "SKIPPED"
    assert by_rule["non-null-code-3"]["rule_status"] == "SUSPENDED"
    report = _report(p)
    assert report.returncode == 2, report.stdout + report.stderr
    _compare(hook_rows, _rows(p, invocation))
    assert len(_rows(p)) == 9  # one copy


def test_select_and_retry_runs_are_partial_jobs(partial):
    """docs/SEMANTICS.md §8: a run of some rules makes a job covering those rules only; the data source's earlier
    job keeps its rows."""
    p = partial
    if not (p.target_path / "run_results.json").exists():
        p.run("build")
    before = _rows(p)
    selected = p.run("build", "--select", "others")
    invocation = _invocation(p)
    hook_rows = _rows(p, invocation)
    assert sorted(r["rule_name"] for r in hook_rows) == [
        "non-null-code-3",
        "set-code-0",
        "table-condition-2",
        "uniqueness-code-1",
    ]
    assert selected.returncode == 1
    assert len(_rows(p)) == len(before) + 4
    _report(p)
    _compare(hook_rows, _rows(p, invocation))

    retry = p.run("retry")
    retried = {r["unique_id"] for r in retry.run_results["results"] if r["unique_id"].startswith("test.")}
    invocation = _invocation(p)
    hook_rows = _rows(p, invocation)
    assert retried and {r["dbt_test_unique_id"] for r in hook_rows} == retried
    _report(p)
    _compare(hook_rows, _rows(p, invocation))


def test_batched_statements_through_a_staging_table(partial):
    """More relations than one statement may read: the hook stages them in batches, same rows."""
    p = partial
    p.run("build", "--vars", yaml.safe_dump({"dataplex_dq_hook_max_relations": 1, "dataplex_dq_hook_max_chars": 2000}))
    invocation = _invocation(p)
    hook_rows = _rows(p, invocation)
    assert len(hook_rows) == 9
    log = (p.target_path / "logs" / "dbt.log").read_text()
    wrote = [line for line in log.splitlines() if "dataplex_dq: wrote the results of" in line][-1]
    assert "of 6 test(s) of 3 data source(s)" in wrote and int(wrote.rsplit(" in ", 1)[1].split()[0]) >= 3, wrote
    _report(p)
    _compare(hook_rows, _rows(p, invocation))
    with Db("duckdb", p.env) as db:
        leftovers = db.query("select table_name from information_schema.tables where table_name like '%__hook_%'")
    assert leftovers == []


def test_report_from_the_results_table_without_artifacts(partial, tmp_path):
    """A separate job after `dbt build` (artifacts gone): `dataplex-dq report --from-results-table
    --latest` writes the same protos from the rows alone, leaves the rows (debug query results included) as
    they were, and runs no SQL taken from the table."""
    from dataplex_dq.run.assemble import result_from_json

    p = partial
    # a whole build of its own: the tests of this module may run in any order on any worker (pytest-xdist), and
    # `--latest` must find this invocation, not a partial run or a retry another test left last
    p.run("build")
    invocation = _invocation(p)
    _report(p)  # the artifact-based report, for comparison
    by_artifacts = {f.name: result_from_json(f.read_text()) for f in (p.target_path / "dataplex_dq").glob("*.json")}
    artifact_rows = _rows(p, invocation)
    empty = tmp_path / "no_artifacts"
    res = run_dataplex_dq(
        "report",
        "--from-results-table",
        "--latest",
        "--project-dir",
        str(p.project_dir),
        "--profiles-dir",
        str(p.profiles_dir),
        "--target-path",
        str(empty),
        env=p.env,
    )
    assert res.returncode == 2, res.stdout + res.stderr  # a rule errored, as in the artifact-based report
    assert "broken-expression" in res.stdout
    rows = _rows(p, invocation)
    assert _by_rule(rows) == _by_rule(artifact_rows)
    queries = {r["rule_name"]: r["debug_queries"] for r in rows}["set-code-0"]
    assert [[(v["name"], v["value"]) for v in q["debug_query_results"]] for q in queries] == [[("n", "4")]]
    rebuilt = {f.name: result_from_json(f.read_text()) for f in (empty / "dataplex_dq").glob("*.json")}
    assert sorted(rebuilt) == sorted(by_artifacts)
    for name, want in by_artifacts.items():
        got = rebuilt[name]
        assert (got.score, got.passed, got.row_count) == (want.score, want.passed, want.row_count), name
        assert [(d.dimension.name, d.score, d.passed) for d in got.dimensions] == [
            (d.dimension.name, d.score, d.passed) for d in want.dimensions
        ]
        assert [(c.column, c.score) for c in got.columns] == [(c.column, c.score) for c in want.columns]
        assert sorted(
            (r.rule.name, r.passed, r.evaluated_count, r.passed_count, r.null_count, r.pass_ratio, r.failing_rows_query)
            for r in got.rules
        ) == sorted(
            (r.rule.name, r.passed, r.evaluated_count, r.passed_count, r.null_count, r.pass_ratio, r.failing_rows_query)
            for r in want.rules
        ), name
        assert sorted(
            [(x.name, x.value) for s in r.debug_queries_result_sets for x in s.results] for r in got.rules
        ) == sorted([(x.name, x.value) for s in r.debug_queries_result_sets for x in s.results] for r in want.rules)


def test_duckdb_read_settings_are_set_back_exactly(tmp_path_factory, tmp_path):
    """The hook reads hundreds of relations on one DuckDB thread with the optimizer passes off, then gives
    the connection back as it found it: the thread count it had (3 here, not DuckDB's default) and no
    disabled optimizer."""
    from conftest import _build_integration_project, require_target

    require_target("duckdb")
    tb = _build_integration_project("duckdb", tmp_path_factory)
    p = tb.project
    ops = DbtProject(p.project_dir, p.profiles_dir, tmp_path / "target", p.env, p.target)
    res = ops.run("run-operation", "probe_read_many_settings", "--args", "{threads: 3}", "--log-format", "json")
    settings = rendered(res.output)
    assert settings is not None, res.output[-3000:]
    assert settings["inside"][0] == "1" and "filter_pushdown" in settings["inside"][1], settings
    assert settings["after"] == ["3", ""], settings


def _duckdb_execute(p: DbtProject, *statements: str) -> None:
    """Statements on the project's DuckDB file (the harness's Db opens it read-only)."""
    import duckdb

    con = duckdb.connect(p.env["DBT_DUCKDB_PATH"])
    try:
        for sql in statements:
            con.execute(sql)
    finally:
        con.close()


def test_the_hook_creates_a_missing_results_table_and_refuses_an_old_one(partial):
    """`dbt test` without the package model built: the hook creates the results table and writes its rows.
    A results table of an older layout (lacking the hook's columns): the hook names what it cannot write
    and how to fix it, in one line, and writes nothing."""
    p = partial
    p.run("build", check=False)  # the seeds and models the tests read (its tests fail by design)
    _duckdb_execute(p, "drop table if exists main.dataplex_dq_results")
    res = p.run("test", check=False)
    invocation = _invocation(p)
    with Db("duckdb", p.env) as db:
        written = db.query(
            f"select count(*) as n from main.dataplex_dq_results where dbt_invocation_id = '{invocation}'"
        )
    assert written == [{"n": 9}], res.output[-3000:]

    _duckdb_execute(
        p,
        "drop table main.dataplex_dq_results",
        "create table main.dataplex_dq_results (data_quality_job_id varchar, rule_name varchar)",
    )
    res = p.run("test", check=False)
    assert res.returncode == 2, res.output[-3000:]
    line = next(x for x in res.output.splitlines() if "cannot write the results" in x)
    assert "it lacks the column(s) data_quality_scan, data_source" in line, line
    assert "dbt build --select dataplex_dq_results" in line, line
    with Db("duckdb", p.env) as db:
        assert db.query("select count(*) as n from main.dataplex_dq_results") == [{"n": 0}]
    _duckdb_execute(p, "drop table main.dataplex_dq_results")
