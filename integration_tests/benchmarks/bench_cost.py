"""Benchmark: BigQuery bytes billed for the anchor's 20 rules, per-rule tests vs one data_quality_scan (not a test).

    python integration_tests/benchmarks/bench_cost.py [--rows 1000000 10000000] [--anchor ../shared/bench]

An estimate, from the compiled SQL and the data, of what BigQuery's on-demand pricing bills
(https://cloud.google.com/bigquery/docs/estimate-costs, .../pricing#on_demand_pricing):
  - a query is billed the bytes of every column it references, each column of each table once, whatever
    the query does with it (no partitioning or clustering on the anchor's table);
  - at least 10 MB per table referenced per query;
  - a column's bytes follow BigQuery's documented sizes per type
    (https://cloud.google.com/bigquery/pricing#data): INT64, FLOAT64, DATE, TIMESTAMP 8 bytes, BOOL 1,
    STRING 2 + its UTF-8 length, NULL 0; computed on the anchor's `events` table (gen_data.py).

Steps: the anchor's rules are compiled as 20 per-rule tests and as one data_quality_scan (bench_limit's
project, on DuckDB: the columns a query references do not depend on the dialect); sqlglot finds the
columns of `events` each query references (a `*` over the table counts every column). Each dataplex_dq
test runs two statements with store_failures: the rule query (CREATE TABLE AS SELECT) and dbt's
failure count over the stored metrics table (another 10 MB minimum); the package's on-run-end hook (the
results table's one writer) reads every metrics table once, in its INSERT ... SELECT (10 MB per table
referenced). All of that is printed per form. Not counted: the results table's own reads and writes (the
hook's DELETE / MERGE of the invocation's jobs, `dataplex-dq report`'s two queries of the invocation's rows:
at least 10 MB each, more as the table's history grows), the same for both forms.

BigQuery's own dry run would give the first figure exactly: with DBT_BQ_API_ENDPOINT set (make test's
emulator, `CRUCIBLE=... scripts/test_services.sh python bench_cost.py`) the script asks the endpoint
for one and prints what it answers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import bench_limit  # the anchor's rules as a dbt project (this folder is on sys.path when the script runs)

MIN_BYTES = 10 * 2**20  # 10 MB per table per query; BigQuery's MB, GB and TB are 2^20, 2^30, 2^40 bytes
FIXED = {"BIGINT": 8, "DOUBLE": 8, "DATE": 8, "TIMESTAMP": 8, "INTEGER": 8, "BOOLEAN": 1}
TABLE = "events"


def column_bytes(db: Path) -> dict[str, int]:
    """BigQuery's logical bytes of each column of `events` (documented per-type sizes, NULL 0)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        types = dict(
            con.execute(
                f"select column_name, data_type from information_schema.columns where table_name = '{TABLE}'"
            ).fetchall()
        )
        exprs = []
        for col, typ in types.items():
            q = f'"{col}"'
            if typ == "VARCHAR":
                exprs.append(f"coalesce(sum(2 + strlen({q})), 0)")  # strlen: bytes of the UTF-8 text
            else:
                exprs.append(f"count({q}) * {FIXED[typ]}")
        (row,) = con.execute(f"select {', '.join(exprs)} from {TABLE}").fetchall()
    finally:
        con.close()
    return {col: int(v) for col, v in zip(types, row, strict=True)}


