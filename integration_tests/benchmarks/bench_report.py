#!/usr/bin/env python3
"""Benchmark (not a test): `dataplex-dq report` end to end, at scale, on DuckDB.

    python integration_tests/benchmarks/bench_report.py [--rules 10000] [--sources 20] [--repeat 3]
        [--one-source 1000] [--one-source-repeat 1] [--skip-synthetic] [--keep]

1. Synthetic invocation of --rules rules on --sources data sources: builds a small dbt project once (one
   seed, one real rule), clones its test node --rules times in manifest.json and run_results.json and
   gives each clone its own metrics table (the way dbt leaves them: one relation per test). Then runs the
   whole report --repeat times, each in a fresh process (`dataplex-dq report` as the CLI runs it: imports,
   artifacts, fetching the metrics rows through dbt's adapter, scores, proto files, export of one row per
   rule, the summary), and prints min / median / max of the process's wall and CPU time, Python's start,
   the imports, the report itself and each of its steps (reading the artifacts, opening dbt's adapter, the
   phases), the time after the report until the process ended (DuckDB's checkpoint and close, Python's
   teardown), and the process's peak memory (VmHWM of /proc/self/status: Python and DuckDB).
2. --one-source N (0 skips it): N rules on ONE data source (Dataplex's maximum per scan is 1,000), in both
   forms, each a real dbt project: N per-rule tests, and one data_quality_scan of N rules. Per form, fresh
   processes: `dbt compile` (compile), `dbt test` (query: wall, and the test nodes' execution time), and
   the report (as in 1).

The load average is printed before and after: on a shared machine every time is an upper bound.
"""

from __future__ import annotations

import argparse
import copy
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
PHASES = ("fetch_metrics", "assemble_sources", "write_result_files", "export_results")
# also timed, outside those phases: reading manifest.json + run_results.json, and opening dbt's adapter
# (importing dbt, the profile and project, the package's macros; DuckDB's file opens on the first query)
SETUP = ("load_artifacts", "open_adapter")


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


def child(proj: Path, code: Path) -> None:
    """Run `dataplex-dq report` in this (fresh) process, timing its phases; print one JSON line.
    ``code``: the checkout whose python/ runs (to compare two versions on one project)."""
    started = time.perf_counter()
    started_at = time.time()
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
        setattr(report_module, name, timed(name))
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
                "maxrss_mb": maxrss_kb / 1024,
                "summary_tail": summary[-400:],
                "started_at": started_at,
                "done_at": time.time(),
            }
        ),
        flush=True,
    )
    # the process ends as the CLI ends it (cli.run: exit_now, without the interpreter's teardown), where the
    # code measured has it
    from dataplex_dq.cli import main as cli

    if hasattr(cli, "exit_now"):
        cli.exit_now(0)


def run_reports(proj: Path, repeat: int, expect_rules: int, code: Path = REPO) -> dict[str, list[float]]:
    """--repeat fresh processes of the report; per round its wall time, report time, phases, peak memory."""
    out: dict[str, list[float]] = {
        k: [] for k in ("wall", "startup", "imports", "report", "exit", "maxrss_mb", "cpu", *SETUP, *PHASES)
    }
    for _ in range(repeat):
        t0 = time.perf_counter()
        t0_at = time.time()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(proj), "--code", str(code)],
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
        for key in ("imports", "report", "maxrss_mb"):
            out[key].append(got[key])
        for name in (*SETUP, *PHASES):
            out[name].append(got["phases"].get(name, 0.0))
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
    print(f"      after the report (exit) {spread(r['exit'])}")
    print(f"    peak memory (VmHWM)       {spread(r['maxrss_mb'], ' MB')}")


# ----------------------------------------------------------------------------------------- 1. synthetic


def base_project(proj: Path, schema_yml: str, seed_rows: int = 1000) -> None:
    (proj / "seeds").mkdir(parents=True)
    (proj / "seeds" / "items.csv").write_text(
        "id,qty,amount,name\n" + "".join(f"{i},{i % 7},{(i * 37) % 1000 / 10},n{i % 50}\n" for i in range(seed_rows))
    )
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


