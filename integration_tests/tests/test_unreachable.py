"""A warehouse that cannot be reached (issue 30 item 8): `dataplex-dq report` and `dataplex-dq build` say the
real cause in one line, exit 2, and leave every file of the previous report byte-identical and the results
table as it was. DuckDB: its file locked by another process; PostgreSQL: a port nobody listens on;
BigQuery: an API endpoint nobody listens on (all on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import drop_target_schemas, require_target
from dbt_harness import TARGETS, DbtProject, target_env, write_project

SCHEMA = """\
version: 2
seeds:
  - name: items
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: qty-present, arguments: {dimension: COMPLETENESS}}
          - dataplex_dq.range_expectation: {name: qty-small, arguments: {max_value: 5, dimension: VALIDITY}}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _md5s(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _row_count(p: DbtProject) -> int:
    return int(p.query(f"select count(*) as n from {p.relation('dataplex_dq_results')}")[0]["n"])


@contextmanager
def _unreachable(p: DbtProject) -> Iterator[tuple[DbtProject, str]]:
    """The project with its warehouse out of reach, and what the error must name."""
    if p.warehouse == "duckdb":
        db = p.env["DBT_DUCKDB_PATH"]
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"import duckdb, time; c = duckdb.connect({db!r}); print('locked', flush=True); time.sleep(300)",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
            yield p, f"cannot connect to the duckdb target ({db}): IO Error: Could not set lock on file"
        finally:
            holder.kill()
            holder.wait()
        return
    port = _free_port()
    if p.warehouse == "postgres":
        yield (
            replace(p, env={**p.env, "DBT_PG_HOST": "127.0.0.1", "DBT_PG_PORT": str(port)}),
            f'cannot connect to the postgres target (127.0.0.1:{port}): connection to server at "127.0.0.1", '
            f"port {port} failed: Connection refused",
        )
        return
    endpoint = f"http://127.0.0.1:{port}"
    yield (
        replace(p, env={**p.env, "DBT_BQ_API_ENDPOINT": endpoint}),
        f"cannot connect to the bigquery target (project {p.env['DBT_BQ_PROJECT']} at {endpoint}): "
        "[Errno 111] Connection refused",
    )


@pytest.fixture(scope="module", params=TARGETS)
def reported(request, tmp_path_factory) -> Iterator[DbtProject]:
    """A project built and reported (result files and index.html) on the target."""
    require_target(request.param)
    tmp_path = tmp_path_factory.mktemp(f"unreachable_{request.param}")
    env = target_env(request.param, tmp_path, "unreachable")
    p = write_project(
        tmp_path,
        "unreachable",
        {"seeds/items.csv": "id,qty\n1,1\n2,\n3,9\n", "models/schema.yml": SCHEMA},
        env=env,
        target=None if request.param == "duckdb" else request.param,
        project_config="seeds:\n  unreachable:\n    +column_types: {id: integer, qty: integer}\n",
    )
    build = p.run("build")
    assert build.returncode == 1, build.output[-3000:]  # both rules fail (a NULL, a 9)
    first = p.report("--html")
    assert first.returncode == 1, first.stdout + first.stderr
    yield p
    drop_target_schemas(request.param, env)


def _error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in (proc.stdout + proc.stderr).splitlines() if "cannot connect" in line]


@pytest.mark.parametrize("command", ["report", "build"])
def test_unreachable_warehouse_fails_fast_and_touches_nothing(reported, command):
    p = reported
    out = p.target_path / "dataplex_dq"
    before = _md5s(out)
    assert set(before) == {"index.html", "seed.unreachable.items.json", "seed.unreachable.items.pb"}
    rows = _row_count(p)
    assert rows == 2
    artifacts = _md5s(p.target_path)  # run_results.json, manifest.json: dbt did not run either
    with _unreachable(p) as (broken, cause):
        started = time.monotonic()
        target = ["--target", p.target] if command == "build" and p.target else []  # report: the artifacts' target
        proc = broken.dataplex_dq(command, "--html", *target)
        took = time.monotonic() - started
    text = proc.stdout + proc.stderr
    assert proc.returncode == 2, text
    assert "Traceback" not in text and "NoneType" not in text, text
    lines = _error_lines(proc)
    assert len(lines) == 1, text  # one line, the real cause
    assert cause in lines[0], (cause, text)
    assert _md5s(out) == before  # every result file and the page byte-identical
    assert _md5s(p.target_path) == artifacts
    assert _row_count(p) == rows  # no row written (read back once the warehouse is reachable again)
    print(f"{p.warehouse} {command}: exit 2 after {took:.1f}s: {lines[0]}")
