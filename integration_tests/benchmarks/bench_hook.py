#!/usr/bin/env python3
"""Benchmark (not a test): the time the on-run-end hook adds to `dbt build`, on DuckDB.

For each size N, generates a dbt project (no hook line: the package declares its own on-run-end hook, which
records every run unless `vars: {dataplex_dq_on_run_end: false}`), runs `dbt build` once and `dbt test`
(--repeats - 1) times, each a fresh process, and prints min/median/max of the hook's added time: dbt's
own timing of the on-run-end hook ("OK hook: ...on-run-end.0 ... in S s", rendering included: the
hook's macros are compiled anew in every process) and the hook's own timer (it logs "dataplex_dq:
wrote the results of ... in B batch(es), S s"), with the whole command for scale.

  * per-rule form: N `dataplex_dq.*` tests (N metrics relations), over max(1, N // 50) seeds;
  * scan form (--form scan): data_quality_scan tests of up to 1,000 rules each (docs/SEMANTICS.md §3's limit per
    data source), N rules over ceil(N / 1000) seeds: N rules from few relations.

  * --rules-skipped / --rules-scan-skipped: the same forms on models whose query fails, so `dbt build` (every
    sample) skips every test and the hook writes each declared rule from its declaration.

  python integration_tests/benchmarks/bench_hook.py --rules 20 1000 --rules-scan 1000 10000 --repeats 3
  python integration_tests/benchmarks/bench_hook.py --rules --rules-scan --rules-skipped 1000 --rules-scan-skipped 1000

Sizes of 10,000 rules and more run --repeats-large times (default 2: each `dbt build` takes minutes).

--per-macro runs each dbt process through a probe (HOOK_PROBE below, built on bench_compile.py's TEMPLATE_PROBE;
the package is not changed): the on-run-end hook's CPU seconds (dbt's thread), the package's macros dbt compiles
into templates for the first time while the hook runs (count, KB of source, CPU, calls), Python's garbage
collection inside the hook, and the macros costing most to build:

  python integration_tests/benchmarks/bench_hook.py --rules --rules-scan 20 --repeats 3 --per-macro

Every line prints the load average at its samples: on a shared machine the wall times are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_compile import TEMPLATE_PROBE  # the same instrument as bench_compile.py --per-macro

REPO = Path(__file__).resolve().parents[2]
WROTE = re.compile(
    r"dataplex_dq: wrote the results of (\d+) test\(s\) of (\d+) data source\(s\) to (\S+)"
    r" in (\d+) batch\(es\)(?:, the debug queries of \d+ failed rule\(s\))?, ([\d.]+)s"
)


def _project(work: Path, rules: int, form: str, skipped: bool = False) -> Path:
    """``skipped``: the data sources are models whose query fails, so `dbt build` skips every test and the hook
    records each declared rule as SKIPPED (the path of a test that left no metrics row)."""
    proj = work / f"{form}_{rules}{'_skipped' if skipped else ''}"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    sources = max(1, rules // 50) if form == "tests" else max(1, math.ceil(rules / 1000))
    lines = ["version: 2", "models:" if skipped else "seeds:"]
    for s in range(sources):
        if skipped:
            (proj / "models" / f"items_{s}.sql").write_text(
                "{{ config(materialized='table') }}\nselect cast('planted failure' as integer) as id, 1 as qty\n"
            )
        else:
            (proj / "seeds" / f"items_{s}.csv").write_text("id,qty\n" + "".join(f"{i},{i % 7}\n" for i in range(200)))
        lines += [f"  - name: items_{s}"]
        mine = [r for r in range(rules) if r % sources == s]
        if form == "tests":
            lines += ["    columns:", "      - name: qty", "        data_tests:"]
            for r in mine:
                if r % 3 == 0:
                    lines.append(
                        f"          - dataplex_dq.range_expectation: {{name: r{r}, "
                        f"arguments: {{max_value: {r % 7}, dimension: VALIDITY}}}}"
                    )
                elif r % 3 == 1:
                    lines.append(
                        f"          - dataplex_dq.non_null_expectation: {{name: r{r}, "
                        f"arguments: {{dimension: COMPLETENESS}}}}"
                    )
            lines.append("    data_tests:")
            for r in mine:
                if r % 3 == 2:
                    lines.append(
                        f"      - dataplex_dq.table_condition_expectation: {{name: r{r}, "
                        f"arguments: {{sql_expression: 'count(*) > {r % 300}'}}}}"
                    )
        else:
            lines += [
                "    data_tests:",
                "      - dataplex_dq.data_quality_scan:",
                # named, as the README asks: without `name:` dbt makes the test's unique_id of all its
                # arguments (~70 KB for 1,000 rules), which every result row then carries
                f"          name: scan_items_{s}",
                "          arguments:",
                "            rules:",
            ]
            for r in mine:
                lines.append(
                    f"              - {{name: r{r}, column: qty, "
                    f"rangeExpectation: {{maxValue: '{r % 7}'}}, dimension: VALIDITY}}"
                )
    (proj / "models" / "schema.yml").write_text("\n".join(lines) + "\n")
    (proj / "dbt_project.yml").write_text(
        'name: bench_hook\nversion: "1.0"\nconfig-version: 2\nprofile: bench\n'
        "seeds:\n  bench_hook:\n    +column_types: {id: integer, qty: integer}\n"
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (proj / "profiles.yml").write_text(
        f"bench:\n  target: dev\n  outputs:\n    dev: {{type: duckdb, path: '{proj / 'bench.duckdb'}', threads: 4}}\n"
    )
    return proj


HOOK_OK = re.compile(r"OK hook: \w+\.on-run-end\.0 \.*\s*\S*OK\S* in ([\d.]+)s")


# `dbt build` / `dbt test` through bench_compile.py's TEMPLATE_PROBE (--per-macro), on while the on-run-end hook
# runs (in dbt's main thread), with the hook's own CPU seconds. JSON in the file named by DQ_BENCH_HOOK_MACROS.
HOOK_PROBE = (
    TEMPLATE_PROBE
    + """\
