#!/usr/bin/env python3
"""The version matrix of `make matrix` (run by `make test`): the demo and the integration project built
on DuckDB with other dbt and Python versions than the pinned set, each giving the same numbers and
result rows as the pinned .venv.

Each cell is a venv of its own under .venv-matrix/<cell>/, installed from constraints.txt with the
cell's changes (pins replaced, pins dropped where a version does not install there), and the project
installed editable. A stamp file holds a hash of what the install depends on (pyproject.toml's
dependencies, scripts and build settings), of the cell's constraints and of its definition: the
venv is rebuilt only when one of them changes. Then scripts/version_smoke.py runs with the pinned
.venv (the reference) and with every cell, and the documents are compared.

    python scripts/version_matrix.py [CELL ...] [--list] [--jobs N]

The cells and why each differs from constraints.txt: CELLS below, and docs/SUPPORTED_VERSIONS.md.
Exit status: 0 every cell equal to the reference with no deprecation warning; 1 otherwise.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

REPO_ROOT = Path(__file__).resolve().parents[1]
MATRIX_DIR = REPO_ROOT / ".venv-matrix"
SMOKE = REPO_ROOT / "scripts" / "version_smoke.py"
CONSTRAINTS = REPO_ROOT / "constraints.txt"


@dataclass(frozen=True)
class Cell:
    name: str
    python: str  # "3.11": found as python3.11 on PATH or under pyenv
    pins: dict[str, str] = field(default_factory=dict)  # package -> exact version, replacing constraints.txt's
    unpin: tuple[str, ...] = ()  # constraints.txt pins dropped in this cell (pip picks the newest that fits)
    why: str = ""
    default: bool = True  # run when no cell is named


CELLS = (
    Cell(
        "dbt-1.12",
        "3.11",
        pins={"dbt-core": "1.12.0", "dbt-core-experimental-parser": "2.0.0a4"},
        unpin=("sqlparse",),
        why="dbt-core 1.12.0, the current line; 2.0.0a4 is the only experimental parser with a wheel "
        "(later 1.12.x need a parser that downloads a binary when installed); dbt-duckdb 1.11.1 is the "
        "newest; dbt-core 1.12 requires sqlparse<0.6",
    ),
    Cell(
        "dbt-1.10",
        "3.11",
        pins={"dbt-core": "1.10.9", "dbt-duckdb": "1.10.0"},
        unpin=("sqlparse",),
        why="the oldest dbt-core 1.10.x that installs beside protobuf 6 (1.10.0-1.10.8 require protobuf<6), "
        "with the oldest dbt-duckdb of the 1.10 line (1.10.0: no adapter.ensure_transaction, so the hook's "
        "begin takes its fallback); dbt-core 1.10 requires sqlparse<0.6",
    ),
    Cell(
        "py3.10",
        "3.10",
        unpin=("duckdb", "networkx", "pytimeparse", "rpds-py"),
        why="Python 3.10 with the pinned set but for four pins with no Python 3.10 release, which take the "
        "newest that has one: duckdb 2.x (1.5.x instead), networkx 3.6 (3.4), pytimeparse 1.1.10 (1.1.8), "
        "rpds-py 2026.9 (0.30)",
    ),
    Cell("py3.13", "3.13", why="Python 3.13 with the pinned set"),
    # Not run by default (name them to run them). Python 3.12: between 3.11 and 3.13, which make test runs.
    Cell("py3.12", "3.12", why="Python 3.12 with the pinned set", default=False),
)


def find_python(version: str) -> str | None:
    """The newest pyenv install of 3.X, else python3.X on PATH (not a pyenv shim: it may name another)."""
    root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates = sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"), key=_version_key)
    if candidates:
        return candidates[-1]
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        found = shutil.which(f"python{version}", path=directory)
        if found and "/shims/" not in found:
            return found
    return None


def _version_key(path: str) -> tuple[int, ...]:
    match = re.search(r"/versions/([\d.]+)/", path)
    return tuple(int(p) for p in match.group(1).split(".")) if match else ()


def _name(requirement_line: str) -> str:
    return re.split(r"[=<>!~ ;\[]", requirement_line, maxsplit=1)[0].strip().lower().replace("_", "-")


def cell_constraints(cell: Cell) -> str:
    """constraints.txt with the cell's pins replaced and its unpinned packages dropped."""
    drop = {n.lower() for n in (*cell.pins, *cell.unpin)}
    lines = [
        line
        for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#") and _name(line) not in drop
    ]
    lines += [f"{name}=={version}" for name, version in sorted(cell.pins.items())]
    return "\n".join(lines) + "\n"


