"""Benchmark: what dataplex_dq costs at `dbt parse` and `dbt compile` time (not a test).

    python integration_tests/benchmarks/bench_compile.py [--rules 600] [--scan-rules 150] [--repeat 3] [--keep]
                                                          [--only trivial,per_rule,...] [--threads 4]
                                                          [--package before=/path/to/old/checkout ...]

On DuckDB, four tables (10 columns each, a few rows; the rules' SQL is never run), and four dbt projects
over the same tables:

  trivial         --rules trivial dbt tests (not_null, accepted_values, unique) spread over the tables;
  per_rule        --rules per-rule dataplex_dq tests, a realistic mix of every rule type over the same
                  tables, no data_type declared on the columns (the column types come from the warehouse);
  per_rule_typed  the same rules with every column's data_type declared in schema.yml;
  scan            one dataplex_dq.data_quality_scan of --scan-rules rules on one table.

Each project is parsed and compiled as fresh processes, --repeat rounds taking the projects in turn (so
each variant sees the same machine load): `dbt parse --no-partial-parse` (a full parse), then
`dbt compile` (which reads the partial parse the parse just wrote, so its time is start-up plus compiling
every node). Prints min / median / max of each, as wall time and as CPU time (user + system of the dbt
process: far less sensitive than wall time to other processes on a shared machine), the ratio of each
median to trivial's, and the load average after each round. `nodes` is the compile phase of the test
nodes as dbt reports it (run_results.json, summed over the tests): the Jinja of the tests themselves,
without dbt's start-up (issue 32: a 20-rule scan, and 20 per-rule tests together, in <= 0.3 s), wall
time, summed over dbt's threads (give --threads 1 for this figure); `nodes cpu` is the CPU time of the
thread compiling each test node (`dbt compile` is started through a small driver that times dbt's
compile step of each node with time.thread_time(): a figure other processes on the machine hardly
move), summed over the tests (the models dbt compiles too, the package's result models among them,
are left out).

--package NAME=PATH (repeatable) measures the dataplex_dq package at PATH (a checkout, e.g. from
`git archive`), each in the same rounds, so a before / after comparison runs under the same load;
without it, the package is this checkout. Trivial tests do not use the package: measured once.

--per-macro (issue 32 item 1) ranks where the test nodes' compile goes, per macro of the package: in each
fresh `dbt compile`, a probe driver times (CPU of dbt's thread) every macro dbt compiles into a Python
template for the first time in the process while it compiles a test node, and counts the calls; it prints,
per project and package, each macro's source size (KB, and KB without Jinja comments), calls, compile ms
(median over --repeat), the totals, metadata queries and Python's garbage collection inside the nodes' CPU.
The probe only measures: it wraps dbt's template cache from the outside, the package is not changed.

The generated projects and DuckDB file live in a temporary folder (kept with --keep).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DBT = str(Path(sys.executable).with_name("dbt"))

TABLES = ["orders", "customers", "payments", "events"]
# (column, DuckDB type as declared and as created)
COLUMNS: list[tuple[str, str]] = [
    ("id", "bigint"),
    ("customer_id", "bigint"),
    ("amount", "decimal(12,2)"),
    ("qty", "integer"),
    ("status", "varchar"),
    ("email", "varchar"),
    ("created_on", "date"),
    ("updated_at", "timestamp"),
    ("score", "double"),
    ("is_active", "boolean"),
]


def model_sql() -> str:
    return textwrap.dedent("""\
        {{ config(materialized='table') }}
        select
          cast(i as bigint) as id,
          cast(i % 7 as bigint) as customer_id,
          cast(i * 1.5 as decimal(12,2)) as amount,
          cast(i % 5 as integer) as qty,
          case when i % 2 = 0 then 'active' else 'inactive' end as status,
          'user' || i || '@example.com' as email,
          cast(date '2024-01-01' + cast(i as integer) as date) as created_on,
          timestamp '2024-01-01 00:00:00' + to_seconds(i) as updated_at,
          i / 3.0 as score,
          i % 3 = 0 as is_active
        from range(10) r(i)
        """)


# ----------------------------------------------------------------------------------------- rules


def dq_rule(i: int) -> tuple[str, str | None, dict[str, Any]]:
    """The i-th per-rule test: (rule type, column or None, arguments). A mix as users write them:
    mostly column checks, a few table-level ones."""
    k = i % 20
    if k in (0, 1, 2):
        col = ["id", "customer_id", "status", "email", "created_on"][i % 5]
        return "non_null_expectation", col, {"dimension": "COMPLETENESS"}
    if k in (3, 4):
        return "range_expectation", "amount", {"min_value": "0", "max_value": str(1000 + i), "ignore_null": True}
    if k == 5:
        return "range_expectation", "qty", {"min_value": 0, "max_value": 100 + i, "strict_max_enabled": True}
    if k == 6:
        return "range_expectation", "created_on", {"min_value": "2020-01-01", "max_value": f"{2030 + i % 50}-12-31"}
    if k == 7:
        return "range_expectation", "updated_at", {"min_value": "2020-01-01 00:00:00"}
    if k in (8, 9):
        return "set_expectation", "status", {"values": ["active", "inactive", f"v{i}"], "ignore_null": True}
    if k == 10:
        return "set_expectation", "qty", {"values": [0, 1, 2, 3, 4, i]}
    if k in (11, 12):
        return "regex_expectation", "email", {"regex": "^[a-z0-9.]+@example[.]com$", "threshold": 0.95}
    if k == 13:
        return "uniqueness_expectation", "id", {"dimension": "UNIQUENESS"}
    if k == 14:
        return "statistic_range_expectation", "amount", {"statistic": "MEAN", "min_value": "0", "max_value": str(i)}
    if k == 15:
        return "statistic_range_expectation", "qty", {"statistic": "MAX", "max_value": str(i)}
    if k in (16, 17):
        return "row_condition_expectation", None, {"sql_expression": f"qty >= 0 and amount < {1000 + i}"}
    if k == 18:
        return "table_condition_expectation", None, {"sql_expression": f"count(*) < {100000 + i}"}
    return "sql_assertion", None, {"sql_statement": f"select * from ${{data()}} where qty < -{i}"}


def trivial_test(i: int) -> tuple[str, str, dict[str, Any]]:
    """The i-th trivial dbt test: (test, column, arguments)."""
    k = i % 4
    col = [c for c, _ in COLUMNS][i % len(COLUMNS)]
    if k in (0, 1):
        return "not_null", col, {}
    if k == 2:
        return "accepted_values", "status", {"values": ["active", "inactive", f"v{i}"]}
    return "unique", "id", {}


def _yaml(value: Any) -> str:
    import json

    return json.dumps(value)


def _args(args: dict[str, Any], indent: str) -> str:
    return "".join(f"{indent}{key}: {_yaml(value)}\n" for key, value in args.items())


def schema_yml(kind: str, rules: int, scan_rules: int) -> str:
    """schema.yml of one project: per table, its columns (with data_type in per_rule_typed) and tests."""
    column_tests: dict[str, dict[str, list[str]]] = {t: {c: [] for c, _ in COLUMNS} for t in TABLES}
    table_tests: dict[str, list[str]] = {t: [] for t in TABLES}
    if kind in ("trivial", "per_rule", "per_rule_typed"):
        for i in range(rules):
            table = TABLES[i % len(TABLES)]
            name = f"{table}-r{i:04d}"
            if kind == "trivial":
                test, col, args = trivial_test(i)
                block = f"          - {test}:\n              name: {_yaml(name)}\n"
                if args:
                    block += "              arguments:\n" + _args(args, "                ")
                column_tests[table][col].append(block)
                continue
            rule_type, col, args = dq_rule(i)
            if col is None:
                block = f"      - dataplex_dq.{rule_type}:\n          name: {_yaml(name)}\n          arguments:\n"
                table_tests[table].append(block + _args(args, "            "))
            else:
                block = f"          - dataplex_dq.{rule_type}:\n              name: {_yaml(name)}\n"
                block += "              arguments:\n"
                column_tests[table][col].append(block + _args(args, "                "))
    if kind == "scan":
        lines = ["      - dataplex_dq.data_quality_scan:\n", "          name: orders_scan\n", "          arguments:\n"]
        lines.append("            rules:\n")
        for i in range(scan_rules):
            rule_type, col, args = dq_rule(i)
            lines.append(f"              - name: {_yaml(f'scan-r{i:04d}')}\n")
            if col is not None:
                lines.append(f"                column: {col}\n")
            common = {k: v for k, v in args.items() if k in ("dimension", "threshold", "ignore_null")}
            fields = {k: v for k, v in args.items() if k not in common}
            lines.append(_args(common, "                "))
            lines.append(f"                {rule_type}:\n" if fields else f"                {rule_type}: {{}}\n")
            lines.append(_args(fields, "                  "))
        table_tests["orders"].append("".join(lines))
    out = ["version: 2\n", "models:\n"]
    for table in TABLES:
        out.append(f"  - name: {table}\n")
        if table_tests[table]:
            out.append("    data_tests:\n")
            out.extend(table_tests[table])
        out.append("    columns:\n")
        for col, data_type in COLUMNS:
            out.append(f"      - name: {col}\n")
            if kind == "per_rule_typed":
                out.append(f"        data_type: {data_type}\n")
            if column_tests[table][col]:
                out.append("        data_tests:\n")
                out.extend(column_tests[table][col])
    return "".join(out)


# ----------------------------------------------------------------------------------------- projects


def make_project(root: Path, kind: str, package: Path, db: Path, *, rules: int, scan_rules: int, threads: int) -> Path:
    project = root / kind
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        textwrap.dedent(f"""\
            name: bench_{kind}
            version: "1.0"
            config-version: 2
            profile: bench
            model-paths: ["models"]
            """)
    )
    (project / "packages.yml").write_text(f"packages:\n  - local: {package}\n")
    (project / "profiles.yml").write_text(
        textwrap.dedent(f"""\
            bench:
              target: duckdb
              outputs:
                duckdb:
                  type: duckdb
                  path: "{db}"
                  threads: {threads}
            """)
    )
    for table in TABLES:
        (project / "models" / f"{table}.sql").write_text(model_sql())
    (project / "models" / "schema.yml").write_text(schema_yml(kind, rules, scan_rules))
    return project


# `dbt compile` through this driver: dbt's compile step of each test node timed in CPU seconds of its thread,
# the sum written to the file named by DQ_BENCH_NODES_CPU (the benchmark's instrument, not the product's).
NODE_CPU_DRIVER = """\
import os, sys, threading, time
from dbt.task import compile as task
compile_node = task.CompileRunner.compile
total = [0.0]
lock = threading.Lock()
def timed(self, manifest):
    if self.node.resource_type != "test":
        return compile_node(self, manifest)
    start = time.thread_time()
    try:
        return compile_node(self, manifest)
    finally:
        with lock:
            total[0] += time.thread_time() - start
