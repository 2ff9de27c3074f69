#!/usr/bin/env python3
"""Run the dataplex_dq demo: a fresh DuckDB, `dbt deps`, `dbt build`, then a rule table.

This is what `make demo` runs (with the repository's .venv python). It can be run
from anywhere: it changes into demo/ and points DBT_PROFILES_DIR at demo/profiles.yml.
Extra command-line arguments are passed on to `dbt build` (e.g. `--select stg_orders+`).

Exit status:
    0  dbt ran to the end -- even when rules failed (failing rules are the point of the demo)
    1  dbt itself errored: a node with status 'error', or dbt raised an exception
    2  `dbt deps` failed
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
TARGET_DIR = DEMO_DIR / "target"
HTML_REPORT = TARGET_DIR / "dataplex_dq" / "index.html"  # the HTML report (`dataplex-dq report --html`)
SEED_FILES = ("customers.csv", "orders.csv", "payments.csv")
PACKAGE_NAMESPACE = "dataplex_dq"


def prepare_environment() -> Path:
    """cd into demo/, use demo/profiles.yml and start from an empty database."""
    os.chdir(DEMO_DIR)
    os.environ["DBT_PROFILES_DIR"] = str(DEMO_DIR)
    db_path = Path(os.environ.get("DBT_DUCKDB_PATH", "demo.duckdb"))
    if not db_path.is_absolute():
        db_path = DEMO_DIR / db_path
    for stale in (db_path, db_path.with_name(db_path.name + ".wal")):
        if stale.exists():
            stale.unlink()
    if not all((DEMO_DIR / "seeds" / name).exists() for name in SEED_FILES):
        subprocess.run([sys.executable, str(DEMO_DIR / "generate_data.py")], check=True)
    return db_path


def run_dbt(build_args: list[str]) -> tuple[bool, str | None]:
    """Run `dbt deps` and `dbt build` in-process. Returns (build_ran, error message)."""
    from dbt.cli.main import dbtRunner

    runner = dbtRunner()
    deps = runner.invoke(["deps"])
    if deps.exception is not None or not deps.success:
        print(f"dbt deps failed: {deps.exception or 'see the log above'}", file=sys.stderr)
        sys.exit(2)

    build = runner.invoke(["build", *build_args])
    if build.exception is not None:
        return False, f"dbt build raised {type(build.exception).__name__}: {build.exception}"
    # build.success is False as soon as a test fails; that is expected here.
    return True, None


def load_artifacts() -> tuple[dict, dict]:
    with open(TARGET_DIR / "run_results.json", encoding="utf-8") as fh:
        run_results = json.load(fh)
    with open(TARGET_DIR / "manifest.json", encoding="utf-8") as fh:
        manifest = json.load(fh)
    return run_results, manifest


def rule_rows(run_results: dict, manifest: dict) -> list[dict]:
    """One row per dataplex_dq test of the last invocation, in declaration order."""
    nodes = manifest.get("nodes", {})
    rows = []
    for result in run_results.get("results", []):
        node = nodes.get(result["unique_id"], {})
        meta = node.get("test_metadata") or {}
        if node.get("resource_type") != "test" or meta.get("namespace") != PACKAGE_NAMESPACE:
            continue
        kwargs = meta.get("kwargs") or {}
        source_id = node.get("attached_node") or next(iter(node.get("depends_on", {}).get("nodes", [])), "")
        suspended = kwargs.get("suspended") in (True, "true", "True")
        status = result.get("status")
        rows.append(
            {
                "data_source": source_id.split(".")[-1],
                "rule": node.get("name", result["unique_id"]),
                "type": meta.get("name", "").removesuffix("_expectation"),
                "column": node.get("column_name") or kwargs.get("column") or "",
                "dimension": kwargs.get("dimension") or "",
                "severity": (node.get("config") or {}).get("severity", "ERROR").lower(),
                "status": "suspended" if suspended and status == "pass" else status,
                "failures": result.get("failures"),
                "message": result.get("message") or "",
            }
        )
    rows.sort(key=lambda r: (r["data_source"], r["rule"]))
    return rows


STATUS_STYLE = {
    "pass": "green",
    "fail": "red",
    "warn": "yellow",
    "error": "bold red",
    "skipped": "dim",
    "suspended": "cyan",
}


def print_table(rows: list[dict]) -> None:
    columns = ["data_source", "rule", "type", "column", "dimension", "status", "failures"]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain-text fallback
        widths = {c: max(len(c), *(len(str(r[c] if r[c] is not None else "")) for r in rows)) for c in columns}
        print("  ".join(c.ljust(widths[c]) for c in columns))
        for r in rows:
            print("  ".join(str(r[c] if r[c] is not None else "").ljust(widths[c]) for c in columns))
        return

    table = Table(title="dataplex_dq rules", title_justify="left")
    for c in columns:
        table.add_column(c.replace("_", " "), justify="right" if c == "failures" else "left")
    for r in rows:
        style = STATUS_STYLE.get(r["status"], "")
        cells = [str(r[c]) if r[c] is not None else "" for c in columns]
        cells[columns.index("status")] = f"[{style}]{r['status']}[/]" if style else r["status"]
        table.add_row(*cells)
    console = Console()
    if not console.is_terminal:  # e.g. piped into a file or CI log: do not squeeze the table
        console = Console(width=max(console.width, 150))
    console.print(table)


def post_build(target_dir: Path) -> int:
    """The `dataplex-dq report` step: DataQualityResult protos under target/dataplex_dq/, rows in the
    dataplex_dq_results table of demo.duckdb, and the Dataplex scores per table and dimension."""
    from rich.console import Console

    from dataplex_dq.cli.report import _run_report

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 150))
    print()
    code = _run_report(
        project_dir=DEMO_DIR,
        profiles_dir=DEMO_DIR,
        target=None,
        target_path=target_dir,
        export=True,
        fail_on_rule_failure=False,
        console=console,
        html=str(target_dir / "dataplex_dq" / "index.html"),
    )
    if code == 0:
        show_latest_scores(console)
    return code


def show_latest_scores(console) -> None:  # type: ignore[no-untyped-def]
    """What a BI tool sees: the package's result model `dq_latest_scores` over the results table."""
    import duckdb
    from rich.table import Table

    db_path = Path(os.environ.get("DBT_DUCKDB_PATH", DEMO_DIR / "demo.duckdb"))
    con = duckdb.connect(str(db_path))
    try:
        rows = con.execute(
            "select table_id, dimension, score, passed from main.dq_latest_scores "
            "where score_level = 'table' order by table_id, dimension"
        ).fetchall()
        count = con.execute("select count(*) from main.dataplex_dq_results").fetchone()[0]
    finally:
        con.close()
    table = Table(
        title=f"dq_latest_scores in {db_path.name} (latest score per table and dimension; "
        f"{count} rows in dataplex_dq_results)",
        title_justify="left",
    )
    for c in ("table", "dimension", "score", "passed"):
        table.add_column(c, justify="right" if c == "score" else "left")
    for t, d, score, passed in rows:
        table.add_row(t, d, "" if score is None else f"{score:.2f}", str(passed).lower())
    console.print(table)