def referenced_columns(sql: str, columns: list[str], dialect: str = "duckdb") -> set[str]:
    """The columns of `events` a query reads, as BigQuery prunes them: sqlglot qualifies every column
    (expanding `*` with the table's columns) and pushes projections down, so a `select *` in a CTE or
    subquery only counts the columns an outer query uses."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.optimizer.pushdown_projections import pushdown_projections
    from sqlglot.optimizer.qualify import qualify

    out: set[str] = set()
    for statement in sqlglot.parse(sql, read=dialect):
        if statement is None:
            continue
        tables = [t for t in statement.find_all(exp.Table) if t.name.lower() == TABLE]
        if not tables:
            continue
        ref = tables[0]
        schema: dict[str, Any] = {TABLE: dict.fromkeys(columns, "VARCHAR")}
        for part in (ref.db, ref.catalog):  # the nesting of the compiled reference: catalog.db.table
            if part:
                schema = {part: schema}
        q = qualify(statement, schema=schema, dialect=dialect, validate_qualify_columns=False)
        q = pushdown_projections(q)
        aliases = {t.alias_or_name for t in q.find_all(exp.Table) if t.name.lower() == TABLE}
        for col in q.find_all(exp.Column):
            if col.table in aliases and col.name.lower() in columns:
                out.add(col.name.lower())
    return out


def billed(cols: set[str], sizes: dict[str, int]) -> int:
    """Bytes billed for one query reading these columns of one table: their bytes, at least the minimum."""
    return max(MIN_BYTES, sum(sizes[c] for c in cols))


def try_dry_run(endpoint: str, project: str, sql: str) -> str:
    """What a BigQuery endpoint answers to a dry-run query job (jobs.insert with dryRun)."""
    body = json.dumps({"configuration": {"query": {"query": sql, "useLegacySql": False}, "dryRun": True}}).encode()
    req = urllib.request.Request(
        f"{endpoint.rstrip('/')}/bigquery/v2/projects/{project}/jobs",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            answer = json.loads(resp.read())
        stats = answer.get("statistics", {})
        return f"answered: totalBytesProcessed {stats.get('totalBytesProcessed')}"
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode(errors="replace")
        with contextlib.suppress(ValueError, KeyError, TypeError):
            detail = json.loads(detail)["error"]["message"]
        return f"refused (HTTP {exc.code}): {detail}"
    except OSError as exc:
        return f"unreachable: {exc}"


def gb(n: float) -> str:
    return f"{n / 2**30:8.3f} GB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--anchor", default=None, help="the anchor folder (default ../shared/bench)")
    ap.add_argument("--data-dir", default=None, help="where events_<rows>.duckdb live (generated if missing)")
    ap.add_argument("--price-per-tib", type=float, default=6.25, help="on-demand USD per TiB (default 6.25)")
    a = ap.parse_args()

    anchor = bench_limit.find_anchor(a.anchor)
    sys.path.insert(0, str(anchor))
    import gen_data  # type: ignore[import-not-found]
    import rules as anchor_rules  # type: ignore[import-not-found]

    data_dir = Path(a.data_dir or Path(tempfile.gettempdir()) / "dq-bench")
    data_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench_cost_"))
    try:
        dbs = {}
        for rows in a.rows:
            dbs[rows] = data_dir / f"events_{rows}.duckdb"
            if not dbs[rows].exists():
                gen_data.generate(rows, str(dbs[rows]))
        # compile once (the SQL does not depend on the row count), on a copy of the smallest table
        small = work / "events.duckdb"
        shutil.copy(dbs[min(a.rows)], small)
        proj = bench_limit.write_project(work, small, anchor_rules.RULES)
        bench_limit.dbt(proj, "deps")
        scan_sql, per_rule = bench_limit.compiled_sql(proj)
        columns = bench_limit.COLUMNS
        scan_cols = referenced_columns(scan_sql, columns)
        rule_cols = {name: referenced_columns(sql, columns) for name, sql in sorted(per_rule.items())}

        print("columns of `events` each query references (sqlglot on the compiled SQL):")
        print(f"  data_quality_scan: {', '.join(sorted(scan_cols))}")
        for name, cols in rule_cols.items():
            print(f"  {name:16} {', '.join(sorted(cols)) or '(none: count(*) reads no column)'}")

        tib = 2**40
        for rows, db in dbs.items():
            sizes = column_bytes(db)
            table_bytes = sum(sizes.values())
            per_rule_queries = sum(billed(c, sizes) for c in rule_cols.values())
            per_rule_floor = sum(1 for c in rule_cols.values() if sum(sizes[x] for x in c) < MIN_BYTES)
            scan_query = billed(scan_cols, sizes)
            n = len(rule_cols)
            # each test: its rule query + dbt's failure count over its stored metrics table (10 MB minimum);
            # the on-run-end hook: one INSERT ... SELECT over the metrics tables (10 MB per table)
            per_rule_total = per_rule_queries + n * MIN_BYTES + n * MIN_BYTES
            scan_total = scan_query + MIN_BYTES + MIN_BYTES
            print(f"\n{rows:,} rows: `events` is {gb(table_bytes).strip()} in BigQuery's sizes (GB = 2^30 bytes)")
            print("  " + ", ".join(f"{c} {sizes[c] / 2**20:.1f} MB" for c in columns))
            table = [
                ("rule queries (CTAS over events)", per_rule_queries, scan_query),
                ("+ dbt failure counts (10 MB each)", n * MIN_BYTES, MIN_BYTES),
                ("+ hook reads metrics (10 MB each)", n * MIN_BYTES, MIN_BYTES),
                ("= per dbt build", per_rule_total, scan_total),
            ]
            print(f"  {'':34} {'per-rule (20 tests)':>20} {'scan (1 test)':>16} {'per-rule / scan':>16}")
            for label, r, sc in table:
                print(f"  {label:34} {gb(r):>20} {gb(sc):>16} {r / sc:>15.1f}x")
            print(
                f"  at ${a.price_per_tib}/TiB: per-rule ${per_rule_total / tib * a.price_per_tib:.4f}, "
                f"scan ${scan_total / tib * a.price_per_tib:.4f} per run; "
                f"{per_rule_floor} of the {n} rule queries are billed the 10 MB minimum"
            )

        endpoint = os.environ.get("DBT_BQ_API_ENDPOINT")
        if endpoint:
            project = os.environ.get("DBT_BQ_PROJECT", "dq-local")
            print(f"\nBigQuery dry run at {endpoint}: {try_dry_run(endpoint, project, 'select 1 as x')}")
        else:
            print("\nBigQuery dry run: not tried (set DBT_BQ_API_ENDPOINT, e.g. run under scripts/test_services.sh)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