task.CompileRunner.compile = timed
from dbt.cli.main import cli
try:
    cli(sys.argv[1:])
finally:
    with open(os.environ["DQ_BENCH_NODES_CPU"], "w") as out:
        out.write(str(total[0]))
"""


# The instrument both per-macro probes share (this one and bench_hook.py's): while `state.on` is true in a thread,
# every macro template dbt builds for the first time in the process is timed in CPU seconds of that thread
# (`built`: [KB of source, KB without Jinja comments, seconds]), the package macros' calls are counted, and Python's
# garbage collections inside are timed (`totals`). A probe sets `state.on` around what it measures and dumps
# {"built", "calls", **totals} as JSON.
TEMPLATE_PROBE = """\
import collections, gc, json, os, re, sys, threading, time
from dbt_common.clients import jinja
state = threading.local()
built = {}
calls = collections.Counter()
totals = {"gc_cpu": 0.0, "gc_runs": 0}
gc_start = [0.0]
def gc_timer(phase, info):
    if not getattr(state, "on", False):
        return
    if phase == "start":
        gc_start[0] = time.thread_time()
    else:
        totals["gc_cpu"] += time.thread_time() - gc_start[0]
        totals["gc_runs"] += 1
gc.callbacks.append(gc_timer)
get_node_template = jinja.TemplateCache.get_node_template
def timed_template(self, node):
    if node.macro_sql in self.file_cache or not getattr(state, "on", False):
        return get_node_template(self, node)
    start = time.thread_time()
    try:
        return get_node_template(self, node)
    finally:
        source = node.macro_sql
        bare = re.sub(r"{#.*?#}", "", source, flags=re.S)
        key = getattr(node, "package_name", "?") + "." + node.name
        built[key] = [len(source), len(bare), time.thread_time() - start]
