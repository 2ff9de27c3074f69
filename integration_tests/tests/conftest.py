"""Session fixtures: `dbt build` of the integration project once per target.

Targets (outputs of integration_tests/profiles.yml): duckdb (embedded, always), postgres (a real
server) and bigquery (dbt-bigquery against a local BigQuery API emulator). `make test` starts the
PostgreSQL cluster and the emulator (scripts/test_services.sh) and exports DBT_PG_* / DBT_BQ_* and
DATAPLEX_DQ_REQUIRED_TARGETS. Running pytest by hand without them skips those targets with the reason;
a target listed in DATAPLEX_DQ_REQUIRED_TARGETS fails instead of skipping.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

# the unit tests' helpers (python/tests, e.g. test_openlineage.validate_event) are importable here too, also when
# only the integration tests run: one copy of each
_UNIT_TESTS = str(Path(__file__).resolve().parents[2] / "python" / "tests")
if _UNIT_TESTS not in sys.path:
    sys.path.append(_UNIT_TESTS)

from dbt_harness import (  # noqa: E402
    INTEGRATION_DIR,
    TARGETS,
    Db,
    DbtProject,
    DbtResult,
    fetch_metrics_rows_from,
    target_env,
    target_schema,
)

REQUIRED_TARGETS = {t for t in os.environ.get("DATAPLEX_DQ_REQUIRED_TARGETS", "").split(",") if t}


def target_unavailable(target: str) -> str | None:
    """Why a target cannot run here, or None."""
    if target == "duckdb":
        return None
    if target == "postgres":
        if not os.environ.get("DBT_PG_PORT"):
            return (
                "PostgreSQL target: DBT_PG_PORT is not set; "
                "`make test` starts a local server (scripts/test_services.sh) and sets it"
            )
        try:
            import dbt.adapters.postgres
            import psycopg2  # noqa: F401  (comes with dbt-postgres)
        except ImportError as exc:
            return f"PostgreSQL target: dbt-postgres is not installed ({exc}); install the `postgres` extra"
        return None
    if target == "bigquery":
        endpoint = os.environ.get("DBT_BQ_API_ENDPOINT")
        if not endpoint:
            return (
                "BigQuery target: DBT_BQ_API_ENDPOINT is not set; "
                "`make test` starts the local BigQuery emulator and sets it"
            )
        try:
            import dbt.adapters.bigquery  # noqa: F401
            import google.cloud.bigquery  # noqa: F401
        except ImportError as exc:
            return f"BigQuery target: dbt-bigquery is not installed ({exc}); install the `bigquery` extra"
        import urllib.request

        try:
            urllib.request.urlopen(endpoint.rstrip("/") + "/_crucible/health", timeout=5).read()
        except OSError as exc:
            return f"BigQuery target: the emulator at {endpoint} does not answer ({exc})"
        return None
    return f"unknown target {target}"


def require_target(target: str) -> None:
    reason = target_unavailable(target)
    if reason is None:
        return
    if target in REQUIRED_TARGETS:
        pytest.fail(f"{reason} (required by DATAPLEX_DQ_REQUIRED_TARGETS)", pytrace=False)
    pytest.skip(reason)


def drop_target_schemas(target: str, env: dict[str, str]) -> None:
    """Remove what a build left in a server warehouse (the schema and dbt's test audit schema)."""
    if target == "duckdb":
        return
    schema = target_schema(target, env)
    with Db(target, env) as db:
        for s in (schema, f"{schema}_dbt_test__audit"):
            try:
                if target == "postgres":
                    db.execute(f'drop schema if exists "{s}" cascade')
                else:
                    db._connect().delete_dataset(
                        f"{env['DBT_BQ_PROJECT']}.{s}", delete_contents=True, not_found_ok=True
                    )
            except Exception:  # noqa: BLE001, S110 - best effort: the server is thrown away at the end of `make test`
                pass


@dataclass
class TargetBuild:
    """`dbt build` of the integration project on one target, and how to read what it left."""

    target: str
    project: DbtProject
    build: DbtResult
    metrics: dict[str, dict[str, Any]]
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return self.project.env

    @property
    def schema(self) -> str:
        return target_schema(self.target, self.env)

    def db(self) -> Db:
        return Db(self.target, self.env)

    def relation(self, identifier: str) -> str:
        """A quoted relation name in the target schema, for hand-written queries."""
        if self.target == "bigquery":
            return f"`{self.env['DBT_BQ_PROJECT']}`.`{self.schema}`.`{identifier}`"
        return f'"{self.schema}"."{identifier}"'


_BUILDS: dict[str, TargetBuild] = {}


def _build_integration_project(target: str, tmp_path_factory: pytest.TempPathFactory) -> TargetBuild:
    if target in _BUILDS:
        return _BUILDS[target]
    if target == "bigquery":
        try:  # compile Google's SQL analyzer for the BigQuery gate while dbt builds (test_bigquery_gate.py)
            from bigquery_analyzer import warm_up

            warm_up()
        except ImportError:
            pass
    work = tmp_path_factory.mktemp(f"{target}_build")
    env = target_env(target, work, "dq_it")
    project = DbtProject(INTEGRATION_DIR, INTEGRATION_DIR, work / "target", env, target=target)
    started = time.monotonic()
    deps = project.run("deps")
    assert deps.returncode == 0, deps.output
    build = project.run("build")
    seconds = time.monotonic() - started
    with Db(target, env) as db:
        metrics = fetch_metrics_rows_from(db, build.manifest)
    tb = TargetBuild(target, project, build, metrics, seconds)
    # what `dbt build` alone left (the project's on-run-end hook), before any `dataplex-dq report`
    with Db(target, env) as db:
        tb.extra["hook_rows"] = db.query(f"select * from {tb.relation('dataplex_dq_results')}")
        tb.extra["hook_job_scores"] = db.query(f"select * from {tb.relation('dq_job_scores')}")
        tb.extra["hook_dimension_scores"] = db.query(f"select * from {tb.relation('dq_dimension_scores')}")
        tb.extra["hook_column_scores"] = db.query(f"select * from {tb.relation('dq_column_scores')}")
    _BUILDS[target] = tb
    print(f"\n[dataplex_dq] dbt build of the integration project on {target}: {seconds:.1f}s")
    return _BUILDS[target]


@pytest.fixture(scope="session", params=TARGETS)
def dbt_target(request) -> str:
    """Each target of profiles.yml in turn (skipped, or failed when required, if unavailable)."""
    require_target(request.param)
    return request.param


@pytest.fixture(scope="session")
def target_build(dbt_target, tmp_path_factory) -> TargetBuild:
    """`dbt build` of the integration project on `dbt_target`, once per session."""
    return _build_integration_project(dbt_target, tmp_path_factory)


@pytest.fixture(scope="session")
def bigquery_build(tmp_path_factory) -> TargetBuild:
    """The BigQuery target's build alone, for the BigQuery-only tests."""
    require_target("bigquery")
    return _build_integration_project("bigquery", tmp_path_factory)


@pytest.fixture(scope="session")
def duckdb_build(tmp_path_factory):
    """`dbt build` of the integration project on DuckDB: (build, metrics rows, duckdb file)."""
    b = _build_integration_project("duckdb", tmp_path_factory)
    return b.build, b.metrics, Path(b.env["DBT_DUCKDB_PATH"])


@dataclass
class DemoBuild:
    """One `make demo` run (run_demo.py of a copy of demo/, dbt_harness.copy_demo) into a fresh DuckDB file:
    its output and exit code. The demo writes its artifacts, DataQualityResult files and HTML report under
    `dir`/target/."""

    dir: Path
    db: Path
    returncode: int
    output: str
    env: dict[str, str]


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> DemoBuild:
    """The demo built once per session (test_demo.py and the HTML report's browser tests share it)."""
    import subprocess
    import sys

    from dbt_harness import REPO_ROOT, copy_demo

    tmp = tmp_path_factory.mktemp("demo")
    demo = copy_demo(tmp)
    db = tmp / "demo.duckdb"
    env = {
        **os.environ,
        "DBT_DUCKDB_PATH": str(db),
        "COLUMNS": "200",
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "PYTHONPATH": str(REPO_ROOT / "python"),
    }
    proc = subprocess.run(
        [sys.executable, str(demo / "run_demo.py")], env=env, capture_output=True, text=True, check=False
    )
    return DemoBuild(demo, db, proc.returncode, proc.stdout + proc.stderr, env)


# Other projects' builds (the scan project, the sampling project) shared by several test modules:
# (project name, target) -> what the module's builder returned; their warehouse schemas are dropped
# at the end of the session.
_PROJECT_BUILDS: dict[tuple[str, str], Any] = {}
_PROJECT_ENVS: list[tuple[str, dict[str, str]]] = []


def shared_build(name: str, target: str, build: Any) -> Any:
    """`build(register_env)` once per session for (name, target); `register_env(env)` marks the
    warehouse schema of `env` for dropping at the end of the session."""
    key = (name, target)
    if key not in _PROJECT_BUILDS:
        _PROJECT_BUILDS[key] = build(lambda env: _PROJECT_ENVS.append((target, env)))
    return _PROJECT_BUILDS[key]


@pytest.fixture(scope="session", autouse=True)
def _drop_server_schemas():
    yield
    for b in _BUILDS.values():
        drop_target_schemas(b.target, b.env)
    for target, env in _PROJECT_ENVS:
        drop_target_schemas(target, env)


@pytest.fixture
def dropped_after() -> Iterator[Callable[[str, dict[str, str]], dict[str, str]]]:
    """`dropped_after(target, env)` gives `env` back and drops its schema / dataset when the test ends, as
    `_drop_server_schemas` does for the session's builds (a BigQuery dataset left behind makes every later lookup of
    the shared emulator's catalog slower: docs/BENCHMARKS.md)."""
    envs: list[tuple[str, dict[str, str]]] = []

    def register(target: str, env: dict[str, str]) -> dict[str, str]:
        envs.append((target, env))
        return env

    yield register
    for target, env in envs:
        drop_target_schemas(target, env)


# ------------------------------------------------------------------ per-target wall time

_TARGET_SECONDS: dict[str, float] = {}
_TARGET_ID = re.compile(r"\[(" + "|".join(TARGETS) + r")(?:\]|-)")


def pytest_runtest_logreport(report) -> None:
    """Add up setup + call + teardown time of each target's tests (the builds happen in setup)."""
    m = _TARGET_ID.search(report.nodeid)
    if m:
        _TARGET_SECONDS[m.group(1)] = _TARGET_SECONDS.get(m.group(1), 0.0) + report.duration


def _summary_of_this_process() -> dict[str, Any]:
    """What this process adds to the terminal summary: the BigQuery gate's lines and the integration
    project's build time per target."""
    import sys

    gate = sys.modules.get("test_bigquery_gate")
    return {
        "gate": list(getattr(gate, "GATE_SUMMARY", [])),
        "builds": {target: [b.seconds] for target, b in _BUILDS.items()},
    }


# pytest-xdist: each worker sends its summary to the controller, which prints them all.
_WORKER_SUMMARIES: list[dict[str, Any]] = []


def pytest_sessionfinish(session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker
        workeroutput["dataplex_dq_summary"] = _summary_of_this_process()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    summary = getattr(node, "workeroutput", {}).get("dataplex_dq_summary")
    if summary:
        _WORKER_SUMMARIES.append(summary)


def pytest_terminal_summary(terminalreporter) -> None:
    gate: list[str] = []
    builds: dict[str, list[float]] = {}
    for summary in [_summary_of_this_process(), *_WORKER_SUMMARIES]:
        gate += summary["gate"]
        for target, seconds in summary["builds"].items():
            builds.setdefault(target, []).extend(seconds)
    for line in gate:
        terminalreporter.write_line(f"[dataplex_dq] {line}")
    if not _TARGET_SECONDS:
        return
    workers = f", summed over {len(_WORKER_SUMMARIES)} workers" if _WORKER_SUMMARIES else ""
    terminalreporter.section(f"dataplex_dq: wall time per target{workers}")
    for target in TARGETS:
        if target in _TARGET_SECONDS:
            each = " + ".join(f"{s:.1f}s" for s in builds.get(target, []))
            detail = f" (dbt deps + build {each})" if each else ""
            terminalreporter.write_line(f"{target:9s} {_TARGET_SECONDS[target]:7.1f}s{detail}")


# ------------------------------------------------------------------ pytest-xdist scheduling
#
# `make test` runs the files in parallel (pytest -n <cores + 1> --dist loadgroup --no-loadscope-reorder): each
# worker is a process of its own with its own temporary folder, so its DuckDB files, dbt target/ folders
# and copies of projects are its own, and every PostgreSQL schema / BigQuery dataset it builds into has
# a random suffix (dbt_harness.target_env). A session build (the integration project's per target, the scan
# and sampling projects' through `shared_build`, the demo's) is made once per worker that needs it.
#
# A work unit is one file (as --dist loadfile), except the files listed together in GROUPS: those that use
# the session builds above, which run on one worker so that each build is made once. A new file using one of
# them belongs there too (else the build is made again on the other worker). Units are handed out longest
# first (HEAVY, measured seconds on 2 cores, rounded): the quick ones fill in at the end.

GROUPS: dict[str, str] = {
    # the integration project's build per target (target_build, duckdb_build, bigquery_build), the scan and sampling
    # projects' server builds (read again by the BigQuery gate and golden SQL) and the demo's build (demo_build):
    # each built once, not once per worker (on the BigQuery emulator a build is the slowest step of a file)
    **dict.fromkeys(
        [
            "test_scan.py",
            "test_sampling.py",
            "test_bigquery_gate.py",
            "test_bigquery_sql.py",
            "test_rules.py",
            "test_report.py",
            "test_results_table.py",
            "test_export_safety.py",
            "test_on_run_end.py",
            "test_html_report.py",
            "test_demo.py",
        ],
        "shared_builds",
    ),
}

HEAVY: dict[str, float] = {
    # seconds per file on all three targets: the dbt and dataplex-dq commands of a whole `make test` run on a loaded
    # machine (DATAPLEX_DQ_TEST_COMMAND_LOG, 2026-12-03; a session build counts for the file that first needed it),
    # or 1.3x the file's DuckDB-only time where that is more; files under 20 s are left out (they fill in at the end)
    "test_security.py": 415,
    "test_one_run.py": 310,
    "test_demo_alerts.py": 295,
    "test_on_run_end.py": 260,
    "test_incremental.py": 220,
    "test_latest_models.py": 190,
    "test_profile_suggest.py": 190,
    "test_report_errors.py": 170,
    "test_result_files_atomic.py": 140,
    "test_html_report.py": 140,
    "test_bigquery_gate.py": 130,
    "test_unreachable.py": 130,
    "test_output_truth.py": 95,
    "test_exact.py": 95,
    "test_scan.py": 90,
    "test_anomaly.py": 90,
    "test_post_scan_actions.py": 85,
    "test_values.py": 80,
    "test_spec_contract.py": 70,
    "test_alerts_once.py": 65,
    "test_suggest_demo.py": 60,
    "test_versions.py": 55,
    "test_spec_templates.py": 50,
    "test_cost_guard.py": 50,
    "test_alert_values.py": 50,
    "test_compile_work.py": 45,
    "test_samples_lineage.py": 45,
    "test_results_table.py": 35,
    "test_spec_validation_parity.py": 35,
    "test_defer.py": 30,
    "test_properties.py": 30,
    "test_scan_names.py": 25,
    "test_scan_shared_grouping.py": 25,
    "test_identity.py": 25,
    "test_empty_run.py": 20,
    "test_user_project.py": 20,
    "test_rules.py": 20,
    "test_sampling.py": 20,
    "test_diff_demo.py": 15,
    "test_spec_roundtrip.py": 15,
}


def _unit_of_path(path: str) -> str:
    """The work unit of a test file (its path relative to the root): its group, else the file."""
    return GROUPS.get(path.rsplit("/", 1)[-1], path)


def _unit(item) -> str:
    return _unit_of_path(str(item.path.relative_to(item.config.rootpath)))


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup`: a work unit is a file or a group of GROUPS, handed to one worker whole.

    pytest-xdist 3.8's own loadgroup reads the `xdist_group` mark through a node id suffix that pytest 9.2 no longer
    reads (`Node.nodeid` is computed), so every test became its own unit and a module's builds ran on both workers.
    This is xdist's load-scope scheduler with the unit taken from the file's path."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit_of_path(nodeid.split("::", 1)[0])

    return FileGroupScheduling(config, log)


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture parameters, which this keeps per unit
def pytest_collection_modifyitems(config, items) -> None:
    # on a worker (xdist sets `dist` to "no" there and `loadgroup` to whether the run is --dist loadgroup): order the
    # units longest first, so that the scheduler (which keeps the collection order with --no-loadscope-reorder)
    # hands them out in that order
    if config.pluginmanager.hasplugin("xdist") and getattr(config.option, "loadgroup", False):
        files: dict[str, set[str]] = {}
        for item in items:
            files.setdefault(_unit(item), set()).add(item.path.name)
        weight = {unit: sum(HEAVY.get(name, 0.0) for name in names) for unit, names in files.items()}
        first_seen: dict[str, int] = {}
        for i, item in enumerate(items):
            first_seen.setdefault(_unit(item), i)
        # longest first; a unit's tests stay together and in their order
        items.sort(key=lambda it: (-weight[_unit(it)], first_seen[_unit(it)]))
