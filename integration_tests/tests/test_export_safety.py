"""The copy of a job's rows into another results table (post_scan_actions.bigquery_export.results_table: the
package's macro copy_results, run by export_worker.py as the report runs it) on every target (issue 9, D; issue
29): results_table parsed and quoted per part (injection payloads refused, odd but valid names work), an INSERT
that names its columns, a results table lacking columns refused with the difference, and concurrent copies of
one job that leave each rule once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dbt_harness import INTEGRATION_DIR, REPO_ROOT, Db, render_results_sql
from expected_schema import RESULTS_SCHEMA

WORKER = Path(__file__).with_name("export_worker.py")
PAYLOADS = {
    "duckdb": 'x" (a int); drop table {schema}.dq_numbers; create table "z',
    "postgres": 'x" (a int); drop table {schema}.dq_numbers; create table "z',
    "bigquery": "x` (a int64); drop table {schema}.dq_numbers; create table `z",
}


def _worker(tb, exports, env=None, background=False):
    args = {
        "project_dir": str(INTEGRATION_DIR),
        "profiles_dir": str(INTEGRATION_DIR),
        "target": tb.target,
        "manifest": str(tb.build.target_path / "manifest.json"),
        "exports": exports,
    }
    full_env = {**os.environ, **tb.env, **(env or {}), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT / "python"), full_env.get("PYTHONPATH", "")) if p
    )
    cmd = [sys.executable, str(WORKER), json.dumps(args)]
    if background:
        return subprocess.Popen(
            cmd, env=full_env, cwd=INTEGRATION_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    proc = subprocess.run(cmd, env=full_env, cwd=INTEGRATION_DIR, capture_output=True, text=True, check=False)
    return _lines(proc.stdout, proc.stderr, proc.returncode)


def _lines(stdout: str, stderr: str, code: int) -> list[dict]:
    out = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    assert code == 0 and out, stdout + stderr[-3000:]
    return out


def _create_like_results(tb, identifier: str, columns: list[str]) -> None:
    sql = (
        f"create table {tb.relation(identifier)} as select {', '.join(columns)} "
        f"from {tb.relation('dataplex_dq_results')} where 1 = 0"
    )
    if tb.target == "duckdb":  # the harness reads DuckDB read-only
        import duckdb

        con = duckdb.connect(tb.env["DBT_DUCKDB_PATH"])
        try:
            con.execute(sql)
        finally:
            con.close()
        return
    with tb.db() as db:
        db.execute(sql)


def test_results_table_is_parsed_validated_and_quoted(target_build):
    tb = target_build
    with tb.db() as db:
        before = db.query(f"select count(*) as n from {tb.relation('dq_numbers')}")[0]["n"]
    payload = PAYLOADS[tb.target].format(schema=tb.schema)
    # a name that needs quoting; `$` and spaces verified on DuckDB only (BigQuery table names refuse `$`)
    odd = "dq odd-name$1" if tb.target == "duckdb" else "dq_extra_results"
    if tb.target == "bigquery":
        # the emulator refuses the results table's `PARTITION BY DATE(job_start_time)`, so the export
        # cannot create it there: create it (unpartitioned, same columns) and export into it
        _create_like_results(tb, odd, [n for n, _ in RESULTS_SCHEMA])
    out = _worker(
        tb,
        [
            {"table": payload, "job_id": "job-payload", "rules": ["a"]},
            {"table": f"{tb.schema}.{odd}", "job_id": "job-odd", "rules": ["a", "b"]},
        ],
    )
    assert "error" in out[0] and "a name may only contain letters, digits" in out[0]["error"], out
    assert out[1].get("ok") is True, out
    with tb.db() as db:
        assert (
            db.query(f"select count(*) as n from {tb.relation('dq_numbers')}")[0]["n"] == before
        )  # the seed is intact
        rows = db.query(f"select rule_name, rule_rows_evaluated from {tb.relation(odd)} order by rule_name")
    assert [(r["rule_name"], r["rule_rows_evaluated"]) for r in rows] == [("a", 7), ("b", 7)]


def test_insert_names_its_columns_and_other_schemas_are_refused(target_build):
    tb = target_build
    names = [n for n, _ in RESULTS_SCHEMA]
    swapped = list(names)
    i, j = names.index("rule_name"), names.index("rule_status")
    swapped[i], swapped[j] = swapped[j], swapped[i]
    _create_like_results(tb, "dq_swapped", swapped)
    _create_like_results(tb, "dq_missing", [n for n in names if n != "rule_message"])
    out = _worker(
        tb,
        [
            {"table": "dq_swapped", "job_id": "job-swapped", "rules": ["r1"]},
            {"table": "dq_missing", "job_id": "job-missing", "rules": ["r1"]},
        ],
    )
    assert out[0].get("ok"), out
    with tb.db() as db:
        rows = db.query(f"select rule_name, rule_status from {tb.relation('dq_swapped')}")
    assert [(r["rule_name"], r["rule_status"]) for r in rows] == [("r1", "PASSED")]  # not swapped
    error = out[1].get("error", "")
    assert "does not have the expected columns: missing column(s) rule_message" in error, out
    assert "dq_missing" in error, out  # names the table
    with tb.db() as db:  # refused before anything was written
        assert db.query(f"select count(*) as n from {tb.relation('dq_missing')}")[0]["n"] == 0


@pytest.mark.parametrize("target", ["duckdb", "postgres"])
def test_concurrent_exports_of_one_job_leave_each_rule_once(target, tmp_path_factory, tmp_path):
    from conftest import _build_integration_project, require_target

    require_target(target)
    tb = _build_integration_project(target, tmp_path_factory)
    env = {}
    if target == "duckdb":  # a file of its own: the session's file is read by other tests
        import duckdb

        db_file = tmp_path / "concurrent.duckdb"
        duckdb.connect(str(db_file)).close()
        env["DBT_DUCKDB_PATH"] = str(db_file)
    export = [{"table": "dq_concurrent", "job_id": "job-same", "rules": ["r1", "r2", "r3", "r4"]}]
    _worker(tb, export, env)  # creates the table, so the two below race on the DELETE + INSERT only
    # copy_results' test hook `pause`: each copy waits 3 s between its DELETE and its INSERT (PostgreSQL)
    pause = {**env, "DATAPLEX_DQ_TEST_PAUSE_AFTER_DELETE": "3"}
    procs = [_worker(tb, export, pause, background=True) for _ in range(2)]
    results = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        results.append((p.returncode, stdout, stderr))
    if target == "duckdb":
        # DuckDB: one writer process per file; the other cannot open it, and says so
        oks = [r for r in results if '"ok": true' in r[1]]
        assert len(oks) >= 1, results
    else:
        assert all('"ok": true' in r[1] for r in results), results
    with Db(target, {**tb.env, **env}) as db:
        schema = "main" if target == "duckdb" else tb.schema
        rows = db.query(f'select rule_name from "{schema}"."dq_concurrent" order by rule_name')
    assert [r["rule_name"] for r in rows] == ["r1", "r2", "r3", "r4"]


def test_postgres_literals_are_safe_without_standard_conforming_strings(tmp_path_factory, tmp_path):
    """D.3: with standard_conforming_strings = off, a backslash in a plain '' literal escapes the next
    character; the package's literals (E'' with doubled backslashes) read the same either way."""
    from conftest import _build_integration_project, require_target

    require_target("postgres")
    tb = _build_integration_project("postgres", tmp_path_factory)
    value = "a\\'); drop table dq_numbers; --\\"
    out, res = render_results_sql(
        tb.project, tmp_path / "ops", "dq_scs", rows_json=json.dumps([{"rule_name": value, "data_quality_job_id": "j"}])
    )
    assert out is not None, res.output[-3000:]
    with Db("postgres", tb.env) as db:
        db.execute("set standard_conforming_strings = off")
        db.execute("set escape_string_warning = off")
        db.execute(out["create"])
        db.execute(out["insert"])
        assert db.query(f"select rule_name from {out['relation']}") == [{"rule_name": value}]
        assert db.query(f"select count(*) as n from {tb.relation('dq_numbers')}")[0]["n"] > 0
