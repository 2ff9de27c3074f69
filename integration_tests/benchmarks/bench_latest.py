"""Benchmark: the "latest" result models with one run recorded and with 1M rows of history (not a test).

    python integration_tests/benchmarks/bench_latest.py [--runs 40000] [--rounds 7] [--targets duckdb postgres]
    CRUCIBLE=.venv-emulator/bin/crucible scripts/test_services.sh \\
        .venv/bin/python integration_tests/benchmarks/bench_latest.py --targets duckdb postgres

Issue 32 item 3. A project of 4 seeds and 25 dataplex_dq rules (one data_quality_scan per seed) is built once
(`dbt build`: the writer records one run). Then `select *` from each latest model is timed (fetching every
row), `--rounds` times, alternating the models; the same with the models' definitions before issue 32
(integration_tests/latest_before/: views ranking the whole history) beside them. Then that run's rows
are copied `--runs` - 1 times into the results table as older runs (each a minute earlier, its own job and
invocation ids: 40,000 runs x 25 rules = 1M rows), the latest results table is rebuilt from the history
(`dbt build --select dataplex_dq_latest_results+ --full-refresh`, as after rows written by hand), and the
reads are timed again. Printed: min / median / max seconds, and the ratio of the medians (full history over
one run). PostgreSQL runs when DBT_PG_HOST is set (the services script's server).

BigQuery bytes (item 5): on-demand pricing bills the columns a query references over the partitions it
does not prune, at least 10 MB per table. An estimate from the DuckDB tables, BigQuery's documented sizes
per type (STRING 2 + UTF-8 bytes, INT64 / FLOAT64 / TIMESTAMP 8, BOOL 1, NULL 0) over the flattened columns:
what `select *` from dq_rule_results_latest reads before (every row of the history) and now (the latest
results table only; the compiled SQL names no other table). The emulator gives no dry-run estimate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from dbt_harness import DbtProject, target_env, write_project  # noqa: E402

BEFORE = HERE.parent / "latest_before"
MIN_BYTES = 10 * 2**20
SEEDS = {
    "orders": "id,amount,status,customer\n" + "".join(f"{i},{i % 50},{'ab'[i % 2]},{i % 7}\n" for i in range(200)),
    "customers": "id,name,email,tier\n" + "".join(f"{i},n{i},e{i}@x,{i % 3}\n" for i in range(100)),
    "products": "id,sku,price,stock\n" + "".join(f"{i},s{i},{i * 1.5},{i % 9}\n" for i in range(100)),
    "events": "id,kind,qty,day\n" + "".join(f"{i},{'abc'[i % 3]},{i % 11},{i % 28}\n" for i in range(300)),
}


def _rules(cols: list[str], n: int) -> str:
    kinds = [
        "{{column: {c}, nonNullExpectation: {{}}, dimension: COMPLETENESS}}",
        "{{column: {c}, rangeExpectation: {{minValue: '0'}}, dimension: VALIDITY}}",
        "{{column: {c}, uniquenessExpectation: {{}}, dimension: UNIQUENESS}}",
        "{{column: {c}, statisticRangeExpectation: {{statistic: MAX, minValue: '0'}}, dimension: VALIDITY}}",
    ]
    out = []
    for i in range(n):
        c = cols[i % len(cols)]
        rule = kinds[(i // len(cols)) % len(kinds)].format(c=c)
        out.append(f"              - {rule[:-1]}, name: r{i}-{c}}}")
    return "\n".join(out)


def schema() -> str:
    counts = {"orders": 7, "customers": 6, "products": 6, "events": 6}  # 25 rules
    numeric = {
        "orders": ["id", "amount", "customer"],
        "customers": ["id", "tier"],
        "products": ["id", "price", "stock"],
        "events": ["id", "qty", "day"],
    }
    parts = ["version: 2", "seeds:"]
    for seed, n in counts.items():
        parts.append(f"  - name: {seed}\n    data_tests:\n      - dataplex_dq.data_quality_scan:\n"
                     f"          arguments:\n            rules:\n{_rules(numeric[seed], n)}")  # fmt: skip
    return "\n".join(parts) + "\n"


def read_seconds(db: Any, project: DbtProject, model: str) -> float:
    """Seconds to run `select * from model` and fetch every row, on an open connection."""
    t0 = time.perf_counter()
    db.query(f"select * from {project.relation(model)}")
    return time.perf_counter() - t0


def execute(project: DbtProject, sql: str) -> None:
    if project.warehouse == "duckdb":
        import duckdb

        con = duckdb.connect(project.env["DBT_DUCKDB_PATH"])
        try:
            con.execute(sql)
        finally:
            con.close()
        return
    with project.db() as db:
        db.execute(sql)


MODELS = ["dq_rule_results_latest", "dq_latest_scores", "old_rule_results_latest", "old_latest_scores"]


def measure(project: DbtProject, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {m: [] for m in MODELS}
    with project.db() as db:
        for m in MODELS:
            read_seconds(db, project, m)  # warm: the connection, the catalog
        for _ in range(rounds):
            for m in MODELS:
                times[m].append(read_seconds(db, project, m))
    return times


def history_sql(project: DbtProject, runs: int) -> str:
    """The recorded run's rows copied runs - 1 times, each copy i minutes earlier with its own ids."""
    with project.db() as db:
        cols = db.columns(project.schema, "dataplex_dq_results")
    rel = project.relation("dataplex_dq_results")
    gen = f"range(1, {runs}) as g(i)" if project.warehouse == "duckdb" else f"generate_series(1, {runs - 1}) as g(i)"
    txt = "varchar" if project.warehouse == "duckdb" else "text"
    over = {
        "data_quality_job_id": f"data_quality_job_id || '-h' || cast(i as {txt})",
        "dbt_invocation_id": f"dbt_invocation_id || '-h' || cast(i as {txt})",
        "job_start_time": "job_start_time - i * interval '1 minute'",
        "job_end_time": "job_end_time - i * interval '1 minute'",
    }
    exprs = ", ".join(over.get(c, c) for c in cols)
    return f"insert into {rel} ({', '.join(cols)}) select {exprs} from {rel} cross join {gen}"