def stamp_of(cell: Cell, python: str) -> str:
    digest = hashlib.sha256()
    # what an editable install of the project depends on: not the linters' or the tests' settings
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    installed = {key: project.get(key) for key in ("dependencies", "requires-python", "scripts", "entry-points")}
    installed["build-system"] = pyproject.get("build-system")
    installed["setuptools"] = pyproject.get("tool", {}).get("setuptools")
    digest.update(json.dumps(installed, sort_keys=True).encode())
    digest.update(cell_constraints(cell).encode())
    digest.update(json.dumps([cell.name, cell.python, python]).encode())
    return digest.hexdigest()


def log(message: str) -> None:
    print(f"[matrix] {message}", flush=True)


def build_venv(cell: Cell) -> tuple[Path, float]:
    """The cell's venv (built when its stamp is missing or stale). Returns (its python, seconds spent)."""
    python = find_python(cell.python)
    if python is None:
        raise RuntimeError(f"no Python {cell.python} here (python{cell.python} on PATH, or pyenv)")
    venv = MATRIX_DIR / cell.name
    stamp = venv / ".stamp-matrix"
    expected = stamp_of(cell, python)
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == expected:
        return venv / "bin" / "python", 0.0
    started = time.monotonic()
    log(f"{cell.name}: building {venv.relative_to(REPO_ROOT)} with {python}")
    MATRIX_DIR.mkdir(exist_ok=True)
    # keep the venvs out of git without touching .gitignore
    (MATRIX_DIR / ".gitignore").write_text("*\n", encoding="utf-8")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    constraints = venv / "constraints.txt"
    constraints.write_text(cell_constraints(cell), encoding="utf-8")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    proc = subprocess.run(
        [*pip, "-c", str(constraints), "-e", str(REPO_ROOT)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        errors = "\n".join(line for line in proc.stderr.splitlines() if "is ignored" not in line)
        raise RuntimeError(f"pip install failed:\n{errors[-4000:]}")
    stamp.write_text(expected + "\n", encoding="utf-8")
    return venv / "bin" / "python", time.monotonic() - started


def run_smoke(python: Path, out: Path) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    proc = subprocess.run([str(python), str(SMOKE), str(out)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the smoke run failed:\n{(proc.stdout + proc.stderr)[-4000:]}")
    return json.loads(out.read_text(encoding="utf-8")), time.monotonic() - started


def differences(reference: Any, other: Any, path: str = "") -> list[str]:
    """Where two smoke documents differ (at most a few lines per table)."""
    if isinstance(reference, dict) and isinstance(other, dict):
        out: list[str] = []
        for key in sorted(set(reference) | set(other)):
            if key not in other or key not in reference:
                out.append(f"{path}/{key}: only in {'the reference' if key in reference else 'this cell'}")
            else:
                out += differences(reference[key], other[key], f"{path}/{key}")
        return out
    if isinstance(reference, list) and isinstance(other, list):
        if len(reference) != len(other):
            return [f"{path}: {len(reference)} rows in the reference, {len(other)} here"]
        out = []
        for i, (a, b) in enumerate(zip(reference, other, strict=True)):
            out += differences(a, b, f"{path}[{i}]")
        return out[:5]
    if reference != other:
        return [f"{path}: reference {reference!r}, here {other!r}"]
    return []


COMPARED = ("returncode", "nodes", "tables", "result_files")


def compare(reference: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    problems = differences(reference["compat"], doc.get("compat"), "compat")
    for project in ("demo", "integration"):
        for key in COMPARED:
            if key in reference[project]:
                problems += differences(reference[project][key], doc[project].get(key), f"{project}/{key}")
        for line in doc[project]["deprecations"]:
            problems.append(f"{project}: deprecation warning: {line}")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cells", nargs="*", help="run only these cells (default: all)")
    parser.add_argument("--list", action="store_true", help="print the cells and exit")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("MATRIX_JOBS", "2")), help="cells at once")
    parser.add_argument("--reference-python", default=sys.executable, help="the pinned venv's python")
    args = parser.parse_args(argv)
    if args.list:
        for cell in CELLS:
            extra = "" if cell.default else "  (run only when named)"
            print(
                f"{cell.name} Python {cell.python}  {cell.pins or 'pinned set'}  unpinned: {cell.unpin or '-'}{extra}"
            )
            print(f"    {cell.why}")
        return 0
    unknown = set(args.cells) - {c.name for c in CELLS}
    if unknown:
        parser.error(f"unknown cells: {', '.join(sorted(unknown))}")
    cells = [c for c in CELLS if c.name in args.cells or (not args.cells and c.default)]
    out_dir = MATRIX_DIR / "smoke"
    out_dir.mkdir(parents=True, exist_ok=True)
    (MATRIX_DIR / ".gitignore").write_text("*\n", encoding="utf-8")
    started = time.monotonic()

    # venvs first, one at a time (pip downloads and builds), then the smoke runs in parallel
    built: dict[str, Path] = {}
    build_seconds: dict[str, float] = {}
    failures: dict[str, str] = {}
    for cell in cells:
        try:
            built[cell.name], build_seconds[cell.name] = build_venv(cell)
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            failures[cell.name] = f"venv: {exc}"
    builds_done = time.monotonic()

    jobs = [("pinned", Path(args.reference_python)), *((c.name, built[c.name]) for c in cells if c.name in built)]
    docs: dict[str, dict[str, Any]] = {}
    smoke_seconds: dict[str, float] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_smoke, python, out_dir / f"{name}.json"): name for name, python in jobs}
        for future in concurrent.futures.as_completed(futures):
            name = futures[future]
            try:
                docs[name], smoke_seconds[name] = future.result()
            except RuntimeError as exc:
                failures[name] = str(exc)
    if "pinned" not in docs:
        log(f"the reference run (pinned .venv) failed: {failures.get('pinned')}")
        return 1
    reference = docs["pinned"]
    for line in compare(reference, reference):  # the pinned run's own deprecation warnings
        failures.setdefault("pinned", "")
        failures["pinned"] += line + "\n"

    print()
    log(f"{'cell':10} {'python':7} {'dbt-core':9} {'venv s':>7} {'smoke s':>8}  result")
    log(
        f"{'pinned':10} {reference['python']:7} {reference['dbt_core']:9} {'-':>7} "
        f"{smoke_seconds['pinned']:8.0f}  {'reference' if 'pinned' not in failures else 'FAILED'}"
    )
    for cell in cells:
        doc = docs.get(cell.name)
        if doc is not None and cell.name not in failures:
            problems = compare(reference, doc)
            if problems:
                failures[cell.name] = "\n".join(problems[:40])
        status = "FAILED" if cell.name in failures else "equal to the pinned run"
        log(
            f"{cell.name:10} {(doc or {}).get('python', cell.python):7} {(doc or {}).get('dbt_core', '?'):9} "
            f"{build_seconds.get(cell.name, 0):7.0f} {smoke_seconds.get(cell.name, 0):8.0f}  {status}"
        )
    total = time.monotonic() - started
    log(
        f"added time: {total:.0f}s ({builds_done - started:.0f}s building venvs, "
        f"{total - (builds_done - started):.0f}s of smoke runs, {args.jobs} at once)"
    )
    for name, message in failures.items():
        print(f"\n[matrix] {name} FAILED:\n{message}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
