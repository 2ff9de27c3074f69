#!/usr/bin/env python3
"""One smoke run of the version matrix (scripts/version_matrix.py): with the Python that runs it (a
matrix cell's venv, or the pinned .venv for the reference), build the demo (demo/run_demo.py) and the
integration project (integration_tests/, target duckdb) in copies under a temporary directory, and
write what they left as one JSON document:

* each project's exit code, dbt version, and every node's status and failure count
  (run_results.json with the manifest's names);
* every table and view dbt left in the DuckDB file (seeds, models, the package's results table and
  result models, the metrics rows), sorted, with what differs from run to run masked: timestamps,
  UUIDs (invocation and job ids), the dbt version, durations, the temporary directory;
* the demo's DataQualityResult JSON files (target/dataplex_dq/), masked the same way;
* the deprecation warnings dbt printed or logged (the matrix requires none).

Two runs of the same code then give the same document whatever dbt or Python version ran them, and
the matrix compares each cell's document with the pinned venv's.

    python scripts/version_smoke.py OUT.json [--keep]
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}(?::?\d{2})?| UTC)?")
# columns whose values are the run's, not the data's (durations, versions, who ran it)
VOLATILE_COLUMNS = re.compile(
    r"(^|_)(duration|elapsed|execution_time|seconds|millis|ms|dbt_version|adapter_version|invocation_id"
    r"|job_id|run_id|thread_id|user|host|bytes_processed|slot_millis)($|_)",
    re.IGNORECASE,
)
DEPRECATION_RE = re.compile(r"deprecat", re.IGNORECASE)
IGNORED_COPY = shutil.ignore_patterns(
    "target", "dbt_packages", "logs", "package-lock.yml", "*.duckdb*", "__pycache__", "tests", "benchmarks"
)


@functools.cache
def dbt_version() -> str:
    """Read once: `importlib.metadata.version` parses the package's METADATA file on every call (mask_text runs
    for every string of the dumped tables: 17,000 reads made one integration dump 5.7 s)."""
    from importlib.metadata import version

    return version("dbt-core")


def mask_text(text: str, tmp: str) -> str:
    text = text.replace(tmp, "<tmp>")
    text = UUID_RE.sub("<uuid>", text)
    text = TIME_RE.sub("<time>", text)
    return text.replace(dbt_version(), "<dbt-version>")


def normalize(value: Any, tmp: str) -> Any:
    """A JSON-comparable form of one value: floats to 9 significant digits, times masked."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else float(f"{value:.9g}")
    if isinstance(value, decimal.Decimal):
        return float(f"{float(value):.9g}")
    if isinstance(value, dt.datetime | dt.date | dt.time | dt.timedelta):
        return "<time>"
    if isinstance(value, uuid.UUID):
        return "<uuid>"
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {str(k): masked(str(k), v, tmp) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize(v, tmp) for v in value]
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in "[{":  # JSON text (the results table's JSON columns): compare it decoded
            try:
                return normalize(json.loads(stripped), tmp)
            except ValueError:
                pass
        return mask_text(value, tmp)
    return mask_text(str(value), tmp)


def masked(name: str, value: Any, tmp: str) -> Any:
    """A column's or JSON key's value, "<volatile>" when the name says it is the run's (a duration...)."""
    return "<volatile>" if value is not None and VOLATILE_COLUMNS.search(name) else normalize(value, tmp)


def dump_duckdb(path: Path, tmp: str) -> dict[str, list[Any]]:
    """Every table and view of the DuckDB file: {schema.name: sorted rows (column -> value)}."""
    import duckdb

    out: dict[str, list[Any]] = {}
    con = duckdb.connect(str(path), read_only=True)
    try:
        relations = con.execute(
            "select table_schema, table_name from information_schema.tables "
            "where table_schema not in ('information_schema', 'pg_catalog') order by 1, 2"
        ).fetchall()
        for schema, name in relations:
            cursor = con.execute(f'select * from "{schema}"."{name}"')
            columns = [d[0] for d in cursor.description]
            rows = [{c: masked(c, v, tmp) for c, v in zip(columns, row, strict=True)} for row in cursor.fetchall()]
            rows.sort(key=lambda r: json.dumps(r, sort_keys=True, default=str))
            out[f"{schema}.{name}"] = rows
    finally:
        con.close()
    return out


