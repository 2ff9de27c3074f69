#!/usr/bin/env python3
"""Benchmark (not a test): the time the on-run-end hook adds to `dbt build`, on DuckDB.

For each size N, generates a dbt project with the hook line, runs `dbt build` once and prints the
hook's own time (it logs "dataplex_dq: wrote the results of ... in B batch(es), S s"), the rows it
wrote, and the whole build for scale.

  * per-rule form: N `dataplex_dq.*` tests (N metrics relations), over max(1, N // 50) seeds;
  * scan form (--form scan): data_quality_scan tests of up to 1,000 rules each (SPEC 3c's limit per
    data source), N rules over ceil(N / 1000) seeds: N rules from few relations.

    python integration_tests/benchmarks/bench_hook.py --rules 20 1000 --rules-scan 10000
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WROTE = re.compile(
    r"dataplex_dq: wrote the results of (\d+) test\(s\) of (\d+) data source\(s\) to (\S+) in (\d+) batch\(es\), "
    r"([\d.]+)s"
)


def _project(work: Path, rules: int, form: str) -> Path:
    proj = work / f"{form}_{rules}"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    sources = max(1, rules // 50) if form == "tests" else max(1, math.ceil(rules / 1000))
    lines = ["version: 2", "seeds:"]
    for s in range(sources):
        (proj / "seeds" / f"items_{s}.csv").write_text("id,qty\n" + "".join(f"{i},{i % 7}\n" for i in range(200)))
        lines += [f"  - name: items_{s}"]
        mine = [r for r in range(rules) if r % sources == s]
        if form == "tests":
            lines += ["    columns:", "      - name: qty", "        data_tests:"]
            for r in mine:
                if r % 3 == 0:
                    lines.append(
                        f"          - dataplex_dq.range_expectation: {{name: r{r}, arguments: {{max_value: {r % 7}, "
                        f"dimension: VALIDITY}}}}"
                    )
                elif r % 3 == 1:
                    lines.append(
                        f"          - dataplex_dq.non_null_expectation: {{name: r{r}, arguments: {{dimension: "
                        f"COMPLETENESS}}}}"
                    )
            lines.append("    data_tests:")
            for r in mine:
                if r % 3 == 2:
                    lines.append(
                        f"      - dataplex_dq.table_condition_expectation: {{name: r{r}, arguments: "
                        f"{{sql_expression: 'count(*) > {r % 300}'}}}}"
                    )
        else:
            lines += [
                "    data_tests:",
                "      - dataplex_dq.data_quality_scan:",
                "          arguments:",
                "            rules:",
            ]
            for r in mine:
                lines.append(
                    f"              - {{name: r{r}, column: qty, rangeExpectation: {{maxValue: '{r % 7}'}}, "
                    f"dimension: VALIDITY}}"
                )
    (proj / "models" / "schema.yml").write_text("\n".join(lines) + "\n")
    (proj / "dbt_project.yml").write_text(
        'name: bench_hook\nversion: "1.0"\nconfig-version: 2\nprofile: bench\n'
        "seeds:\n  bench_hook:\n    +column_types: {id: integer, qty: integer}\n"
        'on-run-end: "{{ dataplex_dq.on_run_end(results) }}"\n'
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (proj / "profiles.yml").write_text(
        f"bench:\n  target: dev\n  outputs:\n    dev: {{type: duckdb, path: '{proj / 'bench.duckdb'}', threads: 4}}\n"
    )
    return proj


def _run(proj: Path, rules: int, form: str) -> None:
    dbt = str(Path(sys.executable).parent / "dbt")
    env = {**os.environ, "DBT_PROFILES_DIR": str(proj), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    subprocess.run([dbt, "deps", "--project-dir", str(proj)], cwd=proj, env=env, check=True, capture_output=True)
    started = time.perf_counter()
    proc = subprocess.run(
        [dbt, "build", "--project-dir", str(proj)], cwd=proj, env=env, capture_output=True, text=True, check=False
    )
    build = time.perf_counter() - started
    log = proj / "logs" / "dbt.log"
    found = WROTE.findall(proc.stdout + (log.read_text() if log.exists() else ""))
    if not found:
        print(f"{form:5s} {rules:>6} rules: the hook did not report (exit {proc.returncode})\n{proc.stdout[-2000:]}")
        return
    tests, sources, _, batches, seconds = found[-1]
    import duckdb

    con = duckdb.connect(str(proj / "bench.duckdb"), read_only=True)
    rows = con.execute("select count(*) from main.dataplex_dq_results").fetchone()[0]
    con.close()
    print(
        f"{form:5s} {rules:>6} rules | {tests:>5} tests {sources:>4} sources | hook {float(seconds):7.3f}s "
        f"in {batches} statement batch(es) | {rows} rows | whole dbt build {build:7.1f}s"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", type=int, nargs="*", default=[20, 1000], help="sizes in the per-rule test form")
    ap.add_argument("--rules-scan", type=int, nargs="*", default=[10_000], help="sizes in the data_quality_scan form")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_hook_"))
    for n in args.rules:
        _run(_project(work, n, "tests"), n, "tests")
    for n in args.rules_scan:
        _run(_project(work, n, "scan"), n, "scan")
    print(f"(projects under {work})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
