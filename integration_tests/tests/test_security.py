"""What a results table or a profile holds never runs or leaks (issue 30, items 1 and 2), on every warehouse:

- SQL planted in the results table (a `debug_queries[].sql_statement` of a recorded row) is never executed by
  `dataplex-dq report --from-results-table`: debug queries come from the project only, and their results are
  recorded by the package's hook when the rule runs.
- A profile's secret (a literal `password:` / BigQuery `token:`, and the same through `env_var`) appears in no
  file under the project, in no command's output and in no results row, after `dbt build`, `dataplex-dq report
  --html`, `dataplex-dq build` and `report --from-results-table`, run as a user would: `cd` into the project,
  `profiles.yml` beside `dbt_project.yml`, no flags.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import require_target
from dbt_harness import INTEGRATION_DIR, TARGETS, DbtProject, bigquery_client, target_env, target_schema, write_project

SCHEMA = """\
version: 2
seeds:
  - name: orders
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.range_expectation:
              name: amount-small
              arguments:
                max_value: 10
                debug_queries: [{description: largest, sql_statement: "select max(amount) as biggest from ${data()}"}]
"""

FILES = {"seeds/orders.csv": "id,amount\n1,5\n2,7\n3,50\n", "models/schema.yml": SCHEMA}


def _results(project: DbtProject) -> str:
    return project.relation("dataplex_dq_results")


def _rows(project: DbtProject) -> list[dict]:
    return project.query(f"select * from {_results(project)}")


def _plant(project: DbtProject, statement: str) -> str:
    """Copy a recorded row as a later job of a new invocation whose debug query is `statement`; its invocation id."""
    planted = "planted-invocation-0001"
    rows = _rows(project)
    assert rows, "the build recorded no row"
    cols = [c for c in rows[0] if c != "debug_queries"]
    later = {
        "duckdb": "job_start_time + interval 1 hour",
        "postgres": "job_start_time + interval '1 hour'",
        "bigquery": "timestamp_add(job_start_time, interval 1 hour)",
    }[project.warehouse]
    overrides = {"dbt_invocation_id": f"'{planted}'", "data_quality_job_id": "'planted-job'", "job_start_time": later}
    select_cols = ", ".join(overrides.get(c, _quote(project, c)) for c in cols)
    col_list = ", ".join(_quote(project, c) for c in cols)
    if project.warehouse == "bigquery":
        debug = (
            "[struct(cast('planted' as string) as description, "
            f"{_sql_string(project, statement)} as sql_statement, "
            "cast([] as array<struct<name string, type string, value string>>) as debug_query_results)]"
        )
    elif project.warehouse == "duckdb":
        debug = (
            f"cast([{{'description': 'planted', 'sql_statement': {_sql_string(project, statement)}, "
            "'debug_query_results': []}] as STRUCT(description VARCHAR, sql_statement VARCHAR, "
            "debug_query_results STRUCT(name VARCHAR, type VARCHAR, value VARCHAR)[])[])"
        )
    else:
        payload = [{"description": "planted", "sql_statement": statement, "debug_query_results": []}]
        debug = f"cast({_sql_string(project, json.dumps(payload))} as jsonb)"
    sql = (
        f"insert into {_results(project)} ({col_list}, debug_queries) "
        f"select {select_cols}, {debug} from {_results(project)} limit 1"
    )
    if project.warehouse == "duckdb":  # the harness's Db reads DuckDB read-only
        import duckdb

        with duckdb.connect(project.env["DBT_DUCKDB_PATH"]) as con:
            con.execute(sql)
    else:
        with project.db() as db:
            db.execute(sql)
    return planted


def _quote(project: DbtProject, name: str) -> str:
    return f"`{name}`" if project.warehouse == "bigquery" else f'"{name}"'


def _sql_string(project: DbtProject, text: str) -> str:
    if project.warehouse == "bigquery":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("'", "''") + "'"


def _exists(project: DbtProject, table: str) -> bool:
    schema = target_schema(project.warehouse, project.env)
    if project.warehouse == "bigquery":  # the emulator has no INFORMATION_SCHEMA
        client = bigquery_client(project.env)
        return table in {t.table_id for t in client.list_tables(f"{project.env['DBT_BQ_PROJECT']}.{schema}")}
    sql = f"select table_name from information_schema.tables where table_schema = '{schema}'"
    return table in {r["table_name"] for r in project.query(sql)}


@pytest.mark.parametrize("target", TARGETS)
def test_sql_planted_in_the_results_table_is_never_executed(target, tmp_path, dropped_after):
    require_target(target)
    env = dropped_after(target, target_env(target, tmp_path, "planted"))
    project = write_project(tmp_path, "planted", FILES, env=env, target=target)
    project.run("build")
    recorded = {r["rule_name"]: r for r in _rows(project)}
    assert recorded["amount-small"]["rule_status"] == "FAILED"
    schema = target_schema(target, project.env)
    table = f"{schema}.pwned" if target != "bigquery" else f"`{project.env['DBT_BQ_PROJECT']}`.`{schema}`.pwned"
    statement = {
        # read a secret of the server, then a second statement after `;` creating a table
        "postgres": f"select passwd as leaked from pg_shadow; create table {table} as select 1 as x",
        "duckdb": f"select current_setting('threads') as leaked; create table {table} as select 1 as x",
        "bigquery": f"select session_user() as leaked; create table {table} as select 1 as x",
    }[target]
    planted = _plant(project, statement)

    res = project.dataplex_dq("report", "--from-results-table")
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert not _exists(project, "pwned"), "a statement from the results table was executed"
    row = next(r for r in _rows(project) if r["dbt_invocation_id"] == planted)
    queries = row["debug_queries"]
    if isinstance(queries, str):
        queries = json.loads(queries)
    assert [q.get("debug_query_results") or [] for q in queries] == [[]], "the planted query's results were written"
    assert "leaked" not in out


SECRET_LITERAL = "Pw-Literal-7c41e9-MARKER"
SECRET_ENV = "Pw-EnvVar-3b8d22-MARKER"


def _profiles(target: str) -> str:
    """integration_tests/profiles.yml's output for `target` twice: `literal` with the secret written in the
    file, `from_env` reading it with env_var (the secret field: PostgreSQL's password, BigQuery's token,
    DuckDB's connection option `custom_user_agent`: a DuckDB profile has no credential that works offline)."""
    import yaml

    base = yaml.safe_load((INTEGRATION_DIR / "profiles.yml").read_text())["dataplex_dq_integration_tests"]["outputs"]

    def with_secret(value: str) -> dict:
        if target == "duckdb":  # no credential works offline: a connection setting stands in for one
            return {**base[target], "config_options": {"custom_user_agent": value}}
        return {**base[target], {"postgres": "password", "bigquery": "token"}[target]: value}

    literal, from_env = with_secret(SECRET_LITERAL), with_secret("{{ env_var('DQ_TEST_SECRET') }}")
    return yaml.safe_dump({"secrets": {"target": "literal", "outputs": {"literal": literal, "from_env": from_env}}})


def _files_with(root: Path, secret: str) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and path.name != "profiles.yml" and secret.encode() in path.read_bytes():
            found.append(str(path.relative_to(root)))
    return found


@pytest.mark.parametrize("target", TARGETS)
def test_a_profile_secret_reaches_no_file_output_or_row(target, tmp_path, dropped_after):
    require_target(target)
    env = dropped_after(target, {**target_env(target, tmp_path, "secrets"), "DQ_TEST_SECRET": SECRET_ENV})
    files = {**FILES, "profiles.yml": _profiles(target)}
    project = write_project(tmp_path, "secrets", files, env=env, profile="secrets")
    outputs = []
    for output in ("literal", "from_env"):
        project.env["DBT_TARGET"] = output
        build = project.run("build", "--target", output)
        outputs.append(build.output)
        assert "amount-small" in json.dumps(build.run_results), build.output[-2000:]
        for command, args in (("report", ("--html",)), ("build", ()), ("report", ("--from-results-table", "--html"))):
            res = project.dataplex_dq(command, *args, cwd=project.project_dir, flags=False)
            assert "Traceback" not in res.stdout + res.stderr, res.stdout + res.stderr
            outputs.append(res.stdout + res.stderr)
    project.target = None
    rows = _rows(DbtProject(project.project_dir, project.profiles_dir, project.target_path, env, target=target))
    assert len({r["dbt_invocation_id"] for r in rows}) == 4  # two dbt builds, two dataplex-dq builds
    for secret in (SECRET_LITERAL, SECRET_ENV):
        assert not [o for o in outputs if secret in o], f"{secret} printed"
        assert not _files_with(tmp_path, secret), f"{secret} written to a file"
        assert secret not in json.dumps(rows, default=str), f"{secret} in a results row"