jinja.TemplateCache.get_node_template = timed_template
call_macro = jinja.BaseMacroGenerator.call_macro
def counted(self, *args, **kwargs):
    if getattr(state, "on", False):
        calls[self.get_name()] += 1
    return call_macro(self, *args, **kwargs)
jinja.BaseMacroGenerator.call_macro = counted
"""

# `dbt compile` through TEMPLATE_PROBE (--per-macro), on while dbt compiles a test node; also the test nodes' CPU
# and the metadata queries (get_columns_in_relation) inside them. JSON in the file named by DQ_BENCH_PER_MACRO.
PER_MACRO_DRIVER = (
    TEMPLATE_PROBE
    + """\
from dbt.task import compile as task
totals.update({"nodes_cpu": 0.0, "metadata_cpu": 0.0, "metadata_queries": 0})
compile_node = task.CompileRunner.compile
def timed_node(self, manifest):
    if self.node.resource_type != "test":
        return compile_node(self, manifest)
    state.on = True
    start = time.thread_time()
    try:
        return compile_node(self, manifest)
    finally:
        state.on = False
        totals["nodes_cpu"] += time.thread_time() - start
task.CompileRunner.compile = timed_node
from dbt.adapters.duckdb.impl import DuckDBAdapter
get_columns = DuckDBAdapter.get_columns_in_relation
def timed_columns(self, relation):
    start = time.thread_time()
    try:
        return get_columns(self, relation)
    finally:
        if getattr(state, "on", False):
            totals["metadata_cpu"] += time.thread_time() - start
            totals["metadata_queries"] += 1
