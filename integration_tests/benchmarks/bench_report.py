#!/usr/bin/env python3
"""Benchmark (not a test): `dataplex-dq report` end to end, at scale, on DuckDB.

    python integration_tests/benchmarks/bench_report.py [--rules 10000] [--sources 20] [--form scan] [--repeat 3]
        [--one-source 1000] [--one-source-repeat 1] [--skip-synthetic] [--keep]
        [--wide 1000] [--wide-rules 1000] [--wide-repeat 3] [--variant NAME=CODE[,MANIFEST] ...]

1. A recorded invocation of --rules rules on --sources data sources: a dbt project of --sources seeds,
   each with its share of the rules (--form scan: one named data_quality_scan per seed, at most 1,000
   rules each; --form tests: one per-rule test per rule, far slower to build), built once with `dbt build`,
   whose on-run-end hook (the package's own: the results table's one writer) records one row per rule.
   Then runs the whole report of that invocation --repeat times, each in a fresh process (`dataplex-dq
   report` as the CLI runs it: imports, the artifacts, the recorded rows read in one query, the protos, every
   output, the summary), and prints min / median / max of the process's wall and CPU time, Python's start,
   the imports, the report itself and each of its steps (reading manifest.json + run_results.json, opening
   dbt's adapter, reading the recorded rows, the protos, the outputs and each output), the time after the
   report until the process ended (DuckDB's close, Python's teardown), the process's peak memory
   (VmHWM of /proc/self/status: Python and DuckDB) and Python's garbage collections until the report's end (a
   callback counts and times them: the full ones walk every live object). The setup's `dbt build` is timed once.
2. --one-source N (0 skips it): N rules on ONE data source (Dataplex's maximum per scan is 1,000), in both
   forms, each a real dbt project: N per-rule tests, and one data_quality_scan of N rules. Per form, fresh
   processes: `dbt compile` (compile), `dbt test` (query and the package's hook recording the rows: wall,
   and the test nodes' execution time), and the report (as in 1).
3. --wide N (0, the default, skips it): one data_quality_scan of --wide-rules rules over ONE seed of N columns
   (rule i on column i mod N, a mix of rule types, about 1 in 10 failing), built once with `dbt build`; then
   --wide-repeat fresh processes of the whole report with --html (failing-row samples on), as in 1, and the
   HTML page's size in bytes.
--variant NAME=CODE[,MANIFEST] (twice or more): compare checkouts on the same projects in alternating rounds (each
   variant going first in turn): each round runs each variant's report with its checkout's python/ and, when given,
   its manifest.json (the package macros it renders, e.g. one written by the older checkout's `dbt build`) copied
   into the project's target/ first; the project's own manifest.json is put back at the end.

The load average is printed before and after: on a shared machine every time is an upper bound.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# the report's steps (run/report.py), each timed by wrapping the function run_report calls:
#   load_artifacts     manifest.json + run_results.json
#   open_adapter       dbt's adapter (Warehouse.__enter__: the profile and project, the package's macros)
#   read_rows          the invocation's recorded rows, one query (run/recorded.py)
#   read_recorded_run  its column scores (a second query) and the rows grouped into typed jobs
#   source_reports     per data source its DataQualityResult (the protos)
#   run_outputs        every output of outputs/registry.py, in turn (each also timed: "output: NAME")
SETUP = ("load_artifacts", "open_adapter")
GC = ("gc_full", "gc_full_s", "gc_young_s")  # Python's garbage collections in the process until the report's end
PHASES = ("read_rows", "read_recorded_run", "source_reports", "run_outputs")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def spread(values: list[float], unit: str = "s") -> str:
    if not values:
        return "-"
    return f"{min(values):7.2f}{unit} {statistics.median(values):7.2f}{unit} {max(values):7.2f}{unit}"


def peak_rss_kb() -> int:
    """This process's peak resident memory in kilobytes: VmHWM, the high-water mark of its own address space.

    Not getrusage's ru_maxrss: Linux carries that across exec from the process that forked, so a report
    started by this script after it built a 10,000-rule manifest in memory would show this script's peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux


def dbt_exe() -> str:
    exe = Path(sys.executable).parent / "dbt"
    return str(exe if exe.exists() else shutil.which("dbt"))


