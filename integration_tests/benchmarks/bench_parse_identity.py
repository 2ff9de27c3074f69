"""What recording rule identity at parse time costs (issue 8 item 3, macros/identity.sql).

`dbt parse --no-partial-parse` of one project -- a data_quality_scan of 150 rules and 50 per-rule
tests on one seed -- with each package folder given (e.g. this worktree and a `git archive` of the
commit before), `--repeat` times each, interleaved; prints per package the median and min wall seconds
and the median CPU seconds of the dbt process (user + system: less sensitive to a loaded machine).

`--without-package` adds the same project without the package (the seed with 51 of dbt's own generic tests in
place of the scan and the 50 per-rule tests): what installing the package adds to every full parse (a first run,
a CI job, a change of vars, profile or dbt version), printed as each package's time minus it.

    .venv/bin/python integration_tests/benchmarks/bench_parse_identity.py PACKAGE_DIR [PACKAGE_DIR ...]
    .venv/bin/python integration_tests/benchmarks/bench_parse_identity.py --without-package .
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
import time
from pathlib import Path

import yaml

KINDS = [
    ("range_expectation", "amount", {"min_value": 0, "max_value": 1000}),
    ("non_null_expectation", "id", {}),
    ("set_expectation", "status", {"values": ["a", "b", "c"]}),
    ("regex_expectation", "status", {"regex": "^[a-z]+$"}),
    ("uniqueness_expectation", "id", {}),
    ("statistic_range_expectation", "amount", {"statistic": "MEAN", "min_value": 0}),
    ("row_condition_expectation", None, {"sql_expression": "amount >= 0"}),
    ("table_condition_expectation", None, {"sql_expression": "count(*) > 0"}),
]


def schema(scan_rules: int, per_rule: int) -> dict:
    rules = []
    for i in range(scan_rules):
        kind, column, fields = KINDS[i % len(KINDS)]
        rules.append({**({"column": column} if column else {}), kind: fields, "dimension": "VALIDITY"})
    column_tests: dict[str, list] = {"id": [], "amount": [], "status": []}
    table_tests: list = [{"dataplex_dq.data_quality_scan": {"name": "orders_scan", "arguments": {"rules": rules}}}]
    for i in range(per_rule):
        kind, column, fields = KINDS[i % len(KINDS)]
        test = {f"dataplex_dq.{kind}": {"arguments": {**fields, "threshold": 0.5 + i / 1000}}}
        (column_tests[column] if column else table_tests).append(test)
    columns = [{"name": c, "data_tests": t} for c, t in column_tests.items()]
    return {"version": 2, "seeds": [{"name": "orders", "columns": columns, "data_tests": table_tests}]}


def plain_schema(tests: int) -> dict:
    """The seed with `tests` of dbt's own generic tests (not_null, unique, accepted_values in turn), each named."""
    column_tests: dict[str, list] = {"id": [], "amount": [], "status": []}
    for i in range(tests):
        if i % 3 == 0:
            column_tests["id"].append({"not_null": {"name": f"id_present_{i}"}})
        elif i % 3 == 1:
            column_tests["amount"].append({"unique": {"name": f"amount_unique_{i}"}})
        else:
            test = {"name": f"status_in_{i}", "arguments": {"values": ["a", "b", "c"]}}
            column_tests["status"].append({"accepted_values": test})
    columns = [{"name": c, "data_tests": t} for c, t in column_tests.items()]
    return {"version": 2, "seeds": [{"name": "orders", "columns": columns}]}


def project(root: Path, package: Path | None) -> Path:
    """A project with `package` and its 150-rule scan and 50 per-rule tests; None: without the package."""
    proj = root / f"p{len(list(root.iterdir()))}"
    (proj / "seeds").mkdir(parents=True)
    (proj / "dbt_project.yml").write_text("name: bench_parse\nversion: '1.0'\nprofile: bench_parse\n")
    (proj / "profiles.yml").write_text(
        "bench_parse: {target: dev, outputs: {dev: {type: duckdb, path: bench.duckdb, threads: 1}}}\n"
    )
    (proj / "seeds" / "orders.csv").write_text("id,amount,status\n1,2.5,a\n")
    if package is None:
        (proj / "seeds" / "schema.yml").write_text(yaml.safe_dump(plain_schema(51), sort_keys=False))
        return proj
    (proj / "packages.yml").write_text(f"packages:\n  - local: {package}\n")
    (proj / "seeds" / "schema.yml").write_text(yaml.safe_dump(schema(150, 50), sort_keys=False))
    return proj


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--without-package", action="store_true", help="also parse the project without the package (the baseline)"
    )
    args = parser.parse_args()
    dbt = str(Path(sys.executable).with_name("dbt"))
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    root = Path(tempfile.mkdtemp(prefix="bench_parse_identity_"))
    try:
        packages: list[Path | None] = [p.resolve() for p in args.packages]
        if args.without_package:
            packages.append(None)
        projects = [project(root, p) for p in packages]
        for package, proj in zip(packages, projects, strict=True):
            if package is not None:
                subprocess.run([dbt, "deps", "--profiles-dir", "."], cwd=proj, env=env, check=True, capture_output=True)
        times: dict[Path, list[float]] = {p: [] for p in projects}
        cpu: dict[Path, list[float]] = {p: [] for p in projects}
        for _ in range(args.repeat):
            for proj in projects:
                t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(
                    [dbt, "parse", "--no-partial-parse", "--profiles-dir", "."],
                    cwd=proj,
                    env=env,
                    check=True,
                    capture_output=True,
                )
                times[proj].append(time.perf_counter() - t0)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[proj].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        print(f"dbt parse --no-partial-parse, 150-rule scan + 50 per-rule tests, {args.repeat} runs each")
        base = projects[-1] if args.without_package else None
        for package, proj in zip(packages, projects, strict=True):
            t = times[proj]
            name = package if package is not None else "without the package (51 of dbt's own tests)"
            share = ""
            if base is not None and proj is not base:
                wall = statistics.median(t) - statistics.median(times[base])
                used = statistics.median(cpu[proj]) - statistics.median(cpu[base])
                share = f"; the package adds {wall:.2f} s wall, {used:.2f} s CPU"
            print(
                f"  {name}: wall median {statistics.median(t):.2f} s, min {min(t):.2f} s;"
                f" CPU median {statistics.median(cpu[proj]):.2f} s, min {min(cpu[proj]):.2f} s{share}"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
