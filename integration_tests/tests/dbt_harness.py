"""Run dbt on a project (in this process, see `invoke_dbt`) and read what it left behind (artifacts, metrics rows)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
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


def in_subprocesses() -> bool:
    """DATAPLEX_DQ_TEST_DBT_SUBPROCESS set: every dbt and `dataplex-dq` command of the tests runs as a subprocess."""
    return bool(os.environ.get("DATAPLEX_DQ_TEST_DBT_SUBPROCESS"))


@contextlib.contextmanager
def logged(tool: str, args: list[str]) -> Iterator[None]:
    """The command run inside, its test, tool, subcommand and seconds appended to DATAPLEX_DQ_TEST_COMMAND_LOG (a
    JSON-lines file; unset: nothing): where the suite's time goes, command by command (docs/ARCHITECTURE.md#testing)."""
    started = time.monotonic()
    try:
        yield
    finally:
        path = os.environ.get("DATAPLEX_DQ_TEST_COMMAND_LOG")
        if path:
            line = {
                "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0],
                "tool": tool,
                "command": next((a for a in args if not a.startswith("-")), ""),
                "seconds": round(time.monotonic() - started, 3),
            }
            with open(path, "a") as fh:
                fh.write(json.dumps(line) + "\n")


def invoke_dbt(args: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `dbt ARGS` in `cwd` with exactly the environment `env`: in this process through dbt's documented
    programmatic entry point (dbtRunner, as dbt's own functional tests do) unless `in_subprocesses()`; the exit
    code is the dbt command's (0 success, 1 failures, 2 an error of dbt itself) and the output is what the
    command prints. In process saves the ~2 s of importing dbt per invocation. Logged (:func:`logged`)."""
    if in_subprocesses():
        with logged("dbt", args):
            proc = subprocess.run(
                [dbt_executable(), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
            )
        return proc.returncode, proc.stdout + proc.stderr
    from dbt.cli.main import dbtRunner

    out = io.StringIO()
    with logged("dbt", args), in_process(cwd, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        res = dbtRunner().invoke(list(args))
    if res.success:
        return 0, out.getvalue()
    if res.exception is not None:
        return 2, out.getvalue() + "".join(traceback.format_exception(res.exception))
    return 1, out.getvalue()


@contextlib.contextmanager
def in_process(cwd: Path, env: dict[str, str]) -> Iterator[None]:
    """One command run in this process as in a process of its own: exactly the environment `env` and the working
    directory `cwd` for its time, then the adapters it opened let go (dbt-duckdb keeps the database it opened for
    the life of the process, closed at exit; a test process runs many projects and reads their files) and the
    environment and directory put back.

    dbt's test caching is on, as dbt's own pytest fixtures turn it on (`dbt.tests.fixtures.project`'s
    `initialization`: "caches used between test runs, for better testing performance"): dbt keeps the Jinja parse of
    each macro and template text it has parsed, keyed by the text, so a new project's full parse does not parse the
    package's 116 macro files again (a fresh project's `dbt parse` 2.5-3.4 s -> 0.8 s in process). A changed file is
    new text and is parsed; the subprocess path (`in_subprocesses()`) never caches."""
    from dbt_common.tests import enable_test_caching

    enable_test_caching()
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        from dbt.adapters.factory import reset_adapters

        reset_adapters()  # the adapters of the command, with their connections (the next command makes its own)
        try:
            from dbt.adapters.duckdb.connections import DuckDBConnectionManager
        except ImportError:
            pass
        else:
            # dbt-duckdb keeps one environment (the open database) for the process; closing it here lets the file go
            # at once, where waiting for the environment to be collected took a full garbage collection (~0.5 s a
            # command in a test process holding dbt's objects)
            environment = getattr(DuckDBConnectionManager, "_ENV", None)
            DuckDBConnectionManager.close_all_connections()
            if environment is not None:
                environment.close()
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


@dataclass(frozen=True)
class NodeResult:
    """One node's entry of run_results.json, with the manifest's name for it."""

    unique_id: str
    name: str
    resource_type: str
    status: str  # dbt's: pass, fail, warn, error, skipped, success
    message: str | None
    failures: int | None
    relation_name: str | None


@dataclass
class DbtResult:
    """One dbt invocation: its exit code, output and the artifacts it left."""

    args: list[str]
    returncode: int
    output: str
    target_path: Path
    run_results: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.returncode == 0

    @property
    def nodes(self) -> dict[str, NodeResult]:
        """Every node this invocation ran, keyed by node name (a test's `name:`)."""
        manifest_nodes = self.manifest.get("nodes", {})
        out = {}
        for r in self.run_results.get("results", []):
            node = manifest_nodes.get(r["unique_id"], {})
            name = node.get("name", r["unique_id"])
            out[name] = NodeResult(
                r["unique_id"],
                name,
                node.get("resource_type", r["unique_id"].split(".")[0]),
                r["status"],
                r.get("message"),
                r.get("failures"),
                node.get("relation_name"),
            )
        return out

    def statuses(self, package: str | None = None) -> dict[str, str]:
        """{node name: dbt status} of every node this invocation ran (of one package, if given)."""
        return {
            name: n.status for name, n in self.nodes.items() if package is None or n.unique_id.split(".")[1] == package
        }

    def results_by_name(self) -> dict[str, dict[str, Any]]:
        """run_results entries keyed by node name."""
        nodes = self.manifest.get("nodes", {})
        out = {}
        for r in self.run_results.get("results", []):
            node = nodes.get(r["unique_id"], {})
            out[node.get("name", r["unique_id"])] = r
        return out


@contextlib.contextmanager
def deps_lock(project_dir: Path, exclusive: bool) -> Iterator[None]:
    """The dbt_packages/ of a project folder of the checkout that pytest-xdist workers share
    (integration_tests/ is used in place): `dbt deps` removes and re-creates its link and writes
    package-lock.yml, so it runs alone (`exclusive`); every other dbt or dataplex-dq command there reads the
    link and shares the lock, so none starts while deps re-creates it (a build did: "only 0 package(s)
    installed"). Projects written into a test's own temporary folder are not shared and take no lock."""
    folder = Path(project_dir).resolve()
    if not folder.is_relative_to(REPO_ROOT):
        yield
        return
    digest = hashlib.sha1(str(folder).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"dataplex_dq_tests_deps_{digest}.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@dataclass
class DbtProject:
    """A dbt project on disk and how to run dbt (and `dataplex-dq`) on it. `write_project` creates one
    from files; the session's projects (integration_tests/, exact_project/) are used in place."""

    project_dir: Path
    profiles_dir: Path
    target_path: Path
    env: dict[str, str]
    target: str | None = None  # an output of profiles.yml; None = the profile's default (duckdb)

    def run(self, *args: str, check: bool = True) -> DbtResult:
        cmd = [
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
        with deps_lock(self.project_dir, exclusive=bool(args) and args[0] == "deps"):
            returncode, output = invoke_dbt(cmd, cwd=self.project_dir, env=env)
        result = DbtResult(list(args), returncode, output, self.target_path)
        for name in ("run_results", "manifest"):
            path = self.target_path / f"{name}.json"
            if path.exists() and args and args[0] != "deps":
                setattr(result, name, json.loads(path.read_text()))
        if check and returncode not in (0, 1):
            raise AssertionError(f"dbt {' '.join(args)} crashed (exit {returncode}):\n{result.output[-4000:]}")
        return result

    def report(self, *args: str, cwd: Path | None = None, flags: bool = True) -> subprocess.CompletedProcess[str]:
        """`dataplex-dq report` on this project; `flags=False` gives no --project-dir / --profiles-dir /
        --target-path (as a user in the project folder would run it, with `cwd`)."""
        return self.dataplex_dq("report", *args, cwd=cwd, flags=flags)

    def dataplex_dq(
        self, command: str, *args: str, cwd: Path | None = None, flags: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """`dataplex-dq COMMAND` on this project (see :meth:`report`)."""
        dirs = (
            [
                "--project-dir",
                str(self.project_dir),
                "--profiles-dir",
                str(self.profiles_dir),
                "--target-path",
                str(self.target_path),
            ]
            if flags
            else []
        )
        with deps_lock(self.project_dir, exclusive=False):
            return run_dataplex_dq(command, *dirs, *args, env=self.env, cwd=cwd or self.project_dir)

    # -- the warehouse it builds into ----------------------------------------------------------
    @property
    def warehouse(self) -> str:
        return self.target or "duckdb"

    @property
    def schema(self) -> str:
        return target_schema(self.warehouse, self.env)

    def relation(self, identifier: str) -> str:
        """A quoted relation name in the target schema, for hand-written queries."""
        if self.warehouse == "bigquery":
            return f"`{self.env['DBT_BQ_PROJECT']}`.`{self.schema}`.`{identifier}`"
        return f'"{self.schema}"."{identifier}"'

    def db(self) -> Db:
        return Db(self.warehouse, self.env)

    def query(self, sql: str) -> list[dict[str, Any]]:
        with self.db() as db:
            return db.query(sql)

    def metrics(self, result: DbtResult) -> dict[str, dict[str, Any]]:
        """The stored metrics rows of every dataplex_dq test `result` ran, keyed by rule name."""
        with self.db() as db:
            return fetch_metrics_rows_from(db, result.manifest)


DEFAULT_PROFILE = "dataplex_dq_integration_tests"
"""The profile of integration_tests/profiles.yml (duckdb, postgres and bigquery outputs)."""


def write_project(
    root: Path,
    name: str,
    files: dict[str, str],
    *,
    env: dict[str, str],
    target: str | None = None,
    profile: str = DEFAULT_PROFILE,
    project_config: str = "",
    profiles_dir: Path | None = None,
    template: Path | None = None,
    deps: bool = True,
) -> DbtProject:
    """A dbt project `root/<name>` written from `files` ({relative path: text}, dedented), with a
    dbt_project.yml (`name`, `profile`, then `project_config` YAML) and a packages.yml installing this
    checkout by a relative `local:` path, as a user's project would; `dbt deps` run unless `deps=False`.
    Profiles come from integration_tests/profiles.yml unless `profiles_dir` (or a `profiles.yml` in
    `files`, then the project folder) says otherwise. Artifacts go to `root/target`. `template`: a
    checked-in project copied first (its own dbt_project.yml kept; `name` is then its folder's name)."""
    proj = root / name
    texts = {"packages.yml": f"packages:\n  - local: {os.path.relpath(REPO_ROOT, proj)}\n", **files}
    if template is not None:
        shutil.copytree(template, proj)
    else:
        proj.mkdir(parents=True, exist_ok=True)
        header = f'name: {name}\nversion: "1.0"\nconfig-version: 2\nprofile: {profile}\n'
        texts = {"dbt_project.yml": header + textwrap.dedent(project_config), **texts}
    for rel, text in texts.items():
        path = proj / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if profiles_dir is None:
        profiles_dir = proj if "profiles.yml" in files else INTEGRATION_DIR
    project = DbtProject(proj, profiles_dir, root / "target", env, target=target)
    if deps:
        res = project.run("deps")
        assert res.success, res.output[-3000:]
    return project


METRIC_FIELDS = (
    "rule_status",
    "passed",
    "row_count",
    "evaluated_count",
    "passed_count",
    "null_count",
    "assertion_row_count",
    "pass_ratio",
    "statistic_value",
    "rule_type",
    "rule_column",
    "rule_dimension",
    "rule_threshold",
    "rule_ignore_null",
    "rule_suspended",
)
"""The metrics-row columns an expectation may name (expected_metrics.yml's keys; `status` stands for
rule_status). Other keys of an expectation (dbt_status, failing_ids, seed, ...) are not metrics."""


def _same_number(have: Any, want: Any) -> bool:
    if isinstance(want, str) and "/" in want:  # a ratio written as a fraction: "17/18"
        want = float(Fraction(want))
    if have is None or want is None or isinstance(have, bool) or isinstance(want, bool):
        return have == want
    return abs(float(have) - float(want)) <= 1e-12 * max(1.0, abs(float(want)))


def metrics_differences(name: str, row: dict[str, Any] | None, expected: dict[str, Any]) -> list[str]:
    """How a stored metrics row differs from an expectation: every column of METRIC_FIELDS the
    expectation names (`status` for rule_status), counts and flags exactly, ratios and statistics
    within 1e-12 (relative). The one comparison every metrics test uses."""
    if row is None:
        return [f"{name}: no metrics row"]
    out = []
    for key in METRIC_FIELDS:
        exp_key = "status" if key == "rule_status" else key
        if exp_key not in expected:
            continue
        want, have = expected[exp_key], row.get(key)
        same = _same_number(have, want) if key in ("pass_ratio", "statistic_value", "rule_threshold") else have == want
        if key == "passed":
            same = have is want
        if not same:
            out.append(f"{name}: {key} is {have!r}, expected {want!r}")
    return out


def assert_metrics(rows: dict[str, dict[str, Any]], expected: dict[str, dict[str, Any]]) -> None:
    """`rows` (metrics rows by rule name) agree with `expected` (expectations by rule name): one
    assertion listing every difference."""
    problems = [p for name, exp in expected.items() for p in metrics_differences(name, rows.get(name), exp)]
    assert not problems, f"{len(problems)} difference(s):\n" + "\n".join(problems[:60])


# ------------------------------------------------------------------ warehouses (targets)

TARGETS = ("duckdb", "postgres", "bigquery")
"""The outputs of integration_tests/profiles.yml the suite runs on."""


def target_env(target: str, work: Path, tag: str) -> dict[str, str]:
    """Environment for dbt and the drivers: a fresh DuckDB file / PostgreSQL schema / BigQuery dataset."""
    if target == "duckdb":
        return {"DBT_DUCKDB_PATH": str(work / f"{tag}.duckdb")}
    schema = f"{tag}_{uuid.uuid4().hex[:8]}"
    if target == "postgres":
        env = {k: v for k, v in os.environ.items() if k.startswith("DBT_PG_")}
        return {**env, "DBT_PG_SCHEMA": schema}
    env = {k: v for k, v in os.environ.items() if k.startswith("DBT_BQ_")}
    env.setdefault("DBT_BQ_PROJECT", "dq-local")
    return {**env, "DBT_BQ_DATASET": schema}


def target_schema(target: str, env: dict[str, str]) -> str:
    return {"duckdb": "main", "postgres": env.get("DBT_PG_SCHEMA", ""), "bigquery": env.get("DBT_BQ_DATASET", "")}[
        target
    ]


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
    return rendered(res.output), res


RENDERED = "DATAPLEX_DQ_RENDERED "


def rendered(output: str) -> Any | None:
    """What an integration_tests/macros/ operation logged as `DATAPLEX_DQ_RENDERED {json}` (dbt run with
    `--log-format json`), decoded; None when it logged nothing."""
    for line in output.splitlines():
        try:
            event = json.loads(line)
            msg = (event.get("data") or {}).get("msg") or (event.get("info") or {}).get("msg") or ""
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(msg, str) and msg.startswith(RENDERED):
            return json.loads(msg[len(RENDERED) :])
    return None


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


def copy_demo(root: Path) -> Path:
    """A copy of demo/ at `root/demo` (without what a build leaves: target/, dbt_packages/, logs, the database)
    whose packages.yml installs this checkout by its absolute path. Tests build the demo there, never in the
    checkout's demo/: its target/ would describe a database the test deletes afterwards, and a user's
    `cd demo && dataplex-dq report` would then find artifacts of a run whose DuckDB file is gone."""
    demo = root / "demo"
    shutil.copytree(
        REPO_ROOT / "demo",
        demo,
        ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "package-lock.yml", "*.duckdb*", "__pycache__"),
    )
    (demo / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(REPO_ROOT))}\n")
    return demo


def run_dataplex_dq(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    subprocess_only: bool = False,
    unset: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run the `dataplex-dq` command (this checkout's package) in `cwd` with `env` added to this process's
    environment: in this process (as the console script, its exit code and its stdout and stderr apart), or in a
    subprocess with `subprocess_only` (a user's shell: the journeys of test_user_project) or
    `in_subprocesses()`. `unset`: variables of this process's environment the command does not get."""
    full_env = {**os.environ, **(env or {}), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "COLUMNS": "200"}
    for name in unset:
        full_env.pop(name, None)
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT / "python"), full_env.get("PYTHONPATH", "")) if p
    )
    command = [sys.executable, "-m", "dataplex_dq.cli", *args]
    if subprocess_only or in_subprocesses():
        with logged("dataplex-dq", list(args)):
            return subprocess.run(
                command, cwd=cwd or REPO_ROOT, env=full_env, capture_output=True, text=True, check=False
            )
    from dataplex_dq.cli.main import exit_code_of_main

    out, err = io.StringIO(), io.StringIO()
    with (
        logged("dataplex-dq", list(args)),
        in_process(cwd or REPO_ROOT, full_env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = exit_code_of_main(list(args))
    return subprocess.CompletedProcess(command, code, out.getvalue(), err.getvalue())


class JsonReceiver:
    """One HTTP server on 127.0.0.1 (a free port) keeping (path, JSON body) of every POST, answering ``status``:
    the webhook, alert route and OpenLineage endpoint of the tests."""

    def __init__(self, status: int = 200) -> None:
        from http.server import BaseHTTPRequestHandler, HTTPServer

        self.posts: list[tuple[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.posts.append((self.path, json.loads(body)))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, path: str) -> list[Any]:
        """The JSON bodies posted to ``path``, in order."""
        return [body for p, body in self.posts if p == path]

    def take(self) -> dict[str, list[Any]]:
        """The bodies posted since the last take, by path (without its slashes); then forgets them."""
        out: dict[str, list[Any]] = {}
        for path, body in self.posts:
            out.setdefault(path.strip("/"), []).append(body)
        self.posts.clear()
        return out

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
