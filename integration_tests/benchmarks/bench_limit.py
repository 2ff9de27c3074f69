"""Benchmark: the scan and the per-rule tests against L, the anchor's physical limit (not a test).

    python integration_tests/benchmarks/bench_limit.py [--rows 1000000 10000000] [--repeat 5]
        [--anchor ../shared/bench] [--fresh 3] [--keep]

On the anchor of `../shared/bench/` (its `events` table from gen_data.py, its 20 rules from rules.py,
its L from limit_query.sql -- not a query of ours), per row count:

  in one DuckDB process, alternating so that the machine's load touches every variant alike:
    L   limit_query.sql after `SET perfect_ht_threshold = 30` (as its header says);
    S   the data_quality_scan test's compiled SQL, on a fresh connection (DuckDB's defaults);
    S*  the same SQL after the session setting the scan's DuckDB dispatch makes before its query
        (duckdb__scan_prepare_session, macros/scan_cross_db.sql: perfect hashing for a narrow key);
    R   the 20 per-rule tests' compiled SQL, one after the other (their sum), DuckDB's defaults;
    R*  the same, each after the session setting its test's DuckDB dispatch makes before its query
        (duckdb__rule_session_prefix, macros/rule_test.sql: perfect hashing for a uniqueness rule's or a
        duplicate-key SQL assertion's narrow key), as `dbt test` runs them on one connection.
  (The key-range query those dispatches run at compile time, ~0.01 s at 10M rows, is not timed.)
  and as fresh processes (--fresh rounds): `dbt test` of the scan and of the per-rule tests, wall time
  and the test node's execution time from run_results.json.

Every variant's counts are checked against L's (evaluated, passed, null, assertion rows, statistic
values, table conditions); the script exits non-zero on any difference. Prints x L with min/median/max.

--whole N: N rounds of whole processes, each a fresh process, alternating: L (python + duckdb running
limit_query.sql), `dbt test` of the scan and of the per-rule tests, `dataplex-dq build` of the scan (dbt
build, result models when changed, report, export), and with --soda Soda Core's `soda scan` of the same
20 rules written as Soda checks the way users write them (SODA_CHECKS). Prints wall min/median/max and
x L's whole process, Soda's counts against L's, and issue 10's targets for `dataplex-dq build` against
`soda scan` (<= 1.5x at 1M rows, <= 0.7x at 10M). --whole-variants picks the variants (default: all).
Every `dbt test` and `dataplex-dq build` runs the package's own on-run-end hook, as in a user's project:
it records the run in the results table (a package older than that hook records nothing in `dbt test`).
`dataplex-dq build` is also timed in CPU seconds (user + system), less sensitive to a loaded machine.
The variant `plain` is a plain `dbt build` of the same project and selection without the package's
tests and hooks (`--exclude tag:scan`, the var `dataplex_dq_on_run_end: false`: dbt's start-up, parse
and nothing to run), also in CPU seconds; `dataplex-dq build` minus `plain` (medians) is the package's
own share of a build (issue 32 item 2: <= 0.5 s at 1M rows), printed with both.

--code NAME=PATH (repeatable): `dataplex-dq build` of each checkout at PATH in the same rounds, each going
first in turn, each with its own CLI (PATH/python first on PYTHONPATH, the same venv) and its own package
(a dbt project whose packages.yml has `local: PATH`) on its own copy of the table; a before / after
comparison under the same load. Without it, the CLI and package of this checkout:

    python integration_tests/benchmarks/bench_limit.py --rows 1000000 --repeat 1 --whole 5 \
        --whole-variants L,build --code before=/tmp/before --code after=.

Soda Core lives in its own virtualenv, never in the product's (its pins clash with dbt's):

    python3.11 -m venv .venv-soda && .venv-soda/bin/pip install soda-core-duckdb==3.5.6

--soda-venv (default: $DATAPLEX_DQ_SODA_VENV, else .venv-soda in this checkout) points at it; without it
the Soda rows are skipped with the reason printed. Soda's anonymous usage statistics are switched off
(a HOME of its own with .soda/config.yml): with no network their retries would add seconds to each scan.
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
import textwrap
import time
from pathlib import Path
from typing import Any

import bench_scan  # the shared dbt runner (this folder is on sys.path when the script runs)

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

TYPE_KEY = {
    "non_null": "non_null_expectation",
    "uniqueness": "uniqueness_expectation",
    "regex": "regex_expectation",
    "range": "range_expectation",
    "set": "set_expectation",
    "statistic": "statistic_range_expectation",
    "row_condition": "row_condition_expectation",
    "table_condition": "table_condition_expectation",
    "sql_assertion": "sql_assertion",
}
DIMENSION = {"non_null": "COMPLETENESS", "uniqueness": "UNIQUENESS"}
COLUMNS = ["id", "email", "amount", "country", "created_at", "event_date", "qty", "status"]


def find_anchor(given: str | None) -> Path:
    candidates = [Path(given)] if given else [REPO.parent / "shared" / "bench", REPO.parents[1] / "shared" / "bench"]
    for c in candidates:
        if (c / "limit_query.sql").exists() and (c / "rules.py").exists():
            return c.resolve()
    raise SystemExit(
        f"anchor not found (limit_query.sql, rules.py) in {', '.join(map(str, candidates))}; give --anchor"
    )


# ----------------------------------------------------------------------------------------- rules -> dbt


def rule_fields(rule: dict[str, Any]) -> dict[str, Any]:
    """The rule-type fields of one anchor rule (proto snake_case)."""
    t = rule["type"]
    if t == "regex":
        return {"regex": rule["regex"]}
    if t == "set":
        return {"values": rule["values"]}
    if t in ("range", "statistic"):
        out: dict[str, Any] = {"statistic": rule["statistic"]} if t == "statistic" else {}
        for key in ("min", "max"):
            if key in rule:
                out[f"{key}_value"] = str(rule[key])
        if rule.get("strict_min"):
            out["strict_min_enabled"] = True
        if rule.get("strict_max"):
            out["strict_max_enabled"] = True
        return out
    if t in ("row_condition", "table_condition"):
        return {"sql_expression": rule["expr"]}
    if t == "sql_assertion":
        return {"sql_statement": rule["sql"]}
    return {}


def rule_common(rule: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"dimension": DIMENSION.get(rule["type"], "VALIDITY")}
    if rule.get("threshold") is not None:
        out["threshold"] = rule["threshold"]
    if rule.get("ignore_null"):
        out["ignore_null"] = True
    return out


def schema_yml(rules: list[dict[str, Any]]) -> str:
    scan_rules = []
    per_column: dict[str, list[str]] = {c: [] for c in COLUMNS}
    per_model: list[str] = []
    for r in rules:
        key = TYPE_KEY[r["type"]]
        col = {"column": r["column"]} if "column" in r else {}
        scan_rules.append({"name": r["name"], **col, **rule_common(r), key: rule_fields(r)})
        args = {**rule_fields(r), **rule_common(r)}
        test = f"dataplex_dq.{key}: {{name: {r['name']}, arguments: {json.dumps(args)}, config: {{tags: [per_rule]}}}}"
        (per_column[r["column"]] if "column" in r else per_model).append(test)
    scan = (
        f"dataplex_dq.data_quality_scan: {{name: anchor_scan, arguments: {{rules: {json.dumps(scan_rules)}}}, "
        "config: {tags: [scan]}}"
    )
    cols = ""
    for c in COLUMNS:
        cols += f"          - name: {c}\n"
        if per_column[c]:
            cols += "            data_tests:\n" + "".join(f"              - {t}\n" for t in per_column[c])
    return (
        "version: 2\nsources:\n  - name: anchor\n    schema: main\n    tables:\n      - name: events\n"
        "        data_tests:\n"
        + "".join(f"          - {t}\n" for t in [scan, *per_model])
        + "        columns:\n"
        + cols
    )


def write_project(work: Path, db: Path, rules: list[dict[str, Any]], package: Path = REPO) -> Path:
    proj = work / "project"
    (proj / "models").mkdir(parents=True, exist_ok=True)
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: bench_limit
        version: "1.0"
        config-version: 2
        profile: bench_limit
        flags:
          send_anonymous_usage_stats: false
        """)
    )
    (proj / "profiles.yml").write_text(
        f'bench_limit:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n      path: "{db}"\n'
        "      threads: 1\n"
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {package}\n")
    (proj / "models" / "schema.yml").write_text(schema_yml(rules))
    return proj


def dbt(proj: Path, *args: str) -> tuple[float, dict[str, Any]]:
    """bench_scan's dbt runner (wall time, run_results), without the stdout."""
    wall, run_results, _ = bench_scan.dbt(proj, *args)
    return wall, run_results


def compiled_sql(proj: Path) -> tuple[str, dict[str, str]]:
    """(the scan's compiled SQL, {rule name: per-rule compiled SQL})."""
    dbt(proj, "compile", "--select", "tag:scan", "tag:per_rule")
    manifest = json.loads((proj / "target" / "manifest.json").read_text())
    scan, per_rule = None, {}
    for node in manifest["nodes"].values():
        if node["resource_type"] != "test" or not node.get("compiled_code"):
            continue
        tags = node.get("tags") or []
        if "scan" in tags:
            scan = node["compiled_code"]
        elif "per_rule" in tags:
            per_rule[node["name"]] = node["compiled_code"]
    if scan is None or len(per_rule) != 20:
        raise SystemExit(f"compile: expected 1 scan and 20 per-rule tests, got {scan is not None} and {len(per_rule)}")
    return scan, per_rule


# ----------------------------------------------------------------------------------------- metrics


def limit_metrics(row: dict[str, Any], rules: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """L's row -> {rule name: comparable metrics}."""
    out: dict[str, dict[str, Any]] = {}
    for r in rules:
        rid = r["id"]
        m: dict[str, Any] = {}
        for key in ("evaluated_count", "passed_count", "null_count", "assertion_row_count"):
            if f"{rid}__{key}" in row:
                m[key] = int(row[f"{rid}__{key}"])
        if r["type"] == "statistic":
            m["statistic_value"] = float(row[f"{rid}__value"])
        if r["type"] == "table_condition":
            m["passed"] = bool(row[f"{rid}__value"])
        out[r["name"]] = m
    return out


def comparable(rows: list[dict[str, Any]], rules: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Metrics rows of the scan / per-rule tests -> the same shape as limit_metrics."""
    by_name = {r["name"]: r for r in rules}
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        r = by_name[row["rule_name"]]
        m: dict[str, Any] = {}
        if r["type"] in ("non_null", "uniqueness", "regex", "range", "set", "row_condition"):
            m["evaluated_count"] = int(row["evaluated_count"])
            m["passed_count"] = int(row["passed_count"])
            if r["type"] != "row_condition":
                m["null_count"] = int(row["null_count"])
        elif r["type"] == "statistic":
            m["statistic_value"] = float(row["statistic_value"])
        elif r["type"] == "table_condition":
            m["passed"] = bool(row["passed"])
        else:
            m["assertion_row_count"] = int(row["assertion_row_count"])
        out[r["name"]] = m
    return out


def differences(got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]]) -> list[str]:
    diffs = []
    for name, w in want.items():
        g = got.get(name)
        if g is None:
            diffs.append(f"{name}: missing")
            continue
        for key, value in w.items():
            if key not in g:
                continue  # L reports null counts for some rules whose metrics row has none
            same = abs(g[key] - value) <= 1e-9 * max(1.0, abs(value)) if key == "statistic_value" else g[key] == value
            if not same:
                diffs.append(f"{name}.{key}: {g[key]} != L's {value}")
    return diffs


# ----------------------------------------------------------------------------------------- in-process


def fetch(con: Any, sql: str) -> list[dict[str, Any]]:
    res = con.execute(sql)
    cols = [d[0] for d in res.description]
    return [dict(zip(cols, row, strict=True)) for row in res.fetchall()]


def perfect_hash_setting(scan_sql: str) -> int | None:
    """The perfect_ht_threshold duckdb__scan_prepare_session sets for the scan: read from the comment
    it leaves in the compiled SQL (none when it sets nothing)."""
    marker = "-- dataplex_dq: perfect_ht_threshold = "
    for line in scan_sql.splitlines():
        if line.strip().startswith(marker):
            return int(line.strip()[len(marker) :])
    return None


def in_process(db: Path, limit_sql: str, scan_sql: str, per_rule: dict[str, str], repeat: int) -> dict[str, Any]:
    import duckdb

    times: dict[str, list[float]] = {"L": [], "S": [], "S*": [], "R": [], "R*": []}
    results: dict[str, list[dict[str, Any]]] = {}
    setting = perfect_hash_setting(scan_sql)

    def run(variant: str) -> tuple[float, list[dict[str, Any]]]:
        con = duckdb.connect(str(db), read_only=True)
        try:
            if variant == "L":
                con.execute("SET perfect_ht_threshold = 30")
            if variant == "S*" and setting is not None:
                con.execute(f"SET perfect_ht_threshold = {setting}")
            t0 = time.perf_counter()
            if variant == "L":
                rows = fetch(con, limit_sql)
            elif variant in ("S", "S*"):
                rows = fetch(con, scan_sql)
            elif variant == "R":
                rows = [row for sql in per_rule.values() for row in fetch(con, sql)]
            else:  # R*: each test's session setting (its DuckDB dispatch) before its query, never lowered
                rows, bits = [], 0
                for sql in per_rule.values():
                    want = perfect_hash_setting(sql)
                    if want is not None and want > bits:
                        con.execute(f"SET perfect_ht_threshold = {want}")
                        bits = want
                    rows.extend(fetch(con, sql))
            return time.perf_counter() - t0, rows
        finally:
            con.close()

    for round_ in range(repeat + 1):  # round 0: warm-up
        for variant, spent in times.items():
            t, rows = run(variant)
            if round_ > 0:
                spent.append(t)
            results[variant] = rows
    return {"times": times, "rows": results, "setting": setting}


def spread(values: list[float], base: float | None = None) -> str:
    vs = [v / base for v in values] if base else values
    unit = "x" if base else "s"
    return f"{min(vs):6.2f}{unit} {statistics.median(vs):6.2f}{unit} {max(vs):6.2f}{unit}"


def fresh_processes(proj: Path, fresh: int) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {"scan": {"wall": [], "node": []}, "per_rule": {"wall": [], "node": []}}
    for _ in range(fresh):
        for tag in out:
            wall, rr = dbt(proj, "test", "--select", f"tag:{tag}")
            nodes = [
                float(r.get("execution_time") or 0.0)
                for r in rr.get("results") or []
                if r["unique_id"].startswith("test.")
            ]
            out[tag]["wall"].append(wall)
            out[tag]["node"].append(sum(nodes))
    return out


# ----------------------------------------------------------------------------------------- whole processes

# The anchor's 20 rules as Soda checks, written the way Soda's docs show users (built-in metrics with a
# threshold where one exists, `failed rows` for what has none: strict bounds, dates, row conditions, SQL).
SODA_CHECKS = r"""checks for events:
  - missing_count(id) = 0:
      name: id-non-null
  - missing_percent(email) <= 2:
      name: email-non-null
  - duplicate_percent(id) <= 1:
      name: id-unique
  - invalid_percent(email) <= 5:
      name: email-regex
      valid regex: ^[^@\s]+@[^@\s]+\.[a-z]+$
  - invalid_count(status) = 0:
      name: status-regex
      valid regex: ^(ok|retry|fail)$
  - invalid_percent(amount) <= 5:
      name: amount-0-10000
      valid min: 0
      valid max: 10000
  - failed rows:
      name: amount-positive
      fail condition: amount <= 0
  - failed rows:
      name: event-date-2024
      fail condition: event_date < DATE '2024-01-01' OR event_date > DATE '2024-12-31'
  - failed rows:
      name: created-at-2024
      fail condition: created_at < TIMESTAMP '2024-01-01 00:00:00' OR created_at >= TIMESTAMP '2025-01-01 00:00:00'
  - invalid_percent(qty) <= 1:
      name: qty-1-10
      valid min: 1
      valid max: 10
  - invalid_percent(country) <= 3:
      name: country-set
      valid values: [US, DE, FR, GB, JP]
  - invalid_percent(status) <= 1:
      name: status-set
      valid values: [ok, retry, fail]
  - avg(amount) between 0 and 1000:
      name: amount-mean
  - max(qty) <= 10:
      name: qty-max
  - min(amount) >= -100:
      name: amount-min
  - failed rows:
      name: qty-amount-cap
      fail condition: qty * amount >= 100000
  - failed rows:
      name: qty-positive
      fail condition: qty <= 0
  - row_count > 1000:
      name: enough-rows
  - failed rows:
      name: no-big-refunds
      fail query: select * from events where amount < -1000
  - duplicate_count(id) = 0:
      name: no-dup-ids
"""


def soda_expected(row: dict[str, Any]) -> dict[str, float | None]:
    """Per Soda check, the value its metric must have from L's row (None: not comparable).
    Soda's invalid/failed-rows counts leave NULLs out, where Dataplex counts them as failing (unless
    ignore_null): so they equal L's evaluated - passed - null; its percentages are over all rows, rounded
    to 2 decimals; duplicate_count is the number of id values occurring more than once (r20's rows)."""

    def c(key: str) -> int:
        return int(row[key])

    n = c("r01__evaluated_count")

    def failing(rid: str) -> int:
        return c(f"{rid}__evaluated_count") - c(f"{rid}__passed_count") - c(f"{rid}__null_count")

    def pct(count: int) -> float:
        return round(count * 100 / n, 2) if n else 0.0

    return {
        "id-non-null": c("r01__null_count"),
        "email-non-null": pct(c("r02__null_count")),
        "id-unique": None,  # Soda: duplicated values per row; Dataplex: rows whose value occurs once
        "email-regex": pct(failing("r04")),
        "status-regex": failing("r05"),
        "amount-0-10000": pct(failing("r06")),
        "amount-positive": c("r07__evaluated_count") - c("r07__passed_count"),  # ignore_null: NULLs not evaluated
        "event-date-2024": failing("r08"),
        "created-at-2024": failing("r09"),
        "qty-1-10": pct(failing("r10")),
        "country-set": pct(failing("r11")),
        "status-set": pct(failing("r12")),
        "amount-mean": float(row["r13__value"]),
        "qty-max": float(row["r14__value"]),
        "amount-min": float(row["r15__value"]),
        "qty-amount-cap": None,  # L counts a NULL product as failing; L has no count of those NULLs
        "qty-positive": c("r17__evaluated_count") - c("r17__passed_count") - c("r10__null_count"),  # NULL qty
        "enough-rows": n,
        "no-big-refunds": c("r19__assertion_row_count"),
        "no-dup-ids": c("r20__assertion_row_count"),
    }


def soda_exe(venv: str | None) -> tuple[Path | None, str]:
    """(the soda executable, '') or (None, why not)."""
    root = Path(venv or os.environ.get("DATAPLEX_DQ_SODA_VENV") or REPO / ".venv-soda")
    exe = root / "bin" / "soda"
    if not exe.exists():
        return None, (
            f"no Soda Core at {exe}: create its own venv with `python3.11 -m venv {root} && "
            f"{root}/bin/pip install soda-core-duckdb==3.5.6` (or give --soda-venv)"
        )
    return exe, ""


def soda_scan(exe: Path, work: Path, db: Path) -> tuple[float, dict[str, float]]:
    """One `soda scan` as a fresh process: (wall seconds, {check name: its metric value})."""
    home = work / "soda_home"
    (home / ".soda").mkdir(parents=True, exist_ok=True)
    (home / ".soda" / "config.yml").write_text("send_anonymous_usage_stats: false\n")
    conf = work / "soda_configuration.yml"
    conf.write_text(f"data_source anchor:\n  type: duckdb\n  path: {db}\n  read_only: true\n")
    checks = work / "soda_checks.yml"
    checks.write_text(SODA_CHECKS)
    out = work / "soda_results.json"
    out.unlink(missing_ok=True)
    cmd = [str(exe), "scan", "-d", "anchor", "-c", str(conf), "-srf", str(out), str(checks)]
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=work, env={**os.environ, "HOME": str(home)}, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1, 2) or not out.exists():  # soda exits 1 (warnings) / 2 (failures)
        raise SystemExit(f"soda scan failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    result = json.loads(out.read_text())
    errors = [c["name"] for c in result.get("checks") or [] if c.get("outcome") not in ("pass", "fail", "warn")]
    if errors or result.get("hasErrors"):
        raise SystemExit(f"soda scan: checks in error: {errors}\n{proc.stdout[-3000:]}")
    values = {c["name"]: float(c["diagnostics"]["value"]) for c in result["checks"]}
    return wall, values


def soda_differences(got: dict[str, float], want: dict[str, float | None]) -> tuple[list[str], int]:
    """(differences, number of checks compared)."""
    diffs, compared = [], 0
    for name, value in want.items():
        if value is None:
            continue
        compared += 1
        if name not in got:
            diffs.append(f"{name}: missing")
        elif abs(got[name] - value) > 1e-9 * max(1.0, abs(value)):
            diffs.append(f"{name}: {got[name]} != L's {value}")
    return diffs, compared


def limit_process(db: Path, limit_sql: str, work: Path) -> float:
    """L as a whole process: python, import duckdb, connect, limit_query.sql, fetch."""
    script = work / "limit_process.py"
    script.write_text(
        "import sys, duckdb\n"
        f"con = duckdb.connect({str(db)!r}, read_only=True)\n"
        "con.execute('SET perfect_ht_threshold = 30')\n"
        f"print(con.execute(open({str(work / 'limit_query.sql')!r}).read()).fetchall()[0][0])\n"
    )
    (work / "limit_query.sql").write_text(limit_sql)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    return time.perf_counter() - t0


def cli_command(code: Path | None) -> tuple[list[str], dict[str, str]]:
    """How to start `dataplex-dq`: this venv's console script, or (``code``: a checkout) that checkout's own
    CLI with the same Python, its python/ first on PYTHONPATH (its console script's module: cli/main.py's
    `run` today, cli.py's `run` before the CLI became a package)."""
    if code is None:
        return [str(Path(sys.executable).parent / "dataplex-dq")], {}
    module = (
        "dataplex_dq.cli.main" if (code / "python" / "dataplex_dq" / "cli" / "main.py").exists() else "dataplex_dq.cli"
    )
    path = os.pathsep.join(p for p in (str(code / "python"), os.environ.get("PYTHONPATH")) if p)
    return [sys.executable, "-c", f"import sys; from {module} import run; sys.exit(run())"], {"PYTHONPATH": path}


def dataplex_dq_build(proj: Path, code: Path | None = None) -> tuple[float, float]:
    """`dataplex-dq build --select tag:scan` as a fresh process (dbt build of the scan with the package's
    on-run-end hook, the package's result models when changed, the report), with the CLI of ``code``:
    (wall seconds, CPU seconds: user + system of the process and its children, less sensitive to other
    processes on a shared machine)."""
    exe, extra = cli_command(code)
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_PROFILES_DIR": str(proj), **extra}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*exe, "build", "--select", "tag:scan", "--project-dir", str(proj), "--no-fail-on-rule-failure"],
        cwd=proj,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proc.returncode != 0:
        raise SystemExit(f"dataplex-dq build failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    return wall, cpu


def plain_build(proj: Path) -> tuple[float, float]:
    """`dbt build` of the scan's selection without the package's tests and hooks, as a fresh process:
    (wall seconds, CPU seconds of the process and its children)."""
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_PROFILES_DIR": str(proj)}
    cmd = [str(Path(sys.executable).parent / "dbt"), "build", "--select", "tag:scan", "--exclude", "tag:scan"]
    cmd += ["--vars", "{dataplex_dq_on_run_end: false}", "--project-dir", str(proj)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"plain dbt build failed ({proc.returncode}):\n{proc.stdout[-3000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def whole_processes(
    proj: Path,
    db: Path,
    limit_sql: str,
    rounds: int,
    *,
    soda: Path | None,
    soda_db: Path,
    limit_row: dict[str, Any],
    variants: set[str],
    builds: dict[str, tuple[Path, Path | None]],
    plain: Path | None = None,
) -> tuple[dict[str, list[float]], list[str]]:
    """Rounds of fresh processes, alternating the variants; ({variant: walls}, Soda's differences).
    Soda reads ``soda_db``, the anchor's file as generated (its DuckDB is older than dbt's, which writes
    its metrics tables into ``db``, a copy). ``builds``: per label, the project and the checkout (None: this
    venv's console script) of each `dataplex-dq build` variant."""
    walls: dict[str, list[float]] = {k: [] for k in ("L", "scan", "per_rule") if k in variants}
    if "build" in variants:
        for label, (build_proj, code) in builds.items():
            walls[label] = []
            walls[f"{label} CPU"] = []
            dataplex_dq_build(build_proj, code)  # warm-up: builds the package's result models once
    if plain is not None:
        walls["plain"] = []
        walls["plain CPU"] = []
        plain_build(plain)  # warm-up: its own project, so that its --vars keep both partial parses valid
    if soda is not None:
        walls["soda"] = []
    diffs: list[str] = []
    compared = 0
    work = proj.parent / "whole"
    work.mkdir(exist_ok=True)
    for round_ in range(rounds):
        if "L" in variants:
            walls["L"].append(limit_process(db, limit_sql, work))
        for tag in ("scan", "per_rule"):
            if tag in variants:
                walls[tag].append(dbt(proj, "test", "--select", f"tag:{tag}")[0])
        order = list(builds.items()) if "build" in variants else []
        for label, (build_proj, code) in order if round_ % 2 == 0 else order[::-1]:  # each goes first in turn
            wall, cpu = dataplex_dq_build(build_proj, code)
            walls[label].append(wall)
            walls[f"{label} CPU"].append(cpu)
        if plain is not None:
            wall, cpu = plain_build(plain)
            walls["plain"].append(wall)
            walls["plain CPU"].append(cpu)
        print(
            f"  round {round_ + 1}: "
            + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in walls.items() if len(v) == round_ + 1)
            + f"; load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        if soda is not None:
            wall, values = soda_scan(soda, work, soda_db)
            walls["soda"].append(wall)
            diffs, compared = soda_differences(values, soda_expected(limit_row))
    if soda is not None:
        print(
            f"  Soda: {compared} of 20 checks' values compared with L's: "
            + ("all equal" if not diffs else "; ".join(diffs))
        )
    return walls, diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--repeat", type=int, default=5, help="in-process rounds (after one warm-up)")
    ap.add_argument("--fresh", type=int, default=0, help="fresh-process dbt test rounds (0: skip)")
    ap.add_argument("--anchor", default=None, help="the anchor folder (default ../shared/bench)")
    ap.add_argument("--data-dir", default=None, help="where events_<rows>.duckdb live (generated if missing)")
    ap.add_argument("--whole", type=int, default=0, help="rounds of whole fresh processes, incl. dataplex-dq build")
    ap.add_argument("--soda", action="store_true", help="with --whole: also Soda Core's `soda scan` (own venv)")
    ap.add_argument("--soda-venv", default=None, help="Soda Core's venv (default $DATAPLEX_DQ_SODA_VENV or .venv-soda)")
    ap.add_argument(
        "--whole-variants", default="L,scan,per_rule,build", help="with --whole: which of L,scan,per_rule,build,plain"
    )
    ap.add_argument(
        "--code",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="with --whole: `dataplex-dq build` of the checkout at PATH (its CLI and its package); repeatable",
    )
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    variants = {v.strip() for v in a.whole_variants.split(",") if v.strip()}
    codes = {name: Path(path).resolve() for name, _, path in (c.partition("=") for c in a.code)}

    anchor = find_anchor(a.anchor)
    sys.path.insert(0, str(anchor))
    import gen_data  # type: ignore[import-not-found]
    import rules as anchor_rules  # type: ignore[import-not-found]

    rules = anchor_rules.RULES
    limit_sql = (anchor / "limit_query.sql").read_text()
    data_dir = Path(a.data_dir or Path(tempfile.gettempdir()) / "dq-bench")
    work = Path(tempfile.mkdtemp(prefix="bench_limit_"))
    failed = False
    print(f"anchor {anchor}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (timings are noisy)")
    soda: Path | None = None
    if a.soda:
        soda, why = soda_exe(a.soda_venv)
        if soda is None:
            print(f"Soda skipped: {why}")
    try:
        for rows in a.rows:
            db = data_dir / f"events_{rows}.duckdb"
            if not db.exists():
                gen_data.generate(rows, str(db))
            work_db = work / f"events_{rows}.duckdb"
            shutil.copy(db, work_db)  # dbt writes its metrics tables here; the anchor's file stays as generated
            proj = write_project(work / str(rows), work_db, rules)
            dbt(proj, "deps")
            scan_sql, per_rule = compiled_sql(proj)
            r = in_process(work_db, limit_sql, scan_sql, per_rule, a.repeat)
            want = limit_metrics(r["rows"]["L"][0], rules)
            base = statistics.median(r["times"]["L"])
            print(f"\n{rows:,} rows, in one process, {a.repeat} rounds (min / median / max; x = over L's median)")
            print(f"  {'L':3} {spread(r['times']['L'])}   {spread(r['times']['L'], base)}")
            for v in ("S", "S*", "R", "R*"):
                diffs = differences(comparable(r["rows"][v], rules), want)
                failed = failed or bool(diffs)
                note = "counts = L" if not diffs else "COUNTS DIFFER: " + "; ".join(diffs[:5])
                extra = f" (perfect_ht_threshold = {r['setting']})" if v == "S*" else ""
                print(f"  {v:3} {spread(r['times'][v])}   {spread(r['times'][v], base)}   {note}{extra}")
            if a.fresh:
                f = fresh_processes(proj, a.fresh)
                print(f"  fresh processes, {a.fresh} rounds: dbt test (wall) and its test nodes' execution time")
                for tag, label in (("scan", "S"), ("per_rule", "R")):
                    print(
                        f"  {label} wall {spread(f[tag]['wall'])}   node {spread(f[tag]['node'])}"
                        f"   node x L {spread(f[tag]['node'], base)}"
                    )
            if a.whole:
                builds: dict[str, tuple[Path, Path | None]] = {"build": (proj, None)}
                if codes:
                    builds = {}
                    for name, code in codes.items():
                        code_db = work / f"events_{rows}_{name}.duckdb"
                        shutil.copy(db, code_db)
                        builds[f"build {name}"] = (write_project(work / f"{rows}_{name}", code_db, rules, code), code)
                        dbt(builds[f"build {name}"][0], "deps")
                plain = None
                if "plain" in variants:  # the same project in a folder of its own (its own partial parse)
                    plain = write_project(work / f"{rows}_plain", work_db, rules)
                    dbt(plain, "deps")
                walls, soda_diffs = whole_processes(
                    proj,
                    work_db,
                    limit_sql,
                    a.whole,
                    soda=soda,
                    soda_db=db,
                    limit_row=r["rows"]["L"][0],
                    variants=variants,
                    builds=builds,
                    plain=plain,
                )
                failed = failed or bool(soda_diffs)
                whole_l = statistics.median(walls["L"]) if walls.get("L") else None
                print(
                    f"  whole processes, {a.whole} rounds (wall min / median / max; x = over L's whole-process median)"
                )
                labels = {
                    "L": "L (python + duckdb)",
                    "scan": "dbt test, scan",
                    "per_rule": "dbt test, per-rule",
                    "build": "dataplex-dq build",
                    "plain": "plain dbt build",
                    "plain CPU": "plain dbt build CPU",
                    "soda": "soda scan",
                }
                for key, values in walls.items():
                    label = labels.get(key) or f"dataplex-dq {key}"
                    x_l = f"   {spread(values, whole_l)}" if whole_l and not key.endswith(" CPU") else ""
                    print(f"  {label:22} {spread(values)}{x_l}")
                if "plain" in walls:
                    for key in [k for k in walls if k.startswith("build") and not k.endswith(" CPU")]:
                        for unit in ("", " CPU"):
                            own = statistics.median(walls[key + unit]) - statistics.median(walls["plain" + unit])
                            print(
                                f"  {key}{unit} minus plain dbt build{unit} (medians): {own:.2f} s"
                                f" (issue 32 item 2 target <= 0.5 s at 1M rows)"
                            )
                if "soda" in walls and "build" in walls:
                    ratio = statistics.median(walls["build"]) / statistics.median(walls["soda"])
                    goal = 1.5 if rows <= 1_000_000 else 0.7
                    verdict = "met" if ratio <= goal else "NOT met"
                    print(
                        f"  dataplex-dq build / soda scan (medians): {ratio:.2f}x "
                        f"(issue 10 target <= {goal}x: {verdict})"
                    )
    finally:
        if a.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if failed:
        raise SystemExit("counts differ from L")


if __name__ == "__main__":
    main()