DuckDBAdapter.get_columns_in_relation = timed_columns
from dbt.cli.main import cli
try:
    cli(sys.argv[1:])
finally:
    with open(os.environ["DQ_BENCH_PER_MACRO"], "w") as out:
        json.dump({"built": built, "calls": calls, **totals}, out)
"""
)


def dbt(project: Path, *args: str, check: bool = True) -> tuple[float, float]:
    """Runs dbt in a fresh process: (wall seconds, CPU seconds: user + system of the process). `dbt
    compile` runs through NODE_CPU_DRIVER (its nodes' CPU seconds in project/nodes_cpu.txt)."""
    env = {**os.environ, "DBT_PROFILES_DIR": str(project), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    cmd = [DBT, *args, "--project-dir", str(project)]
    if args and args[0] == "compile":
        env["DQ_BENCH_NODES_CPU"] = str(project / "nodes_cpu.txt")
        cmd = [sys.executable, "-c", NODE_CPU_DRIVER, *args, "--project-dir", str(project)]
    if args and args[0] == "compile-per-macro":
        env["DQ_BENCH_PER_MACRO"] = str(project / "per_macro.json")
        cmd = [sys.executable, "-c", PER_MACRO_DRIVER, "compile", *args[1:], "--project-dir", str(project)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, check=False, cwd=project, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if check and proc.returncode != 0:
        sys.exit(f"dbt {' '.join(args)} failed in {project}:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}")
    return elapsed, cpu


def nodes_compile_seconds(project: Path) -> float:
    """The compile phase of the test nodes of the last `dbt compile`, summed (run_results.json)."""
    import json
    from datetime import datetime

    def when(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    total = 0.0
    for r in results:
        if not r["unique_id"].startswith("test."):
            continue
        for t in r.get("timing") or []:
            if t["name"] == "compile" and t.get("started_at") and t.get("completed_at"):
                start, end = (when(t[k]) for k in ("started_at", "completed_at"))
                total += (end - start).total_seconds()
    return total


def spread(values: list[float]) -> str:
    return f"{min(values):6.3f} / {statistics.median(values):6.3f} / {max(values):6.3f}"


def macro_files(package: Path) -> dict[str, str]:
    """{macro name: its file, relative to the package's macros/}."""
    import re

    files = {}
    for path in sorted((package / "macros").rglob("*.sql")):
        for kind, name in re.findall(r"{%-?\s*(macro|test)\s+(\w+)", path.read_text(encoding="utf-8")):
            files[name if kind == "macro" else "test_" + name] = str(path.relative_to(package / "macros"))
    return files


def per_macro(projects: dict[tuple[str, str], Path], repeat: int, top: int, packages: dict[str, Path]) -> None:
    """--per-macro: the probe's rounds, then per project the package's macros ranked by compile time,
    and their build time summed per file."""
    import json

    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for round_ in range(repeat):
        for key, project in projects.items():
            if key[0] == "trivial":
                continue
            dbt(project, "parse", "--no-partial-parse")
            dbt(project, "compile-per-macro")
            run = json.loads((project / "per_macro.json").read_text())
            runs.setdefault(key, []).append(run)
            package = {k: v for k, v in run["built"].items() if k.startswith("dataplex_dq.")}
            print(
                f"  round {round_ + 1} {' '.join(key).strip():22} nodes cpu {run['nodes_cpu']:6.3f} s,"
                f" {len(package)} package macros built in {sum(v[2] for v in package.values()):6.3f} s"
                f" ({sum(v[0] for v in package.values()) / 1024:6.1f} KB), load {loadavg()}",
                flush=True,
            )
    for key, rounds in runs.items():
        names = sorted({name for run in rounds for name in run["built"]})
        rows = []
        for name in names:
            ms = statistics.median(run["built"][name][2] * 1000 for run in rounds if name in run["built"])
            size, bare, _ = next(run["built"][name] for run in rounds if name in run["built"])
            calls = rounds[0]["calls"].get(name.partition(".")[2], 0)
            rows.append((ms, name, size, bare, calls))
        rows.sort(reverse=True)
        package = [r for r in rows if r[1].startswith("dataplex_dq.")]
        nodes = [run["nodes_cpu"] for run in rounds]
        built = [sum(v[2] for k, v in run["built"].items() if k.startswith("dataplex_dq.")) for run in rounds]
        meta = [run["metadata_cpu"] for run in rounds]
        print()
        print(f"{' '.join(key).strip()}: test nodes' compile, CPU s, min / median / max over {len(rounds)} rounds")
        print(
            f"  nodes cpu                     {min(nodes):6.3f} / {statistics.median(nodes):6.3f} / {max(nodes):6.3f}"
        )
        print(
            f"  package macros built          {min(built):6.3f} / {statistics.median(built):6.3f} / {max(built):6.3f}"
        )
        print(
            f"  metadata queries ({rounds[0]['metadata_queries']:3d})        "
            f"{min(meta):6.3f} / {statistics.median(meta):6.3f} / {max(meta):6.3f}"
        )
        gcs = [run["gc_cpu"] for run in rounds]
        print(
            f"  garbage collection ({rounds[0]['gc_runs']:3d} runs)  "
            f"{min(gcs):6.3f} / {statistics.median(gcs):6.3f} / {max(gcs):6.3f} (inside the figures above)"
        )
        print(
            f"  {len(package)} package macros, {sum(r[2] for r in package) / 1024:.1f} KB of source"
            f" ({sum(r[3] for r in package) / 1024:.1f} KB without comments),"
            f" {sum(r[4] for r in package)} calls; other packages' macros built:"
            f" {sum(r[0] for r in rows if r not in package):.0f} ms"
        )
        print(f"  {'macro':44} {'KB':>6} {'KB bare':>7} {'calls':>6} {'build ms':>8}")
        for ms, name, size, bare, calls in package[:top]:
            print(f"  {name:44} {size / 1024:6.1f} {bare / 1024:7.1f} {calls:6d} {ms:8.1f}")
        files = macro_files(packages[key[1]])
        by_file: dict[str, list[float]] = {}
        for ms, name, _, bare, _ in package:
            entry = by_file.setdefault(files.get(name.partition(".")[2], "?"), [0.0, 0.0, 0.0])
            entry[0] += ms
            entry[1] += bare / 1024
            entry[2] += 1
        print(f"  {'file':44} {'KB bare':>7} {'macros':>6} {'build ms':>8}")
        for name, (ms, kb, n) in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"  {name:44} {kb:7.1f} {n:6.0f} {ms:8.1f}")


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", type=int, default=600)
    parser.add_argument("--scan-rules", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--only", default="trivial,per_rule,scan", help="also: per_rule_typed")
    parser.add_argument("--package", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--per-macro", action="store_true", help="rank the package's macros by compile time")
    parser.add_argument("--top", type=int, default=15, help="--per-macro: macros listed per project")
    opts = parser.parse_args()
    packages = {"": REPO} if not opts.package else {}
    for spec in opts.package:
        name, _, path = spec.partition("=")
        packages[name] = Path(path).resolve()
    # trivial tests do not use the package: measured once, with the first package
    first = next(iter(packages))
    kinds = [
        (kind, pkg) for kind in opts.only.split(",") if kind for pkg in packages if kind != "trivial" or pkg == first
    ]

    root = Path(tempfile.mkdtemp(prefix="dq_bench_compile_"))
    db = root / "bench.duckdb"
    try:
        projects = {
            (kind, pkg): make_project(
                root / (pkg or "this"),
                kind,
                packages[pkg],
                db,
                rules=opts.rules,
                scan_rules=opts.scan_rules,
                threads=opts.threads,
            )
            for kind, pkg in kinds
        }
        for i, project in enumerate(projects.values()):
            dbt(project, "deps")
            if i == 0:
                dbt(project, "run")  # the four tables, shared by every project (same names, same schema)
        print(f"projects in {root}; load average before: {loadavg()}", flush=True)
        if opts.per_macro:
            per_macro(projects, opts.repeat, opts.top, packages)
            return
        times: dict[tuple[str, str], list[float]] = {}
        for round_ in range(opts.repeat):
            for key, project in projects.items():
                parse, parse_cpu = dbt(project, "parse", "--no-partial-parse")
                compile_, compile_cpu = dbt(project, "compile")
                nodes = nodes_compile_seconds(project)
                nodes_cpu = float((project / "nodes_cpu.txt").read_text())
                times.setdefault((*key, "nodes"), []).append(nodes)
                times.setdefault((*key, "nodes cpu"), []).append(nodes_cpu)
                for command, wall, cpu in (("parse", parse, parse_cpu), ("compile", compile_, compile_cpu)):
                    times.setdefault((*key, command), []).append(wall)
                    times.setdefault((*key, command + " cpu"), []).append(cpu)
                label = f"{key[0]} {key[1]}".strip()
                print(
                    f"  round {round_ + 1} {label:22} parse {parse:6.2f} s (cpu {parse_cpu:6.2f})"
                    f"  compile {compile_:6.2f} s (cpu {compile_cpu:6.2f}, nodes {nodes:6.2f}"
                    f", nodes cpu {nodes_cpu:6.2f})"
                    f"  load {loadavg()}",
                    flush=True,
                )
        print(f"load average after: {loadavg()}")
        print()
        sizes = {
            "trivial": f"{opts.rules} tests",
            "per_rule": f"{opts.rules} rules",
            "per_rule_typed": f"{opts.rules} rules",
            "scan": f"1 scan, {opts.scan_rules} rules",
        }
        print(f"{'project':22} {'size':18} {'command':11} {'min':>7} {'median':>7} {'max':>7}  x trivial")
        for kind, pkg in kinds:
            for command in ("parse", "compile", "parse cpu", "compile cpu", "nodes", "nodes cpu"):
                ts = times[(kind, pkg, command)]
                med = statistics.median(ts)
                base = times.get(("trivial", first, command))
                ratio = f"{med / statistics.median(base):.2f}" if base else "-"
                label = f"{kind} {pkg}".strip()
                print(f"{label:22} {sizes[kind]:18} {command:11} {min(ts):7.2f} {med:7.2f} {max(ts):7.2f}  {ratio:>9}")
    finally:
        if opts.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
