"""Benchmark: are the rules `dataplex-dq suggest` proposes worth having? (issue 35 item 3; not a test)

    python integration_tests/benchmarks/bench_suggest.py [--seeds 1 2 3 4 5] [--rows 2000] [--scale 1] [--keep]

Per seed, an `orders` table of realistic columns is generated day by day (DuckDB):

  order_id        unique, increasing            customer_email  c<k>@<one of 4 domains>, k of 50,000 (repeats)
  status          5 values (10/20/30/35/5 %)    amount          lognormal (median 33, heavy tail), 2 decimals
  created_at      a timestamp within the day    country         8 values, skewed
  coupon          3 codes, NULL on 30 % of rows rows            --rows x U(0.9, 1.1) a day

The rules are suggested on one clean day, as a user would: `dataplex-dq profile` (the CLI, the package's
profile macro) of that table, then the suggestion logic (profile/suggest.py, suggest_table) on its profile.
They are then run, as one data_quality_scan per table (the package's own scan, `dbt test`), on 10 new clean
days and on 10 days for each defect kind, each defect injected into a new clean day:

  nulls         5 % of customer_email set NULL     duplicates    2 % of the rows repeated (same order_id)
  new_category  3 % of status set to 'refunded'    out_of_range  2 % of amount negated or x1000
  malformed     3 % of customer_email without '@'  row_drop      70 % of the rows dropped
(--scale multiplies each share: 0.25 gives weaker defects, 1.25 % NULLs, 0.5 % out of range, 17.5 % rows dropped.)

A day alarms when any rule of its scan fails. Reported: false alarms per clean table-day and the share of
defect days caught per kind, min / median / max over the seeds, with the rules that caught them. Target:
at most 1 false alarm per 100 clean table-days, at least 80 % of the defect days caught.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

KINDS = ("nulls", "duplicates", "new_category", "out_of_range", "malformed", "row_drop")
CLEAN_DAYS = DEFECT_DAYS = 10
STATUSES = (("placed", 0.10), ("paid", 0.20), ("shipped", 0.30), ("delivered", 0.35), ("cancelled", 0.05))
COUNTRIES = (
    ("DE", 0.3),
    ("FR", 0.2),
    ("GB", 0.15),
    ("US", 0.12),
    ("IT", 0.1),
    ("ES", 0.07),
    ("NL", 0.04),
    ("PL", 0.02),
)
DOMAINS = ("example.com", "mail.test", "shop.example", "corp.test")
COLUMNS = ("order_id", "customer_email", "status", "amount", "created_at", "country", "coupon")
TYPES = {
    "order_id": "BIGINT",
    "customer_email": "VARCHAR",
    "status": "VARCHAR",
    "amount": "DECIMAL(12,2)",
    "created_at": "TIMESTAMP",
    "country": "VARCHAR",
    "coupon": "VARCHAR",
}


def clean_day(rng: np.random.Generator, day: int, rows: int) -> list[list[object]]:
    n = round(rows * rng.uniform(0.9, 1.1))
    statuses = rng.choice([s for s, _ in STATUSES], size=n, p=[p for _, p in STATUSES])
    countries = rng.choice([c for c, _ in COUNTRIES], size=n, p=[p for _, p in COUNTRIES])
    customers = rng.integers(0, 50_000, size=n)
    domains = rng.integers(0, len(DOMAINS), size=n)
    amounts = np.round(rng.lognormal(3.5, 0.8, size=n), 2)
    seconds = np.sort(rng.integers(0, 86_400, size=n))
    coupons = rng.choice(["SAVE10", "WELCOME", "FREESHIP"], size=n)
    no_coupon = rng.random(n) < 0.3
    start = np.datetime64("2026-01-01T00:00:00") + np.timedelta64(day, "D")
    return [
        [
            day * 1_000_000 + i,
            f"c{customers[i]}@{DOMAINS[domains[i]]}",
            str(statuses[i]),
            f"{max(amounts[i], 0.01):.2f}",
            str(start + np.timedelta64(int(seconds[i]), "s")).replace("T", " "),
            str(countries[i]),
            None if no_coupon[i] else str(coupons[i]),
        ]
        for i in range(n)
    ]


def inject(rng: np.random.Generator, rows: list[list[object]], kind: str, scale: float = 1.0) -> list[list[object]]:
    """``rows`` with the defect ``kind``, its share of rows x ``scale`` (--scale: weaker or stronger defects)."""
    n = len(rows)
    pick = lambda share: rng.choice(n, size=max(1, int(n * share * scale)), replace=False)  # noqa: E731
    if kind == "nulls":
        for i in pick(0.05):
            rows[i][1] = None
    elif kind == "duplicates":
        rows = rows + [list(rows[i]) for i in pick(0.02)]
    elif kind == "new_category":
        for i in pick(0.03):
            rows[i][2] = "refunded"
    elif kind == "out_of_range":
        for j, i in enumerate(pick(0.02)):
            amount = float(str(rows[i][3]))
            rows[i][3] = f"{-amount:.2f}" if j % 2 else f"{amount * 1000:.2f}"
    elif kind == "malformed":
        for i in pick(0.03):
            rows[i][1] = str(rows[i][1]).replace("@", " at ")
    elif kind == "row_drop":
        keep = sorted(rng.choice(n, size=int(n * (1 - 0.7 * scale)), replace=False))
        rows = [rows[i] for i in keep]
    return rows


def write_table(con, work: Path, name: str, rows: list[list[object]]) -> None:
    path = work / "csv" / f"{name}.csv"
    path.parent.mkdir(exist_ok=True)
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([["" if v is None else v for v in r] for r in rows])
    cols = ", ".join(f"'{c}': '{TYPES[c]}'" for c in COLUMNS)
    con.execute(
        f"create table raw.{name} as select * from read_csv('{path}', header=false, columns={{{cols}}}, "
        "nullstr='', quote='\"')"
    )


def dbt(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "PYTHONPATH": str(REPO / "python")}
    exe = Path(sys.executable).with_name("dbt")
    cmd = [str(exe), *args, "--project-dir", str(work / "proj"), "--profiles-dir", str(work / "proj")]
    return subprocess.run(cmd, cwd=work / "proj", env=env, capture_output=True, text=True, check=False)


def dataplex_dq(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "PYTHONPATH": str(REPO / "python")}
    cmd = [sys.executable, "-m", "dataplex_dq.cli", *args, "--project-dir", str(work / "proj")]
    cmd += ["--profiles-dir", str(work / "proj")]
    return subprocess.run(cmd, cwd=work / "proj", env=env, capture_output=True, text=True, check=False)


def sources_yml(tables: list[str], scans: dict[str, list[dict]] | None = None) -> str:
    entries = []
    for t in tables:
        entry: dict = {"name": t}
        if scans and t in scans:
            entry["data_tests"] = [
                {"dataplex_dq.data_quality_scan": {"name": f"scan_{t}", "arguments": {"rules": scans[t]}}}
            ]
        entries.append(entry)
    return json.dumps({"version": 2, "sources": [{"name": "raw", "schema": "raw", "tables": entries}]}, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="each defect's share of rows x SCALE (default 1)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    import duckdb

    from dataplex_dq.profile.model import profiles_from_rows
    from dataplex_dq.profile.suggest import suggest_table

    work = Path(tempfile.mkdtemp(prefix="bench_suggest_"))
    proj = work / "proj"
    (proj / "models").mkdir(parents=True)
    (proj / "dbt_project.yml").write_text('name: bench_suggest\nversion: "1.0"\nconfig-version: 2\nprofile: bench\n')
    (proj / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    db = work / "bench.duckdb"
    (proj / "profiles.yml").write_text(
        f"bench:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: {db}\n"
        f"      threads: {args.threads}\n"
    )
    started = time.perf_counter()
    con = duckdb.connect(str(db))
    con.execute("create schema raw")
    eval_tables: dict[int, dict[str, str]] = {}  # seed -> table -> kind ("clean" or a defect kind)
    for seed in args.seeds:
        rng = np.random.default_rng(seed)
        write_table(con, work, f"s{seed}_train", clean_day(rng, 0, args.rows))
        tables: dict[str, str] = {}
        day = 1
        for i in range(CLEAN_DAYS):
            tables[f"s{seed}_clean_{i}"] = "clean"
            write_table(con, work, f"s{seed}_clean_{i}", clean_day(rng, day, args.rows))
            day += 1
        for kind in KINDS:
            for i in range(DEFECT_DAYS):
                tables[f"s{seed}_{kind}_{i}"] = kind
                write_table(
                    con, work, f"s{seed}_{kind}_{i}", inject(rng, clean_day(rng, day, args.rows), kind, args.scale)
                )
                day += 1
        eval_tables[seed] = tables
    con.close()
    generated = time.perf_counter() - started

    train = [f"s{seed}_train" for seed in args.seeds]
    every = train + [t for tables in eval_tables.values() for t in tables]
    (proj / "models" / "sources.yml").write_text(sources_yml(every))
    assert dbt(work, "deps").returncode == 0
    t0 = time.perf_counter()
    prof = dataplex_dq(work, "profile", "-s", " ".join(f"source:bench_suggest.raw.{t}" for t in train))
    if prof.returncode != 0:
        sys.exit(f"profile failed:\n{prof.stdout[-3000:]}\n{prof.stderr[-3000:]}")
    profiled = time.perf_counter() - t0

    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "select profile_id, cast(profiled_at as varchar) as profiled_at, data_source, row_count, sampling_percent, "
        "field_index, field_profile from main.dataplex_dq_profiles"
    ).fetchall()
    con.close()
    names = (
        "profile_id",
        "profiled_at",
        "data_source",
        "row_count",
        "sampling_percent",
        "field_index",
        "field_profile",
    )
    history = profiles_from_rows([dict(zip(names, r, strict=True)) for r in rows])
    rules: dict[int, list[dict]] = {}
    for seed in args.seeds:
        uid = f"source.bench_suggest.raw.s{seed}_train"
        rules[seed] = [s.rule for s in suggest_table(uid, "orders", history[uid])]
    scans = {t: rules[seed] for seed, tables in eval_tables.items() for t in tables}
    (proj / "models" / "sources.yml").write_text(sources_yml(every, scans))
    t0 = time.perf_counter()
    run = dbt(work, "test", "--threads", str(args.threads))
    tested = time.perf_counter() - t0
    if run.returncode not in (0, 1):
        sys.exit(f"dbt test crashed:\n{run.stdout[-4000:]}")
    manifest = json.loads((proj / "target" / "manifest.json").read_text())
    con = duckdb.connect(str(db), read_only=True)
    failed: dict[str, list[str]] = {}
    for node in manifest["nodes"].values():
        if node["resource_type"] != "test" or not node["name"].startswith("scan_"):
            continue
        table = node["name"][len("scan_") :]
        got = con.execute(f"select rule_name from {node['relation_name']} where not passed").fetchall()
        failed[table] = sorted(r[0] for r in got)
    con.close()

    print(
        f"bench_suggest: seeds {args.seeds}, ~{args.rows} rows a day; generate {generated:.1f}s, profile "
        f"{profiled:.1f}s, {len(scans)} scans tested in {tested:.1f}s"
    )
    for seed in args.seeds:
        print(f"  seed {seed}: {len(rules[seed])} rules suggested: {', '.join(r['name'] for r in rules[seed])}")
    per_seed_fa: list[float] = []
    caught: dict[str, list[float]] = {k: [] for k in KINDS}
    catchers: dict[str, dict[str, int]] = {k: {} for k in KINDS}
    false_alarm_rules: dict[str, int] = {}
    for tables in eval_tables.values():
        clean = [t for t, k in tables.items() if k == "clean"]
        alarms = [t for t in clean if failed.get(t)]
        for t in alarms:
            for r in failed[t]:
                false_alarm_rules[r] = false_alarm_rules.get(r, 0) + 1
        per_seed_fa.append(len(alarms) / len(clean))
        for kind in KINDS:
            days = [t for t, k in tables.items() if k == kind]
            hit = [t for t in days if failed.get(t)]
            caught[kind].append(len(hit) / len(days))
            for t in hit:
                for r in failed[t]:
                    catchers[kind][r.removeprefix("orders-")] = catchers[kind].get(r.removeprefix("orders-"), 0) + 1

    def mmm(xs: list[float], pct: bool = True) -> str:
        f = (lambda x: f"{x * 100:.0f}%") if pct else (lambda x: f"{x * 100:.1f}")
        return f"{f(min(xs))} / {f(statistics.median(xs))} / {f(max(xs))}"

    print(
        f"\nfalse alarms per 100 clean table-days (min / median / max over {len(args.seeds)} seeds): "
        f"{mmm(per_seed_fa, pct=False)}; all seeds: {sum(per_seed_fa) * CLEAN_DAYS} of "
        f"{CLEAN_DAYS * len(args.seeds)} clean days" + (f" (rules: {false_alarm_rules})" if false_alarm_rules else "")
    )
    print("defect days caught (min / median / max over seeds):")
    for kind in KINDS:
        top = ", ".join(f"{r} {n}" for r, n in sorted(catchers[kind].items(), key=lambda x: -x[1])[:3])
        print(f"  {kind:<13} {mmm(caught[kind])}   caught by: {top}")
    overall = [statistics.mean(c[i] for c in caught.values()) for i in range(len(args.seeds))]
    print(f"  {'all kinds':<13} {mmm(overall)}")
    ok = max(per_seed_fa) * 100 <= 1 and min(min(c) for c in caught.values()) >= 0.8
    print(
        f"\ntarget (<= 1 false alarm per 100 clean table-days, >= 80% of defect days caught per kind): "
        f"{'met' if ok else 'NOT met'}"
    )
    if args.keep:
        print(f"work directory kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