def node_results(target: Path, tmp: str) -> list[dict[str, Any]]:
    """Every node of the last invocation: name, type, status, failures, message (masked)."""
    run_results = json.loads((target / "run_results.json").read_text(encoding="utf-8"))
    nodes = json.loads((target / "manifest.json").read_text(encoding="utf-8")).get("nodes", {})
    rows = []
    for r in run_results.get("results", []):
        node = nodes.get(r["unique_id"], {})
        rows.append(
            {
                "unique_id": r["unique_id"],
                "status": r.get("status"),
                "failures": r.get("failures"),
                "message": mask_text(r.get("message") or "", tmp),
                "resource_type": node.get("resource_type"),
            }
        )
    return sorted(rows, key=lambda r: r["unique_id"])


def copy_project(src: Path, dest: Path) -> Path:
    """A copy of a project whose packages.yml installs this checkout by its absolute path."""
    shutil.copytree(src, dest, ignore=IGNORED_COPY)
    (dest / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(REPO_ROOT))}\n", encoding="utf-8")
    return dest


def deprecations(output: str, project: Path) -> list[str]:
    """The lines of dbt's output and its log file (logs/dbt.log) that warn of a deprecation."""
    lines = [line.strip() for line in output.splitlines() if DEPRECATION_RE.search(line)]
    log = project / "logs" / "dbt.log"
    if log.exists():
        lines += [line.strip() for line in log.read_text(encoding="utf-8").splitlines() if DEPRECATION_RE.search(line)]
    return sorted(set(lines))


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def smoke_demo(work: Path, tmp: str) -> dict[str, Any]:
    demo = copy_project(REPO_ROOT / "demo", work / "demo")
    db = work / "demo.duckdb"
    env = {**os.environ, "DBT_DUCKDB_PATH": str(db), "COLUMNS": "200", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    proc = run([sys.executable, str(demo / "run_demo.py")], demo, env)
    output = proc.stdout + proc.stderr
    results_dir = demo / "target" / "dataplex_dq"
    files = {
        str(p.relative_to(results_dir)): normalize(json.loads(p.read_text(encoding="utf-8")), tmp)
        for p in sorted(results_dir.rglob("*.json"))
    }
    return {
        "returncode": proc.returncode,
        "nodes": node_results(demo / "target", tmp) if (demo / "target" / "run_results.json").exists() else [],
        "tables": dump_duckdb(db, tmp) if db.exists() else {},
        "result_files": files,
        "deprecations": deprecations(output, demo),
        "output_tail": output[-3000:],
    }


def smoke_integration(work: Path, tmp: str) -> dict[str, Any]:
    project = copy_project(REPO_ROOT / "integration_tests", work / "integration_tests")
    db = work / "integration.duckdb"
    env = {
        **os.environ,
        "DBT_DUCKDB_PATH": str(db),
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    dbt = str(Path(sys.executable).parent / "dbt")
    deps = run([dbt, "deps"], project, env)
    build = run([dbt, "build", "--target", "duckdb"], project, env)
    output = deps.stdout + deps.stderr + build.stdout + build.stderr
    return {
        "returncode": [deps.returncode, build.returncode],
        "nodes": node_results(project / "target", tmp) if (project / "target" / "run_results.json").exists() else [],
        "tables": dump_duckdb(db, tmp) if db.exists() else {},
        "deprecations": deprecations(output, project),
        "output_tail": output[-3000:],
    }


ISO_FORMS = (
    "2024-05-01T12:00:00Z",
    "2024-05-01 14:00:00+02",
    "2024-05-01T12:00:00.123456789",
    "2024-05-01 12:00:00.5+0530",
    "2024-05-01T12:00",
    "2024-05-01",
    "2024-05-01T12:00:00.123+00:00",
)


def python_checks() -> dict[str, Any]:
    """What dataplex_dq._compat stands in for on Python 3.10, as this Python computes it."""
    from dataplex_dq._compat import UTC, StrEnum, fromisoformat

    class Status(StrEnum):
        PASSED = "PASSED"
        FAILED = "FAILED"

    return {
        "fromisoformat": {text: fromisoformat(text).isoformat() for text in ISO_FORMS},
        "utc": dt.datetime(2024, 5, 1, tzinfo=UTC).isoformat(),
        "str_enum": [
            str(Status.PASSED),
            f"{Status.FAILED}",
            f"{Status.PASSED:>8}",
            Status("FAILED"),
            repr(Status.PASSED),
        ],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="where to write the JSON document")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (its path is printed)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="dataplex_dq_smoke_"))
    tmp = str(work)
    started = time.monotonic()
    try:
        doc = {
            "python": ".".join(map(str, sys.version_info[:2])),
            "dbt_core": dbt_version(),
            "compat": python_checks(),
            "demo": smoke_demo(work, tmp),
            "integration": smoke_integration(work, tmp),
        }
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    doc["seconds"] = round(time.monotonic() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
