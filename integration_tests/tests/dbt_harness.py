"""Run dbt on a project in a subprocess and read what it left behind (artifacts, metrics rows)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

REPO_ROOT = Path(__file__).resolve().parents[2]
INTEGRATION_DIR = REPO_ROOT / "integration_tests"


def dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("dbt")
    if not found:
        raise RuntimeError("dbt is not installed in this environment; run `make venv` first")
    return found


@dataclass
class DbtResult:
    args: list[str]
    returncode: int
    output: str
    target_path: Path
    run_results: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)

    def results_by_name(self) -> dict[str, dict[str, Any]]:
        """run_results entries keyed by node name."""
        nodes = self.manifest.get("nodes", {})
        out = {}
        for r in self.run_results.get("results", []):
            node = nodes.get(r["unique_id"], {})
            out[node.get("name", r["unique_id"])] = r
        return out


@dataclass
class DbtProject:
    project_dir: Path
    profiles_dir: Path
    target_path: Path
    env: dict[str, str]
    target: str | None = None  # an output of profiles.yml; None = the profile's default (duckdb)

    def run(self, *args: str, check: bool = True) -> DbtResult:
        cmd = [
            dbt_executable(),
            *args,
            "--project-dir",
            str(self.project_dir),
            "--profiles-dir",
            str(self.profiles_dir),
        ]
        if args and args[0] != "deps":
            cmd += ["--target-path", str(self.target_path)]
            if self.target:
                cmd += ["--target", self.target]
        env = {
            **os.environ,
            **self.env,
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_LOG_PATH": str(self.target_path / "logs"),
        }
        proc = subprocess.run(cmd, cwd=self.project_dir, env=env, capture_output=True, text=True, check=False)
        result = DbtResult(list(args), proc.returncode, proc.stdout + proc.stderr, self.target_path)
        for name in ("run_results", "manifest"):
            path = self.target_path / f"{name}.json"
            if path.exists() and args and args[0] != "deps":
                setattr(result, name, json.loads(path.read_text()))
        if check and proc.returncode not in (0, 1):
            raise AssertionError(f"dbt {' '.join(args)} crashed (exit {proc.returncode}):\n{result.output[-4000:]}")
        return result


# ------------------------------------------------------------------ warehouses (targets)

TARGETS = ("duckdb", "postgres", "bigquery")
"""The outputs of integration_tests/profiles.yml the suite runs on."""


def dataplex_dq_relations(manifest: dict[str, Any]) -> list[str]:
    """The metrics relations (store_failures tables) of every dataplex_dq test in a manifest."""
    return [
        n["relation_name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] == "test"
        and (n.get("test_metadata") or {}).get("namespace") == "dataplex_dq"
        and n.get("relation_name")
    ]


class Db:
    """A plain driver connection to one target (duckdb, psycopg2, google-cloud-bigquery): what the
    tests read the warehouse with, independent of the code under test. Rows come back as dicts keyed
    by lower-case column name; STRUCT columns as dicts, JSON columns as decoded values."""

    def __init__(self, target: str, env: dict[str, str]):
        self.target = target
        self.env = env
        self._con: Any = None

    # -- connection -------------------------------------------------------------------------
    def _connect(self) -> Any:
        if self._con is not None:
            return self._con
        if self.target == "duckdb":
            import duckdb

            self._con = duckdb.connect(self.env["DBT_DUCKDB_PATH"], read_only=True)
        elif self.target == "postgres":
            import psycopg2

            self._con = psycopg2.connect(
                host=self.env.get("DBT_PG_HOST", "127.0.0.1"),
                port=int(self.env.get("DBT_PG_PORT", "5432")),
                user=self.env.get("DBT_PG_USER", "postgres"),
                password=self.env.get("DBT_PG_PASSWORD", ""),
                dbname=self.env.get("DBT_PG_DBNAME", "postgres"),
            )
            self._con.autocommit = True
        elif self.target == "bigquery":
            self._con = bigquery_client(self.env)
        else:
            raise ValueError(self.target)
        return self._con

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
        self._con = None

    def __enter__(self) -> Db:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- queries ----------------------------------------------------------------------------
    def query(self, sql: str) -> list[dict[str, Any]]:
        con = self._connect()
        if self.target == "duckdb":
            res = con.execute(sql)
            cols = [d[0].lower() for d in res.description]
            return [dict(zip(cols, r, strict=True)) for r in res.fetchall()]
        if self.target == "postgres":
            with con.cursor() as cur:
                cur.execute(sql)
                cols = [d[0].lower() for d in cur.description]
                return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        return [{k.lower(): v for k, v in row.items()} for row in con.query(sql).result()]

    def execute(self, sql: str) -> None:
        con = self._connect()
        if self.target == "bigquery":
            con.query(sql).result()
        elif self.target == "postgres":
            with con.cursor() as cur:
                cur.execute(sql)
        else:
            con.execute(sql)

    def columns(self, schema: str, table: str) -> list[str]:
        """Column names of a table, in order."""
        if self.target == "bigquery":
            t = self._connect().get_table(f"{self.env['DBT_BQ_PROJECT']}.{schema}.{table}")
            return [f.name for f in t.schema]
        if self.target == "duckdb":
            return [r["column_name"] for r in self.query(f"describe {schema}.{table}")]
        rows = self.query(
            "select column_name from information_schema.columns "
            f"where table_schema = '{schema}' and table_name = '{table}' order by ordinal_position"
        )
        return [r["column_name"] for r in rows]


def bigquery_client(env: dict[str, str]) -> Any:
    """google-cloud-bigquery client for the profile's project, at DBT_BQ_API_ENDPOINT (the local
    emulator in the tests) with anonymous credentials."""
    from google.api_core.client_options import ClientOptions
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import bigquery

    return bigquery.Client(
        project=env["DBT_BQ_PROJECT"],
        credentials=AnonymousCredentials(),
        client_options=ClientOptions(api_endpoint=env["DBT_BQ_API_ENDPOINT"]),
    )


def fetch_metrics_rows_from(db: Db, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every dataplex_dq test's stored metrics rows, keyed by rule name (one UNION ALL query)."""
    rels = dataplex_dq_relations(manifest)
    rows: dict[str, dict[str, Any]] = {}
    for i in range(0, len(rels), 200):
        sql = "\nunion all\n".join(f"select * from {rel}" for rel in rels[i : i + 200])
        for row in db.query(sql):
            rows[row["rule_name"]] = row
    return rows