from dbt.task import run as run_task
totals["hook_cpu"] = 0.0
safe_run_hooks = run_task.RunTask.safe_run_hooks
def timed_hooks(self, adapter, hook_type, extra_context):
    if not str(hook_type).endswith("end"):
        return safe_run_hooks(self, adapter, hook_type, extra_context)
    state.on = True
    start = time.thread_time()
    try:
        return safe_run_hooks(self, adapter, hook_type, extra_context)
    finally:
        state.on = False
        totals["hook_cpu"] += time.thread_time() - start
run_task.RunTask.safe_run_hooks = timed_hooks
from dbt.cli.main import cli
try:
    cli(sys.argv[1:])
finally:
    with open(os.environ["DQ_BENCH_HOOK_MACROS"], "w") as out:
        json.dump({"built": built, "calls": calls, **totals}, out)
"""
)


def _dbt(proj: Path, *args: str, probe: bool = False) -> subprocess.CompletedProcess[str]:
    dbt = str(Path(sys.executable).parent / "dbt")
    env = {**os.environ, "DBT_PROFILES_DIR": str(proj), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    cmd = [dbt, *args, "--project-dir", str(proj)]
    if probe:
        env["DQ_BENCH_HOOK_MACROS"] = str(proj / "hook_macros.json")
        cmd = [sys.executable, "-c", HOOK_PROBE, *args, "--project-dir", str(proj)]
    return subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, check=False)


def _sample(
    proj: Path, command: str, probes: list[dict] | None = None
) -> tuple[float, float, int, int, int, float, float] | None:
    """One fresh dbt process: (dbt's time for the on-run-end hook, the hook's own time, tests, data
    sources, batches, the whole command's time, the 1-minute load average when it ended), from its output.
    ``probes``: run through HOOK_PROBE and append what it measured."""
    probe_file = proj / "hook_macros.json"
    probe_file.unlink(missing_ok=True)  # a process that fails to write it must not show the previous one's
    started = time.perf_counter()
    proc = _dbt(proj, command, probe=probes is not None)
    whole = time.perf_counter() - started
    load = os.getloadavg()[0]
    if probes is not None and probe_file.exists():
        probes.append(json.loads(probe_file.read_text()))
    wrote, hook_ok = WROTE.findall(proc.stdout), HOOK_OK.findall(proc.stdout)
    if not wrote or not hook_ok:
        print(f"  `dbt {command}`: the hook did not report (exit {proc.returncode})\n{proc.stdout[-2000:]}")
        return None
    tests, sources, _, batches, seconds = wrote[-1]
    return float(hook_ok[-1]), float(seconds), int(tests), int(sources), int(batches), whole, load


def _stats(values: list[float]) -> str:
    return f"{min(values):7.3f} / {statistics.median(values):7.3f} / {max(values):7.3f}"


def _run(
    proj: Path, rules: int, form: str, repeats: int, *, skipped: bool = False, per_macro: int | None = None
) -> None:
    """`dbt build` once, then `dbt test` repeats - 1 times, each a fresh process (the hook's macros
    are compiled anew in each, as in production); ``skipped``: `dbt build` every time (its tests are skipped)."""
    assert _dbt(proj, "deps").returncode == 0
    probes: list[dict] | None = [] if per_macro is not None else None
    samples = [_sample(proj, "build", probes)] + [
        _sample(proj, "build" if skipped else "test", probes) for _ in range(repeats - 1)
    ]
    ok = [s for s in samples if s is not None]
    if not ok:
        return
    _, _, tests, sources, batches, _, _ = ok[0]
    import duckdb

    con = duckdb.connect(str(proj / "bench.duckdb"), read_only=True)
    rows = con.execute("select count(*) from main.dataplex_dq_results").fetchone()[0]
    con.close()
    print(
        f"{form + (' skipped' if skipped else ''):13s} {rules:>6} rules | {tests:>5} tests {sources:>4} sources | "
        f"{batches} batch(es) | "
        f"hook added (dbt's timing of the on-run-end hook) min/median/max {_stats([s[0] for s in ok])} s | "
        f"hook's own timer {_stats([s[1] for s in ok])} s | "
        f"whole dbt command median {statistics.median([s[5] for s in ok]):6.1f} s | "
        f"{len(ok)} fresh processes | {rows} rows in the results table | "
        f"load average {min(s[6] for s in ok):.1f}-{max(s[6] for s in ok):.1f} on {os.cpu_count()} CPU(s)"
    )
    if probes:
        _print_probes(probes, per_macro or 0)


def _print_probes(probes: list[dict], top: int) -> None:
    """--per-macro: the hook's CPU and the package's macro builds inside it, min/median/max over the processes."""
    # built: {package.macro: [source bytes, bytes without comments, build seconds]} (TEMPLATE_PROBE)
    package = [{k: v for k, v in p["built"].items() if k.startswith("dataplex_dq.")} for p in probes]
    print(
        f"  probe, {len(probes)} processes: hook CPU {_stats([p['hook_cpu'] for p in probes])} s | "
        f"package macros built {_stats([sum(v[2] for v in b.values()) for b in package])} s "
        f"({len(package[0])} macros, {sum(v[0] for v in package[0].values()) / 1024:.1f} KB) | "
        f"garbage collection {_stats([p['gc_cpu'] for p in probes])} s "
        f"({statistics.median(p['gc_runs'] for p in probes):.0f} runs, median)"
    )
    median_ms = {name: statistics.median(b.get(name, [0, 0, 0])[2] for b in package) * 1000 for name in package[0]}
    for name in sorted(median_ms, key=median_ms.__getitem__, reverse=True)[:top]:
        calls = statistics.median(p["calls"].get(name.split(".", 1)[1], 0) for p in probes)
        print(f"    {name:50s} {package[0][name][0] / 1024:5.1f} KB {median_ms[name]:6.1f} ms {calls:4.0f} calls")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", type=int, nargs="*", default=[20, 1000], help="sizes in the per-rule test form")
    ap.add_argument(
        "--rules-scan", type=int, nargs="*", default=[1000, 10_000], help="sizes in the data_quality_scan form"
    )
    ap.add_argument("--repeats", type=int, default=3, help="fresh dbt processes per size (one build, then tests)")
    ap.add_argument(
        "--repeats-large",
        type=int,
        default=2,
        help="fresh dbt processes for sizes of 10,000 rules and more (each takes minutes)",
    )
    ap.add_argument(
        "--rules-skipped",
        type=int,
        nargs="*",
        default=[],
        help="sizes in the per-rule form on models that fail: every test skipped, its declared rule recorded",
    )
    ap.add_argument(
        "--rules-scan-skipped",
        type=int,
        nargs="*",
        default=[],
        help="sizes in the scan form on models that fail: every scan skipped, its declared rules recorded",
    )
    ap.add_argument(
        "--per-macro",
        nargs="?",
        type=int,
        const=10,
        default=None,
        metavar="TOP",
        help="run dbt through a probe: the hook's CPU, the package's macros it builds, the TOP costliest (10)",
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_hook_"))
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)")

    def repeats(n: int) -> int:
        return args.repeats if n < 10_000 else args.repeats_large

    for n in args.rules:
        _run(_project(work, n, "tests"), n, "tests", repeats(n), per_macro=args.per_macro)
    for n in args.rules_scan:
        _run(_project(work, n, "scan"), n, "scan", repeats(n), per_macro=args.per_macro)
    for n in args.rules_skipped:
        _run(_project(work, n, "tests", skipped=True), n, "tests", repeats(n), skipped=True, per_macro=args.per_macro)
    for n in args.rules_scan_skipped:
        _run(_project(work, n, "scan", skipped=True), n, "scan", repeats(n), skipped=True, per_macro=args.per_macro)
    print(f"load average after: {os.getloadavg()[0]:.1f}; projects under {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