def dbt(proj: Path, *args: str, check: bool = True) -> tuple[float, dict[str, Any]]:
    """One dbt command as a fresh process: (wall seconds, run_results.json or {})."""
    env = {**os.environ, "DBT_PROFILES_DIR": str(proj), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [dbt_exe(), *args, "--project-dir", str(proj)], cwd=proj, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if check and proc.returncode not in (0, 1):
        raise SystemExit(
            f"dbt {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}"
        )
    rr = proj / "target" / "run_results.json"
    return wall, json.loads(rr.read_text()) if rr.exists() and args[0] != "deps" else {}


# ----------------------------------------------------------------------------------------- the report, one process


def child(proj: Path, code: Path, html: str | None = None) -> None:
    """Run `dataplex-dq report` in this (fresh) process, timing its phases; print one JSON line.
    ``code``: the checkout whose python/ runs (to compare two versions on one project)."""
    started = time.perf_counter()
    started_at = time.time()
    collected = watch_collections()
    sys.path.insert(0, str(code / "python"))
    import io

    from rich.console import Console

    from dataplex_dq.cli.report import _run_report
    from dataplex_dq.run import report as report_module

    spent: dict[str, float] = {}

    def timed(name: str) -> Any:
        inner = getattr(report_module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t

        return wrapper

    for name in (*PHASES, "load_artifacts"):
        if hasattr(report_module, name):  # an older checkout (--code) may not have every step
            setattr(report_module, name, timed(name))
    if hasattr(report_module, "OUTPUTS"):
        report_module.OUTPUTS = tuple(TimedOutput(output, spent) for output in report_module.OUTPUTS)
    enter = report_module.Warehouse.__enter__

    def open_adapter(self: Any) -> Any:
        t = time.perf_counter()
        try:
            return enter(self)
        finally:
            spent["open_adapter"] = spent.get("open_adapter", 0.0) + time.perf_counter() - t

    report_module.Warehouse.__enter__ = open_adapter  # type: ignore[method-assign]
    imported = time.perf_counter()
    out = io.StringIO()
    profile = None
    if os.environ.get("BENCH_PROFILE"):  # BENCH_PROFILE=FILE: a cProfile of the report (pstats format)
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    code = _run_report(
        project_dir=proj,
        profiles_dir=proj,
        target=None,
        target_path=proj / "target",
        export=True,
        fail_on_rule_failure=False,
        console=Console(file=out, width=160),
        **({"html": html} if html else {}),
    )
    done = time.perf_counter()
    if profile is not None:
        profile.disable()
        profile.dump_stats(os.environ["BENCH_PROFILE"])
    maxrss_kb = peak_rss_kb()
    summary = out.getvalue()
    print(
        json.dumps(
            {
                "code": code,
                "imports": imported - started,
                "report": done - imported,
                "phases": spent,
                **collected,
                "maxrss_mb": maxrss_kb / 1024,
                "html_bytes": Path(html).stat().st_size if html and Path(html).exists() else 0,
                "summary_tail": summary[-400:],
                "started_at": started_at,
                "done_at": time.time(),
            }
        ),
        flush=True,
    )
    # the process then ends as the CLI ends it: sys.exit, the interpreter's own teardown (an older checkout
    # given with --code may end with its cli.exit_now instead, os._exit without the teardown)
    from dataplex_dq.cli import main as cli

    if hasattr(cli, "exit_now"):
        cli.exit_now(0)


def watch_collections() -> dict[str, float]:
    """Python's garbage collections from now on, counted and timed (a callback only: the collector is left as it
    is): full ones (each walks every live object, dbt's ~170,000 too) and the younger generations'."""
    import gc

    out = {"gc_full": 0.0, "gc_full_s": 0.0, "gc_young_s": 0.0}
    began = [0.0]

    def on_collection(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
            return
        took = time.perf_counter() - began[0]
        if info["generation"] == 2:
            out["gc_full"] += 1
            out["gc_full_s"] += took
        else:
            out["gc_young_s"] += took

    gc.callbacks.append(on_collection)
    return out


class TimedOutput:
    """One output of outputs/registry.py, its `write` timed into ``spent["output: NAME"]``."""

    def __init__(self, output: Any, spent: dict[str, float]) -> None:
        self.output, self.spent, self.name = output, spent, output.name

    def write(self, ctx: Any) -> None:
        t = time.perf_counter()
        try:
            self.output.write(ctx)
        finally:
            key = f"output: {self.name}"
            self.spent[key] = self.spent.get(key, 0.0) + time.perf_counter() - t


def run_reports(
    proj: Path, repeat: int, expect_rules: int, code: Path = REPO, html: Path | None = None
) -> dict[str, list[float]]:
    """--repeat fresh processes of the report; per round its wall time, report time, phases, peak memory (and,
    with ``html``, the page's size in bytes)."""
    keys = ("wall", "startup", "imports", "report", "exit", "maxrss_mb", "html_bytes", "cpu", *SETUP, *PHASES, *GC)
    out: dict[str, list[float]] = {k: [] for k in keys}
    for _ in range(repeat):
        t0 = time.perf_counter()
        t0_at = time.time()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(proj), "--code", str(code)]
            + (["--child-html", str(html)] if html else []),
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - t0
        t1_at = time.time()
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or not lines:
            raise SystemExit(f"report failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        got = json.loads(lines[-1])
        if got["code"] not in (0, 1):
            raise SystemExit(f"report exit {got['code']}:\n{got['summary_tail']}")
        out["wall"].append(wall)
        out["cpu"].append(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime)
        # before the child's first line runs (Python's start) and after its report (freeing, closing, exit)
        out["startup"].append(got["started_at"] - t0_at)
        out["exit"].append(t1_at - got["done_at"])
        for key in ("imports", "report", "maxrss_mb", "html_bytes", *GC):
            out[key].append(got.get(key, 0))
        for name in (*SETUP, *PHASES):
            out[name].append(got["phases"].get(name, 0.0))
        for name, seconds in got["phases"].items():
            if name.startswith("output: "):
                out.setdefault(name, []).append(seconds)
    rows = exported_rows(proj)
    if rows != expect_rules:
        raise SystemExit(f"the results table holds {rows} rows of this invocation, expected {expect_rules}")
    return out


def exported_rows(proj: Path) -> int:
    import duckdb

    run_results = json.loads((proj / "target" / "run_results.json").read_text())
    invocation = run_results["metadata"]["invocation_id"]
    con = duckdb.connect(str(proj / "bench.duckdb"), read_only=True)
    try:
        row = con.execute(
            "select count(*) from main.dataplex_dq_results where dbt_invocation_id = ?", [invocation]
        ).fetchone()
        return int(row[0]) if row else 0
    finally:
        con.close()


def print_reports(label: str, r: dict[str, list[float]]) -> None:
    print(f"  {label}: {len(r['wall'])} fresh processes, min / median / max")
    print(f"    whole process (wall)      {spread(r['wall'])}")
    print(f"    whole process (CPU)       {spread(r['cpu'])}")
    print(f"      Python start            {spread(r['startup'])}")
    print(f"      imports                 {spread(r['imports'])}")
    print(f"      report (in process)     {spread(r['report'])}")
    for name in (*SETUP, *PHASES):
        print(f"        {name:22}  {spread(r[name])}")
        if name == "run_outputs":
            for output in (k for k in r if k.startswith("output: ")):
                print(f"          {output[8:]:20}  {spread(r[output])}")
    print(f"      after the report (exit) {spread(r['exit'])}")
    print(f"    full garbage collections  {spread(r['gc_full'], ' ')}  (until the report's end)")
    print(f"      their time              {spread(r['gc_full_s'])}")
    print(f"      younger generations'    {spread(r['gc_young_s'])}")
    print(f"    peak memory (VmHWM)       {spread(r['maxrss_mb'], ' MB')}")
    if any(r["html_bytes"]):
        print(f"    HTML page                 {spread([b / 1e6 for b in r['html_bytes']], ' MB')}")


# ----------------------------------------------------------------------------------------- 1. synthetic


def base_project(
    proj: Path, schema_yml: str, seeds: tuple[str, ...] | list[str] = ("items",), seed_rows: int = 1000
) -> None:
    (proj / "seeds").mkdir(parents=True)
    data = "id,qty,amount,name\n" + "".join(f"{i},{i % 7},{(i * 37) % 1000 / 10},n{i % 50}\n" for i in range(seed_rows))
    for seed in seeds:
        (proj / "seeds" / f"{seed}.csv").write_text(data)
    (proj / "models").mkdir()
    (proj / "models" / "schema.yml").write_text(schema_yml)
    (proj / "dbt_project.yml").write_text(
        'name: bench\nversion: "1.0"\nconfig-version: 2\nprofile: bench\nflags:\n  send_anonymous_usage_stats: false\n'
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    db = proj / "bench.duckdb"
    (proj / "profiles.yml").write_text(
        f"bench:\n  target: dev\n  outputs:\n    dev: {{type: duckdb, path: '{db}', threads: 1}}\n"
    )


def synthetic(work: Path, rules: int, sources: int, form: str = "scan") -> Path:
    """A dbt project of ``sources`` seeds sharing ``rules`` rules (one_source_rules' mix of rule types),
    built once with `dbt build`: the package's on-run-end hook records one row per rule."""
    proj = work / "synthetic"
    lines = ["version: 2", "seeds:"]
    for s in range(sources):
        mine = one_source_rules(len(range(s, rules, sources)))
        mine = [(f"s{s:02d}-{name}", key, col, args) for name, key, col, args in mine]
        lines += [f"  - name: items_{s}", *rule_tests(mine, form, f"scan-items-{s}", indent="    ")]
    base_project(proj, "\n".join(lines) + "\n", seeds=[f"items_{s}" for s in range(sources)], seed_rows=200)
    dbt(proj, "deps")
    wall, rr = dbt(proj, "build")
    tests = [r for r in rr.get("results") or [] if r["unique_id"].startswith("test.")]
    size = (proj / "target" / "manifest.json").stat().st_size / 1e6
    print(
        f"setup: {rules} rules on {sources} data sources ({len(tests)} tests, form {form}), dbt build with the "
        f"package's on-run-end hook in {wall:.1f}s (manifest.json {size:.1f} MB)"
    )
    return proj


# ----------------------------------------------------------------------------------------- 2. one data source


def one_source_rules(n: int) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    """n rules on the seed `items` (id, qty, amount, name), cycling through the rule types:
    (name, test / scan key, column or None, arguments)."""
    out: list[tuple[str, str, str | None, dict[str, Any]]] = []
    for i in range(n):
        kind = i % 7
        name = f"r{i:04d}"
        if kind == 0:
            out.append((name, "range_expectation", "qty", {"min_value": "0", "max_value": str(i % 9)}))
        elif kind == 1:
            out.append((name, "non_null_expectation", "amount", {"dimension": "COMPLETENESS"}))
        elif kind == 2:
            out.append((name, "set_expectation", "name", {"values": [f"n{j}" for j in range(1 + i % 50)]}))
        elif kind == 3:
            out.append((name, "regex_expectation", "name", {"regex": f"^n[0-{i % 10}]"}))
        elif kind == 4:
            out.append((name, "row_condition_expectation", None, {"sql_expression": f"qty * amount < {i}"}))
        elif kind == 5:
            out.append((name, "statistic_range_expectation", "amount", {"statistic": "MEAN", "max_value": str(i)}))
        else:
            out.append((name, "range_expectation", "amount", {"min_value": str(i % 100), "threshold": 0.5}))
    return out


def rule_tests(
    rules: list[tuple[str, str, str | None, dict[str, Any]]], form: str, scan_name: str, indent: str
) -> list[str]:
    """The schema.yml lines of one seed's rules: one named data_quality_scan (form "scan"), or one per-rule
    test per rule (form "tests")."""
    lines = []
    if form == "scan":
        scan_rules = [{"name": name, **({"column": col} if col else {}), key: args} for name, key, col, args in rules]
        for r in scan_rules:  # the dimension and threshold sit beside the rule type's fields in a scan
            fields = r[next(k for k in r if k.endswith("_expectation"))]
            for common in ("dimension", "threshold"):
                if common in fields:
                    r[common] = fields.pop(common)
        scan = f"dataplex_dq.data_quality_scan: {{name: {scan_name}, arguments: {{rules: {json.dumps(scan_rules)}}}}}"
        lines += [f"{indent}data_tests:", f"{indent}  - {scan}"]
    else:
        by_column: dict[str | None, list[str]] = {}
        for name, key, col, args in rules:
            by_column.setdefault(col, []).append(f"dataplex_dq.{key}: {{name: {name}, arguments: {json.dumps(args)}}}")
        lines += [f"{indent}data_tests:", *[f"{indent}  - {t}" for t in by_column.pop(None, [])], f"{indent}columns:"]
        for col, tests in by_column.items():
            lines += [f"{indent}  - name: {col}", f"{indent}    data_tests:", *[f"{indent}      - {t}" for t in tests]]
    return lines


def one_source_project(work: Path, n: int, form: str) -> Path:
    lines = ["version: 2", "seeds:", "  - name: items", *rule_tests(one_source_rules(n), form, f"scan-{n}", "    ")]
    proj = work / f"one_source_{form}"
    base_project(proj, "\n".join(lines) + "\n")
    dbt(proj, "deps")
    dbt(proj, "seed")
    return proj


def one_source(work: Path, n: int, repeat: int) -> None:
    for form, label in (("tests", f"{n} per-rule tests"), ("scan", f"one data_quality_scan of {n} rules")):
        proj = one_source_project(work, n, form)
        compile_wall: list[float] = []
        test_wall: list[float] = []
        test_nodes: list[float] = []
        reports: dict[str, list[float]] = {}
        for _ in range(repeat):
            wall, _ = dbt(proj, "compile", "--select", "items")
            compile_wall.append(wall)
            wall, rr = dbt(proj, "test", "--select", "items")
            test_wall.append(wall)
            results = [r for r in rr.get("results") or [] if r["unique_id"].startswith("test.")]
            expected = n if form == "tests" else 1
            if len(results) != expected:
                raise SystemExit(f"{label}: dbt test ran {len(results)} tests, expected {expected}")
            test_nodes.append(sum(float(r.get("execution_time") or 0.0) for r in results))
            for key, values in run_reports(proj, 1, n).items():
                reports.setdefault(key, []).extend(values)
        print(f"\n{label} on one data source ({load()}), {repeat} round(s), min / median / max")
        print(f"  compile: dbt compile (wall)        {spread(compile_wall)}")
        print(f"  query:   dbt test (wall)           {spread(test_wall)}")
        print(f"           its test nodes' execution {spread(test_nodes)}")
        print_reports("report", reports)


# ----------------------------------------------------------------------------------------- 3. a wide table


def wide_rules(rules: int, columns: int) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    """``rules`` rules over the columns c0000 .. of wide_project's seed, rule i on column i mod ``columns``;
    about one in ten fails (range and regex rules on some columns)."""
    out: list[tuple[str, str, str | None, dict[str, Any]]] = []
    for i in range(rules):
        c = i % columns
        col = f"c{c:04d}"
        fail = i % 10 == 3
        if c % 3 == 0:  # integer column: values 0 .. 99
            out.append((f"w{i:04d}", "range_expectation", col, {"min_value": "0", "max_value": "49" if fail else "99"}))
        elif c % 3 == 1:  # double column: some NULLs
            key = "non_null_expectation" if i % 2 else "statistic_range_expectation"
            args: dict[str, Any] = (
                {"dimension": "COMPLETENESS"} if i % 2 else {"statistic": "MEAN", "max_value": "1000"}
            )
            out.append((f"w{i:04d}", key, col, args))
        else:  # text column: v0 .. v9
            regex = "^v[0-4]$" if fail else "^v[0-9]$"
            out.append((f"w{i:04d}", "regex_expectation", col, {"regex": regex, "dimension": "VALIDITY"}))
    return out


def wide_project(work: Path, columns: int, rules: int, rows: int = 100) -> Path:
    """One seed of ``columns`` columns and one named data_quality_scan of ``rules`` rules on it, built once."""
    proj = work / "wide"
    header = ",".join(f"c{c:04d}" for c in range(columns))

    def cell(r: int, c: int) -> str:
        if c % 3 == 0:
            return str((r * 7 + c) % 100)
        if c % 3 == 1:
            return "" if (r + c) % 17 == 0 else f"{(r * 13 + c) % 1000 / 10}"
        return f"v{(r + c) % 10}"

    data = header + "\n" + "".join(",".join(cell(r, c) for c in range(columns)) + "\n" for r in range(rows))
    scan = rule_tests(wide_rules(rules, columns), "scan", "scan-wide", "    ")
    lines = ["version: 2", "seeds:", "  - name: wide", *scan]
    base_project(proj, "\n".join(lines) + "\n", seeds=())
    (proj / "seeds" / "wide.csv").write_text(data)
    dbt(proj, "deps")
    wall, rr = dbt(proj, "build")
    size = (proj / "target" / "manifest.json").stat().st_size / 1e6
    print(
        f"setup: {rules} rules in one data_quality_scan over one seed of {columns} columns and {rows} rows, "
        f"dbt build in {wall:.1f}s (manifest.json {size:.1f} MB, {len(rr.get('results') or [])} results)"
    )
    return proj


def wide(work: Path, columns: int, rules: int, repeat: int, *, code: Path, given: str | None) -> None:
    proj = Path(given) if given else wide_project(work, columns, rules)
    page = proj / "target" / "dataplex_dq" / "index.html"
    r = run_reports(proj, repeat, rules, code, html=page)
    print(f"\n{rules} rules in one scan over {columns} columns, with --html ({load()}), code of {code}")
    print_reports("dataplex-dq report --html", r)


def compare(
    proj: Path, variants: list[tuple[str, Path, Path | None]], repeat: int, rules: int, html: Path | None = None
) -> dict[str, dict[str, list[float]]]:
    """``repeat`` rounds; in each, every variant's report once, the order rotated by one each round."""
    manifest = proj / "target" / "manifest.json"
    saved = manifest.read_bytes()
    out: dict[str, dict[str, list[float]]] = {}
    try:
        for round_ in range(repeat):
            k = round_ % len(variants)
            for name, code, own in variants[k:] + variants[:k]:
                manifest.write_bytes(own.read_bytes() if own else saved)
                for key, values in run_reports(proj, 1, rules, code, html=html).items():
                    out.setdefault(name, {}).setdefault(key, []).extend(values)
    finally:
        manifest.write_bytes(saved)
    return out


def parse_variant(text: str) -> tuple[str, Path, Path | None]:
    name, _, rest = text.partition("=")
    code, _, manifest = rest.partition(",")
    return name, Path(code), Path(manifest) if manifest else None


# ----------------------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=int, default=10_000)
    ap.add_argument("--sources", type=int, default=20)
    ap.add_argument(
        "--form",
        choices=("scan", "tests"),
        default="scan",
        help="the synthetic rules: a scan per seed, or per-rule tests",
    )
    ap.add_argument("--repeat", type=int, default=3, help="fresh report processes on the synthetic invocation")
    ap.add_argument("--one-source", type=int, default=1000, help="rules on one data source, both forms (0: skip)")
    ap.add_argument("--one-source-repeat", type=int, default=1, help="rounds of the one-data-source case")
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--synthetic-project", help="reuse the synthetic project of an earlier --keep run")
    ap.add_argument("--keep", action="store_true", help="keep the generated projects")
    ap.add_argument("--code", default=str(REPO), help="the checkout whose python/ the report runs (default: this one)")
    ap.add_argument("--wide", type=int, default=0, help="columns of the wide table (0: skip the wide case)")
    ap.add_argument("--wide-rules", type=int, default=1000, help="rules of the wide table's scan")
    ap.add_argument("--wide-repeat", type=int, default=3, help="fresh report processes on the wide table")
    ap.add_argument("--wide-project", help="reuse the wide project of an earlier --keep run")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=CODE[,MANIFEST]",
        help="compare checkouts in alternating rounds (give two or more)",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-html", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(Path(args.child), Path(args.code), args.child_html)
        return 0

    work = Path(tempfile.mkdtemp(prefix="bench_report_"))
    print(f"{load()} at the start; timings on a shared machine are upper bounds")
    try:
        if not args.skip_synthetic:
            given = args.synthetic_project
            proj = Path(given) if given else synthetic(work, args.rules, args.sources, args.form)
            if args.variant:
                for name, r in compare(proj, [parse_variant(v) for v in args.variant], args.repeat, args.rules).items():
                    print(f"\n{args.rules} rules on {args.sources} data sources ({load()}), variant {name}")
                    print_reports(f"dataplex-dq report, {name}", r)
            else:
                r = run_reports(proj, args.repeat, args.rules, Path(args.code))
                print(f"\n{args.rules} rules on {args.sources} data sources ({load()}), code of {args.code}")
                print_reports("dataplex-dq report", r)
        if args.one_source:
            one_source(work, args.one_source, args.one_source_repeat)
        if args.wide and args.variant:
            proj = Path(args.wide_project) if args.wide_project else wide_project(work, args.wide, args.wide_rules)
            page = proj / "target" / "dataplex_dq" / "index.html"
            variants = [parse_variant(v) for v in args.variant]
            for name, r in compare(proj, variants, args.wide_repeat, args.wide_rules, html=page).items():
                print(
                    f"\n{args.wide_rules} rules in one scan over {args.wide} columns, --html ({load()}), variant {name}"
                )
                print_reports(f"dataplex-dq report --html, {name}", r)
        elif args.wide:
            wide(work, args.wide, args.wide_rules, args.wide_repeat, code=Path(args.code), given=args.wide_project)
    finally:
        print(f"\n{load()} at the end")
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