def bigquery_bytes(project: DbtProject, model: str) -> int:
    """BigQuery's logical bytes of every column of a (DuckDB) relation with dq_rule_results' columns."""
    with project.db() as db:
        cols = db.query(f"describe {project.relation(model)}")
        exprs = []
        for c in cols:
            name, typ = c["column_name"], c["column_type"].upper()
            q = f'"{name}"'
            if typ == "VARCHAR":
                exprs.append(f"coalesce(sum(2 + strlen({q})), 0)")
            elif typ == "BOOLEAN":
                exprs.append(f"count({q})")
            else:
                exprs.append(f"count({q}) * 8")
        (row,) = [list(r.values()) for r in db.query(f"select {', '.join(exprs)} from {project.relation(model)}")]
    return max(MIN_BYTES, sum(int(v) for v in row))


def fmt(ts: list[float]) -> str:
    return f"{min(ts):.4f} / {statistics.median(ts):.4f} / {max(ts):.4f}"


def run_target(target: str, runs: int, rounds: int, work: Path) -> None:
    files = {f"seeds/{k}.csv": v for k, v in SEEDS.items()}
    files["models/schema.yml"] = schema()
    files.update({f"models/{p.name}": p.read_text() for p in BEFORE.glob("*.sql")})
    project = write_project(
        work,
        f"bench_latest_{target}",
        files,
        env=target_env(target, work, "bench_latest"),
        target=None if target == "duckdb" else target,
    )
    build = project.run("build")
    assert build.returncode in (0, 1), build.output[-3000:]  # a failing rule is data, not an error
    n_rows = project.query(f"select count(*) as n from {project.relation('dataplex_dq_results')}")[0]["n"]
    print(
        f"\n== {target}: one run recorded ({n_rows} rows); seconds min / median / max of {rounds}, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    one = measure(project, rounds)
    for m in MODELS:
        print(f"  {m:26} {fmt(one[m])}")
    t0 = time.perf_counter()
    execute(project, history_sql(project, runs))
    refresh = project.run("build", "--select", "dataplex_dq_latest_results+", "--full-refresh")
    assert refresh.success, refresh.output[-3000:]
    n_rows = project.query(f"select count(*) as n from {project.relation('dataplex_dq_results')}")[0]["n"]
    print(f"== {target}: {runs:,} runs ({n_rows:,} rows, written and the latest table rebuilt in "
          f"{time.perf_counter() - t0:.1f} s); load {os.getloadavg()[0]:.1f}")  # fmt: skip
    full = measure(project, rounds)
    for m in MODELS:
        ratio = statistics.median(full[m]) / statistics.median(one[m])
        print(f"  {m:26} {fmt(full[m])}   {ratio:6.2f}x the one-run median")
    if target == "duckdb":
        old = bigquery_bytes(project, "dq_rule_results")
        new = bigquery_bytes(project, "dataplex_dq_latest_results")
        print(f"  BigQuery bytes billed (estimate) of `select * from dq_rule_results_latest` at {n_rows:,} rows:"
              f" before {old / 2**20:,.1f} MB (the history's columns), now {new / 2**20:,.1f} MB"
              f" (the latest results table; 10 MB minimum)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--targets", nargs="+", default=["duckdb", "postgres"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_latest_") as tmp:
        for target in a.targets:
            if target == "postgres" and not os.environ.get("DBT_PG_HOST"):
                print("\n== postgres: skipped (DBT_PG_HOST unset: run under scripts/test_services.sh)")
                continue
            run_target(target, a.runs, a.rounds, Path(tmp) / target)


if __name__ == "__main__":
    main()