def synthetic(work: Path, rules: int, sources: int) -> Path:
    import duckdb

    proj = work / "synthetic"
    base_project(
        proj,
        "version: 2\nseeds:\n  - name: items\n    columns:\n      - name: qty\n        data_tests:\n"
        "          - dataplex_dq.range_expectation:\n"
        "              {name: qty-small, arguments: {max_value: 5, threshold: 0.5, dimension: VALIDITY}}\n",
    )
    dbt(proj, "deps")
    dbt(proj, "build")
    target = proj / "target"
    manifest = json.loads((target / "manifest.json").read_text())
    run_results = json.loads((target / "run_results.json").read_text())
    test_uid = next(u for u, n in manifest["nodes"].items() if n["resource_type"] == "test")
    test_node = manifest["nodes"][test_uid]
    seed_node = manifest["nodes"][test_node["attached_node"]]
    result = next(r for r in run_results["results"] if r["unique_id"] == test_uid)

    t0 = time.perf_counter()
    con = duckdb.connect(str(proj / "bench.duckdb"))
    base_rel = test_node["relation_name"]
    schema = base_rel.split(".")[1]
    con.execute("begin")  # one transaction: 10,000 CREATE TABLEs in seconds, not minutes
    source_ids = []
    for s in range(sources):
        uid = f"seed.bench.items_{s}"
        node = copy.deepcopy(seed_node)
        node.update(unique_id=uid, name=f"items_{s}", alias="items")
        manifest["nodes"][uid] = node
        source_ids.append(uid)
    results = [r for r in run_results["results"] if r["unique_id"] != test_uid]
    test_text = json.dumps(test_node)
    for i in range(rules):
        uid = f"test.bench.rule-{i}.x"
        # the rule's name everywhere in the node, the identity dataplex_dq records at parse time included
        node = json.loads(test_text.replace("qty-small", f"rule-{i}"))
        rel = f'{schema}."dq_rule_{i}"'
        src = source_ids[i % sources]
        node.update(unique_id=uid, name=f"rule-{i}", attached_node=src, relation_name=rel)
        node["config"]["meta"]["dataplex_dq_rules"][0]["rule"]["name"] = f"rule-{i}"  # recorded at parse time
        node["depends_on"]["nodes"] = [src]
        manifest["nodes"][uid] = node
        r = copy.deepcopy(result)
        r.update(unique_id=uid, relation_name=rel, status="pass" if i % 10 else "fail", failures=0 if i % 10 else 1)
        results.append(r)
        # the clone's row, packed again as DuckDB's metrics relations carry it (macros/metrics.sql, metrics_packed)
        con.execute(
            f"create or replace table {rel} as select dq_c.*, to_json(dq_c) as dq_row from ("
            f"select * exclude (dq_row) replace ("
            f"'{uid}' as dq_test_unique_id, '{src}' as dq_data_source, 'rule-{i}' as rule_name, "
            f"{'true' if i % 10 else 'false'} as passed, '{'PASSED' if i % 10 else 'FAILED'}' as rule_status, "
            f"replace(rule_spec, 'qty-small', 'rule-{i}') as rule_spec) from {base_rel}) as dq_c"
        )
    con.execute("drop table if exists main.dataplex_dq_results")
    con.execute("commit")
    con.close()
    del manifest["nodes"][test_uid]
    run_results["results"] = results
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "run_results.json").write_text(json.dumps(run_results))
    print(
        f"setup: {rules} rules on {sources} data sources in {time.perf_counter() - t0:.1f}s "
        f"(manifest.json {(target / 'manifest.json').stat().st_size / 1e6:.1f} MB)"
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


def one_source_project(work: Path, n: int, form: str) -> Path:
    rules = one_source_rules(n)
    lines = ["version: 2", "seeds:", "  - name: items"]
    if form == "scan":
        scan_rules = [{"name": name, **({"column": col} if col else {}), key: args} for name, key, col, args in rules]
        for r in scan_rules:  # the dimension and threshold sit beside the rule type's fields in a scan
            fields = r[next(k for k in r if k.endswith("_expectation"))]
            for common in ("dimension", "threshold"):
                if common in fields:
                    r[common] = fields.pop(common)
        scan = f"dataplex_dq.data_quality_scan: {{name: scan-{n}, arguments: {{rules: {json.dumps(scan_rules)}}}}}"
        lines += ["    data_tests:", f"      - {scan}"]
    else:
        by_column: dict[str | None, list[str]] = {}
        for name, key, col, args in rules:
            by_column.setdefault(col, []).append(f"dataplex_dq.{key}: {{name: {name}, arguments: {json.dumps(args)}}}")
        lines += ["    data_tests:", *[f"      - {t}" for t in by_column.pop(None, [])], "    columns:"]
        for col, tests in by_column.items():
            lines += [f"      - name: {col}", "        data_tests:", *[f"          - {t}" for t in tests]]
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


# ----------------------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=int, default=10_000)
    ap.add_argument("--sources", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="fresh report processes on the synthetic invocation")
    ap.add_argument("--one-source", type=int, default=1000, help="rules on one data source, both forms (0: skip)")
    ap.add_argument("--one-source-repeat", type=int, default=1, help="rounds of the one-data-source case")
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--synthetic-project", help="reuse the synthetic project of an earlier --keep run")
    ap.add_argument("--keep", action="store_true", help="keep the generated projects")
    ap.add_argument("--code", default=str(REPO), help="the checkout whose python/ the report runs (default: this one)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(Path(args.child), Path(args.code))
        return 0

    work = Path(tempfile.mkdtemp(prefix="bench_report_"))
    print(f"{load()} at the start; timings on a shared machine are upper bounds")
    try:
        if not args.skip_synthetic:
            given = args.synthetic_project
            proj = Path(given) if given else synthetic(work, args.rules, args.sources)
            r = run_reports(proj, args.repeat, args.rules, Path(args.code))
            print(f"\n{args.rules} rules on {args.sources} data sources ({load()}), code of {args.code}")
            print_reports("dataplex-dq report", r)
        if args.one_source:
            one_source(work, args.one_source, args.one_source_repeat)
    finally:
        print(f"\n{load()} at the end")
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
