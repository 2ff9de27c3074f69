#!/usr/bin/env python3
"""Benchmark (not a test): `dataplex-dq report` end to end on a synthetic project of N rules.

Builds a small dbt project once (one seed, one real rule), then clones its test node N times in
manifest.json and run_results.json, and gives each clone its own metrics table in DuckDB (N tables,
the way dbt leaves them). Then times the whole report: artifacts, bounded fetch through dbt's
adapter, scoring, proto files, export of N rows -- and prints the phases.

    python integration_tests/benchmarks/bench_report.py --rules 10000
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", type=int, default=10_000)
    ap.add_argument("--sources", type=int, default=20)
    args = ap.parse_args()
    import duckdb

    work = Path(tempfile.mkdtemp(prefix="bench_report_"))
    proj = work / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "seeds" / "items.csv").write_text("id,qty\n" + "".join(f"{i},{i % 7}\n" for i in range(1000)))
    (proj / "models").mkdir()
    (proj / "models" / "schema.yml").write_text(
        "version: 2\nseeds:\n  - name: items\n    columns:\n      - name: qty\n        data_tests:\n"
        "          - dataplex_dq.range_expectation:\n"
        "              {name: qty-small, arguments: {max_value: 5, threshold: 0.5, dimension: VALIDITY}}\n"
    )
    (proj / "dbt_project.yml").write_text('name: bench\nversion: "1.0"\nconfig-version: 2\nprofile: bench\n')
    (proj / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    db = work / "bench.duckdb"
    (proj / "profiles.yml").write_text(
        f"bench:\n  target: dev\n  outputs:\n    dev: {{type: duckdb, path: '{db}', threads: 1}}\n"
    )
    dbt = str(Path(sys.executable).parent / "dbt")
    env = {**os.environ, "DBT_PROFILES_DIR": str(proj)}
    for cmd in (["deps"], ["build"]):
        subprocess.run(
            [dbt, *cmd, "--project-dir", str(proj)], cwd=proj, env=env, check=cmd == ["deps"], capture_output=True
        )
    target = proj / "target"
    manifest = json.loads((target / "manifest.json").read_text())
    run_results = json.loads((target / "run_results.json").read_text())
    test_uid = next(u for u, n in manifest["nodes"].items() if n["resource_type"] == "test")
    test_node = manifest["nodes"][test_uid]
    seed_uid = test_node["attached_node"]
    seed_node = manifest["nodes"][seed_uid]
    result = next(r for r in run_results["results"] if r["unique_id"] == test_uid)

    con = duckdb.connect(str(db))
    base_rel = test_node["relation_name"]
    schema = base_rel.split(".")[1]
    t0 = time.perf_counter()
    sources = []
    for s in range(args.sources):
        uid = f"seed.bench.items_{s}"
        node = copy.deepcopy(seed_node)
        node.update(unique_id=uid, name=f"items_{s}", alias="items")
        manifest["nodes"][uid] = node
        sources.append(uid)
    results = [r for r in run_results["results"] if r["unique_id"] != test_uid]
    for i in range(args.rules):
        uid = f"test.bench.rule-{i}.x"
        node = copy.deepcopy(test_node)
        rel = f'{schema}."dq_rule_{i}"'
        src = sources[i % args.sources]
        node.update(unique_id=uid, name=f"rule-{i}", attached_node=src, relation_name=rel)
        node["config"]["meta"]["dataplex_dq_rules"][0]["rule"]["name"] = f"rule-{i}"  # recorded at parse time
        node["depends_on"]["nodes"] = [src]
        manifest["nodes"][uid] = node
        r = copy.deepcopy(result)
        r.update(unique_id=uid, relation_name=rel, status="pass" if i % 10 else "fail", failures=0 if i % 10 else 1)
        results.append(r)
        con.execute(
            f"create or replace table {rel} as select * replace ("
            f"'{uid}' as dq_test_unique_id, '{src}' as dq_data_source, 'rule-{i}' as rule_name, "
            f"{'true' if i % 10 else 'false'} as passed, '{'PASSED' if i % 10 else 'FAILED'}' as rule_status, "
            f"replace(rule_spec, 'qty-small', 'rule-{i}') as rule_spec) from {base_rel}"
        )
    con.execute("drop table if exists main.dataplex_dq_results")
    con.close()
    del manifest["nodes"][test_uid]
    run_results["results"] = results
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "run_results.json").write_text(json.dumps(run_results))
    print(
        f"setup: {args.rules} rules on {args.sources} data sources in {time.perf_counter() - t0:.1f}s "
        f"(manifest.json {(target / 'manifest.json').stat().st_size / 1e6:.1f} MB)"
    )

    from dataplex_dq.report import run_report

    t = time.perf_counter()
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    report = run_report(proj, proj, None, target)
    prof.disable()
    if os.environ.get("BENCH_PROFILE"):
        pstats.Stats(prof).sort_stats("cumulative").print_stats(35)
    total = time.perf_counter() - t
    rules = sum(len(s.outcomes) for s in report.sources)
    print(
        f"report: {rules} rules, {len(report.sources)} data sources, {report.fetch_queries} fetch queries, "
        f"{report.export_rows} rows exported, total {total:.2f}s"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0 if rules == args.rules else 1


if __name__ == "__main__":
    sys.exit(main())