def main(argv: list[str]) -> int:
    prepare_environment()
    build_ran, error = run_dbt(argv)
    if not build_ran:
        print(error, file=sys.stderr)
        return 1

    run_results, manifest = load_artifacts()
    rows = rule_rows(run_results, manifest)
    print()
    if rows:
        print_table(rows)
    else:
        print("No dataplex_dq tests ran.")

    errored = [r for r in run_results.get("results", []) if r.get("status") == "error"]
    skipped = [r for r in run_results.get("results", []) if r.get("status") == "skipped"]
    if skipped:
        print(f"\n{len(skipped)} node(s) skipped: " + ", ".join(r["unique_id"] for r in skipped))

    report_code = post_build(TARGET_DIR)

    if errored:
        print(f"\ndbt reported {len(errored)} error(s):", file=sys.stderr)
        for r in errored:
            print(f"  {r['unique_id']}: {(r.get('message') or '').strip()[:500]}", file=sys.stderr)
        return 1
    if report_code != 0:
        print("\nThe dataplex-dq report could not complete (see above).", file=sys.stderr)
        return 1
    failed = sum(r["status"] in ("fail", "warn") for r in rows)
    print(f"\nDemo finished: {len(rows)} rules, {failed} not passing (expected, see EXPECTED.md).")
    print(f"HTML report: {HTML_REPORT} (open it in a browser)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