def fetch_metrics_rows(duckdb_path: Path, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every dataplex_dq test's stored metrics rows in a DuckDB file, keyed by rule name."""
    with Db("duckdb", {"DBT_DUCKDB_PATH": str(duckdb_path)}) as db:
        return fetch_metrics_rows_from(db, manifest)


def render_results_sql(
    project: DbtProject,
    target_path: Path,
    identifier: str,
    *,
    rows_json: str = "[]",
    job_ids: tuple[str, ...] = ("job-1",),
    create: bool = False,
    schema: str | None = None,
) -> tuple[dict[str, Any] | None, DbtResult]:
    """The results-table statements of the package for the project's target, rendered by
    `dbt run-operation render_results_sql` (integration_tests/macros/render_results_sql.sql):
    {relation, create, delete, insert[, created]}, or None when the operation failed. `target_path`
    keeps the operation's artifacts away from a build's."""
    ops = DbtProject(project.project_dir, project.profiles_dir, target_path, project.env, project.target)
    args: dict[str, Any] = {
        "identifier": identifier,
        "rows_json": rows_json,
        "job_ids": list(job_ids),
        "create": create,
    }
    if schema:
        args["schema"] = schema
    res = ops.run(
        "run-operation",
        "render_results_sql",
        "--args",
        json.dumps(args, ensure_ascii=False),
        "--log-format",
        "json",
        check=False,
    )
    for line in res.output.splitlines():
        try:
            event = json.loads(line)
            msg = (event.get("data") or {}).get("msg") or (event.get("info") or {}).get("msg") or ""
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(msg, str) and msg.startswith("DATAPLEX_DQ_RENDERED "):
            return json.loads(msg[len("DATAPLEX_DQ_RENDERED ") :]), res
    return None, res


def parse_bigquery(sql: str, what: str) -> list[exp.Expression]:
    """Parse with sqlglot's bigquery dialect (errors raise), refusing statements sqlglot could only keep
    as an opaque command and PostgreSQL's `::` casts."""
    try:
        statements = [
            s for s in sqlglot.parse(sql, read="bigquery", error_level=sqlglot.ErrorLevel.RAISE) if s is not None
        ]
    except sqlglot.errors.SqlglotError as exc:
        raise AssertionError(f"{what}: not valid BigQuery SQL: {exc}\n--- SQL ---\n{sql}") from None
    assert statements, f"{what}: no statement"
    commands = [s for s in statements if isinstance(s, exp.Command)]
    assert not commands, f"{what}: sqlglot could not parse {commands[0].sql()[:200]!r}"
    tokens = sqlglot.Dialect.get_or_raise("bigquery").tokenize(sql)
    assert not [t for t in tokens if t.token_type == TokenType.DCOLON], f"{what}: PostgreSQL `::` cast in BigQuery SQL"
    return statements


def run_dataplex_dq(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the `dataplex-dq` command (this checkout's package) in a subprocess."""
    full_env = {**os.environ, **(env or {}), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "COLUMNS": "200"}
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT / "python"), full_env.get("PYTHONPATH", "")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "dataplex_dq.cli", *args],
        cwd=cwd or REPO_ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )
