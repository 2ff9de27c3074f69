"""A new user's project (issue 9, A and E.3): `cd project && dataplex-dq build` with profiles.yml in the
project and a relative DuckDB path, `dataplex-dq report` from a sub-directory with ~/.dbt/profiles.yml,
from another directory with DBT_PROJECT_DIR / DBT_PROFILES_DIR, warn-severity rules, and tests that
errored (at compile time, or whose metrics table was dropped) next to rules that are still scored."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from dbt_harness import run_dataplex_dq, write_project

SCHEMA = """\
version: 2
seeds:
  - name: victim
  - name: items
    config:
      meta:
        dataplex_dq:
          # D.1: an injection payload in results_table (it dropped the seed `victim` before)
          postScanActions: {bigqueryExport: {resultsTable: 'x" (a int); drop table victim; create table "z'}}
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: qty-present, arguments: {dimension: COMPLETENESS}}
          - dataplex_dq.range_expectation: {name: qty-warn, arguments: {max_value: 5}, config: {severity: warn}}
          - dataplex_dq.range_expectation: {name: qty-dropped, arguments: {max_value: 100, ignore_null: true}}
          - dataplex_dq.non_null_expectation: {name: bad-debug, arguments: {debug_queries: "select 1"}}
          - dataplex_dq.non_null_expectation: {name: bad-threshold, arguments: {threshold: [0.5]}}
models:
  # D.2: a pre-quoted column name and one holding a double quote (a model: dbt's seeds cannot load the latter)
  - name: odd
    columns:
      - name: '"Mixed Case"'
        data_tests:
          - dataplex_dq.non_null_expectation: {name: mixed-present, arguments: {threshold: 0.5}}
      - name: 'we"ird'
        data_tests:
          - dataplex_dq.regex_expectation: {name: weird-regex, arguments: {regex: '^[a-z]+$', threshold: 0.5}}
"""
PROFILE = "user_proj:\n  target: dev\n  outputs:\n    dev: {{type: duckdb, path: '{path}', threads: 2}}\n"


def _env(home, **extra: str) -> dict[str, str]:
    """A user's environment: no DBT_* variables of the test session, HOME as given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    return {**env, "HOME": str(home), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **extra}


@dataclass
class UserProject:
    """The project after `cd project && dataplex-dq build`, and the user's home folder."""

    proj: Path
    home: Path
    build: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def user_project(tmp_path_factory) -> UserProject:
    tmp = tmp_path_factory.mktemp("user_project")
    home = tmp / "home"
    home.mkdir()
    project = write_project(
        tmp,
        "user_proj",
        {
            "seeds/items.csv": "id,qty\n1,1\n2,\n3,9\n",
            "seeds/victim.csv": "id\n1\n",
            "models/odd.sql": """select 'x' as "Mixed Case", 'abc' as "we""ird" union all select null, 'ABC'\n""",
            "models/schema.yml": SCHEMA,
            "profiles.yml": PROFILE.format(path="user.duckdb"),  # relative, as jaffle_shop's
        },
        env={},
        profile="user_proj",
        project_config="seeds:\n  user_proj:\n    +column_types: {id: integer, qty: integer}\n",
    )
    # `cd project && dataplex-dq build`, no flags: dbt and the report find profiles.yml in the cwd
    build = run_dataplex_dq("build", cwd=project.project_dir, env=_env(home), subprocess_only=True)
    return UserProject(project.project_dir, home, build)


def _rows(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            r[0]: r[1:]
            for r in con.execute(
                "select rule_name, rule_status, rule_message, rule_rows_passed, dbt_invocation_id from "
                "main.dataplex_dq_results"
            ).fetchall()
        }
    finally:
        con.close()


def test_build_in_the_project_directory_without_flags(user_project):
    proj, build = user_project.proj, user_project.build
    out = build.stdout + build.stderr
    assert "expected str, bytes or os.PathLike" not in out
    assert build.returncode == 2, out  # two tests errored at compile time
    assert "Traceback" not in out and "\x1b[" not in out  # no escape codes when stdout is not a terminal
    assert "1 failed, 1 warned, 0 skipped, 2 errors" in out  # the progress bar counts warnings and skips as such
    assert "warning: seed 'items' rule 'qty-warn' failed (severity: warn)" in out
    assert "Rules: 3 passed, 1 failed, 1 warned, 2 errored, 0 skipped, 0 suspended." in out
    rows = _rows(proj / "user.duckdb")
    assert {k: v[0] for k, v in rows.items()} == {
        "qty-present": "FAILED",
        "qty-warn": "FAILED",
        "qty-dropped": "PASSED",
        "bad-debug": "ERROR",
        "bad-threshold": "ERROR",
        "mixed-present": "PASSED",
        "weird-regex": "PASSED",
    }
    assert rows["mixed-present"][2] == 1 and rows["weird-regex"][2] == 1  # 1 of 2 rows each, in the right column
    assert "field 'debug_queries': must be a list" in rows["bad-debug"][1]
    # D.1: the payload is refused with a clear line, and the seed it would drop is still there
    assert 'post-scan action failed: bigquery_export to x" (a int); drop table victim' in out
    assert "contains '\"': a name may only contain letters, digits, _, -, $, spaces" in out
    con = duckdb.connect(str(proj / "user.duckdb"), read_only=True)
    try:
        assert con.execute("select count(*) from main.victim").fetchone() == (1,)
    finally:
        con.close()
    # the process ends with its database closed: checkpointed, no write-ahead log left; nothing of dbt's
    # compiled templates is kept on disk (no cache of Jinja's code)
    assert not (proj / "user.duckdb.wal").exists()
    assert not (proj / "target" / "dataplex_dq_template_cache").exists()


def test_report_from_a_subdirectory_with_home_profiles_reads_the_recorded_run(user_project):
    proj, home = user_project.proj, user_project.home
    (home / ".dbt").mkdir(exist_ok=True)
    (home / ".dbt" / "profiles.yml").write_text(PROFILE.format(path=proj / "user.duckdb"))
    con = duckdb.connect(str(proj / "user.duckdb"))
    dropped = con.execute(
        "select table_schema, table_name from information_schema.tables where table_name like 'dq_qty_dropped%'"
    ).fetchone()
    con.execute(f'drop table "{dropped[0]}"."{dropped[1]}"')
    con.close()
    # a sub-directory: dbt_project.yml is found in the parent, profiles.yml in ~/.dbt
    res = run_dataplex_dq("report", cwd=proj / "models", env=_env(home), subprocess_only=True)
    out = res.stdout + res.stderr
    assert res.returncode == 2, out
    assert "Traceback" not in out
    # the run was recorded by `dbt build` (the package's hook): a metrics table dropped afterwards changes nothing,
    # the report reads the recorded rows (the errored rules are the declarations that failed to compile)
    assert not [line for line in out.splitlines() if line.startswith("error:") and "qty-dropped" in line], out
    rows = _rows(proj / "user.duckdb")
    assert rows["qty-dropped"][0] == "PASSED"
    assert rows["qty-present"][:3] == ("FAILED", None, 2) and rows["qty-warn"][:3] == ("FAILED", None, 1)
    assert len(rows) == 7


def test_report_from_elsewhere_with_a_relative_duckdb_path_says_so(user_project, tmp_path):
    proj, home = user_project.proj, user_project.home
    res = run_dataplex_dq("report", cwd=tmp_path, env=_env(home, DBT_PROJECT_DIR=str(proj), DBT_PROFILES_DIR=str(proj)))
    out = " ".join((res.stdout + res.stderr).split())
    assert res.returncode == 2
    assert (
        f"the DuckDB file user.duckdb (relative to the current directory {tmp_path}) did not exist before this run"
        in out
    )
    assert "schema" not in out.split("did not exist")[0]
    assert not (tmp_path / "user.duckdb").exists()  # and no empty file was left behind
