"""Benchmark: one fused data_quality_scan against the physical limit (not a test).

    python integration_tests/benchmarks/bench_scan.py [--rows 10000000] [--repeat 5] [--keep]

On DuckDB, one table of --rows rows and 8 columns, 20 rules covering every rule type, four ways:

  L  one hand-written SQL statement computing the 20 rules' counts, run with the duckdb module
     (the physical limit: what the warehouse needs to compute these numbers at all);
  S  the 20 rules as one dataplex_dq.data_quality_scan through `dbt test` (the test node's execution
     time from run_results.json, and the whole command's wall time);
  R  the 20 rules as 20 per-rule dataplex_dq tests through `dbt test`;
  P  20 dbt-utils-style tests through `dbt test` (each returns its failing rows; dbt counts them).

Each is timed as the median of --repeat rounds (L, S, R, P in turn) after one warm-up round. S, R and L must agree on
every count (the script exits non-zero if not). Every `dbt test` runs the package's own on-run-end hook (as
in a user's project: it records the run in the results table), so the whole command's time includes it.

Then the report's pure part (what `dataplex-dq report` does after its two queries of the results table:
the recorded rows -> typed jobs with their outcomes and the scores the SQL computed -> DataQualityResult
per data source -> result files; no warehouse) is timed on a synthetic invocation of 10,000 recorded rules
(--posthook-rules): copies of the rows the hook recorded for S and R, 100 rules per data source.

The generated dbt project and DuckDB file live in a temporary folder (kept with --keep).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

# ----------------------------------------------------------------------------------------- data

TABLE = "bench_data"
COLUMNS = "id, customer_id, amount, qty, status, email, created_on, updated_at"


def generate(db: Path, rows: int) -> None:
    import duckdb

    con = duckdb.connect(str(db))
    con.execute(f"""
        create or replace table main.{TABLE} as
        select
          cast(i as bigint) as id,
          case when i % 1000 = 7 then null
               else cast((i * 7919) % {max(rows * 9 // 10, 1)} as bigint) end as customer_id,
          case when i % 50 = 0 then null else ((i * 37) % 100000) / 100.0 end as amount,
          cast((i * 13) % 120 as integer) as qty,
          (['active', 'inactive', 'pending', 'closed', 'Bogus'])[1 + (i % 97) % 5] as status,
          case when i % 500 = 3 then null when i % 200 = 0 then 'broken'
               else 'user' || (i % 100000) || '@example.com' end as email,
          cast(date '2024-01-01' + cast(i % 400 as integer) as date) as created_on,
          timestamp '2024-01-01 00:00:00' + to_seconds(i % 31536000) as updated_at
        from range({rows}) r(i)
    """)
    con.close()


# ----------------------------------------------------------------------------------------- rules

# (name, rule type, column, rule-type fields, common fields) -- 20 rules, every rule type
RULES: list[tuple[str, str, str | None, dict[str, Any], dict[str, Any]]] = [
    (
        "amount-range",
        "range_expectation",
        "amount",
        {"min_value": "0", "max_value": "900"},
        {"ignore_null": True, "dimension": "VALIDITY"},
    ),
    ("qty-range", "range_expectation", "qty", {"min_value": "0", "max_value": "100"}, {"dimension": "VALIDITY"}),
    (
        "created-in-2024",
        "range_expectation",
        "created_on",
        {"min_value": "2024-01-01", "max_value": "2024-12-31"},
        {"threshold": 0.9, "dimension": "VALIDITY"},
    ),
    ("customer-not-null", "non_null_expectation", "customer_id", {}, {"dimension": "COMPLETENESS"}),
    ("amount-not-null", "non_null_expectation", "amount", {}, {"threshold": 0.95, "dimension": "COMPLETENESS"}),
    ("email-not-null", "non_null_expectation", "email", {}, {"dimension": "COMPLETENESS"}),
    (
        "status-known",
        "set_expectation",
        "status",
        {"values": ["active", "inactive", "pending", "closed"]},
        {"dimension": "VALIDITY"},
    ),
    (
        "qty-small-set",
        "set_expectation",
        "qty",
        {"values": [str(v) for v in range(10)]},
        {"ignore_null": True, "dimension": "VALIDITY"},
    ),
    (
        "email-shape",
        "regex_expectation",
        "email",
        {"regex": "^[a-z0-9]+@example\\.com$"},
        {"ignore_null": True, "dimension": "VALIDITY"},
    ),
    ("status-lower", "regex_expectation", "status", {"regex": "^[a-z]+$"}, {"dimension": "VALIDITY"}),
    ("id-unique", "uniqueness_expectation", "id", {}, {"dimension": "UNIQUENESS"}),
    ("customer-unique", "uniqueness_expectation", "customer_id", {}, {"ignore_null": True, "dimension": "UNIQUENESS"}),
    (
        "amount-mean",
        "statistic_range_expectation",
        "amount",
        {"statistic": "MEAN", "min_value": "400", "max_value": "600"},
        {"dimension": "ACCURACY"},
    ),
    (
        "qty-min",
        "statistic_range_expectation",
        "qty",
        {"statistic": "MIN", "min_value": "0"},
        {"dimension": "ACCURACY"},
    ),
    (
        "updated-max",
        "statistic_range_expectation",
        "updated_at",
        {"statistic": "MAX", "max_value": "2025-01-01 00:00:00"},
        {"dimension": "TIMELINESS"},
    ),
    (
        "amount-not-negative",
        "row_condition_expectation",
        "amount",
        {"sql_expression": "amount is null or amount >= 0"},
        {"dimension": "VALIDITY"},
    ),
    (
        "updated-after-created",
        "row_condition_expectation",
        None,
        {"sql_expression": "updated_at >= created_on"},
        {"threshold": 0.5, "dimension": "CONSISTENCY"},
    ),
    ("has-rows", "table_condition_expectation", None, {"sql_expression": "count(*) > 0"}, {"dimension": "VOLUME"}),
    (
        "amount-max-below-1000",
        "table_condition_expectation",
        None,
        {"sql_expression": "max(amount) < 1000"},
        {"dimension": "VALIDITY"},
    ),
    (
        "no-negative-qty",
        "sql_assertion",
        None,
        {"sql_statement": "select * from ${data()} where qty < 0"},
        {"dimension": "VALIDITY"},
    ),
]
assert len(RULES) == 20 and len({r[1] for r in RULES}) == 9


def _yaml(value: Any) -> str:
    return json.dumps(value)  # JSON is YAML


def schema_yml() -> str:
    scan_rules = []
    per_rule_model: list[str] = []
    per_rule_columns: dict[str, list[str]] = defaultdict(list)
    for name, rule_type, column, fields, common in RULES:
        rule = {"name": name, **({"column": column} if column else {}), **common, rule_type: fields}
        scan_rules.append(rule)
        args = {**fields, **common}
        if column and rule_type in ("row_condition_expectation", "table_condition_expectation", "sql_assertion"):
            args["column"] = column
        test = f"dataplex_dq.{rule_type}: {{name: {name}, arguments: {_yaml(args)}, config: {{tags: [per_rule]}}}}"
        if column and rule_type not in ("row_condition_expectation", "table_condition_expectation", "sql_assertion"):
            per_rule_columns[column].append(test)
        else:
            per_rule_model.append(test)
    plain = plain_tests()
    columns = []
    for col in ["id", "customer_id", "amount", "qty", "status", "email", "created_on", "updated_at"]:
        tests = per_rule_columns.get(col, []) + plain["columns"].get(col, [])
        block = f"          - name: {col}\n"
        if tests:
            block += "            data_tests:\n" + "".join(f"              - {t}\n" for t in tests)
        columns.append(block)
    model_tests = per_rule_model + plain["model"]
    scan = (
        f"dataplex_dq.data_quality_scan: {{name: bench_scan, arguments: {{rules: {_yaml(scan_rules)}}}, "
        "config: {tags: [scan]}}"
    )
    return (
        "version: 2\nsources:\n  - name: bench\n    schema: main\n    tables:\n"
        f"      - name: {TABLE}\n        data_tests:\n"
        + "".join(f"          - {t}\n" for t in [scan, *model_tests])
        + "        columns:\n"
        + "".join(columns)
    )


# dbt-utils-style tests: each returns its failing rows (or a row when an aggregate fails); dbt counts them.
PLAIN_MACROS = """
{% test p_range(model, column_name, min_value=none, max_value=none, ignore_null=false) %}
select * from {{ model }} where not coalesce(
  {%- if min_value is not none %} {{ column_name }} >= {{ min_value }}{% endif -%}
  {%- if min_value is not none and max_value is not none %} and{% endif -%}
  {%- if max_value is not none %} {{ column_name }} <= {{ max_value }}{% endif %}, false)
  {%- if ignore_null %} and {{ column_name }} is not null{% endif %}
{% endtest %}
{% test p_not_null(model, column_name) %}
select * from {{ model }} where {{ column_name }} is null
{% endtest %}
{% test p_in_set(model, column_name, values, ignore_null=false) %}
select * from {{ model }} where not coalesce({{ column_name }} in ({{ values | join(', ') }}), false)
  {%- if ignore_null %} and {{ column_name }} is not null{% endif %}
{% endtest %}
{% test p_regex(model, column_name, regex, ignore_null=false) %}
select * from {{ model }} where not coalesce(regexp_matches(cast({{ column_name }} as varchar), '{{ regex }}'), false)
  {%- if ignore_null %} and {{ column_name }} is not null{% endif %}
{% endtest %}
{% test p_unique(model, column_name) %}
select * from {{ model }} where {{ column_name }} in (
  select {{ column_name }} from {{ model }} where {{ column_name }} is not null
  group by {{ column_name }} having count(*) > 1)
{% endtest %}
{% test p_expression_is_true(model, expression) %}
select * from {{ model }} where not coalesce({{ expression }}, false)
{% endtest %}
{% test p_aggregate_is_true(model, expression) %}
select 1 as failed from (select {{ expression }} as ok from {{ model }}) t where not coalesce(ok, false)
{% endtest %}
{% test p_assertion(model, sql) %}
{{ sql | replace('${data()}', '(select * from ' ~ model ~ ')') }}
{% endtest %}
"""


def plain_tests() -> dict[str, Any]:
    cols: dict[str, list[str]] = defaultdict(list)
    model: list[str] = []
    cfg = "config: {tags: [plain]}"
    for name, rule_type, column, f, common in RULES:
        ign = bool(common.get("ignore_null"))
        lit = (lambda v: v) if column in ("amount", "qty") else (lambda v: "'" + v + "'")
        if rule_type == "range_expectation":
            args = {"min_value": lit(f["min_value"]), "max_value": lit(f["max_value"]), "ignore_null": ign}
            cols[column].append(f"p_range: {{name: p-{name}, arguments: {_yaml(args)}, {cfg}}}")
        elif rule_type == "non_null_expectation":
            cols[column].append(f"p_not_null: {{name: p-{name}, {cfg}}}")
        elif rule_type == "set_expectation":
            args = {"values": [lit(v) for v in f["values"]], "ignore_null": ign}
            cols[column].append(f"p_in_set: {{name: p-{name}, arguments: {_yaml(args)}, {cfg}}}")
        elif rule_type == "regex_expectation":
            cols[column].append(
                f"p_regex: {{name: p-{name}, arguments: {_yaml({'regex': f['regex'], 'ignore_null': ign})}, {cfg}}}"
            )
        elif rule_type == "uniqueness_expectation":
            cols[column].append(f"p_unique: {{name: p-{name}, {cfg}}}")
        elif rule_type == "statistic_range_expectation":
            fn = {"MEAN": "avg", "MIN": "min", "MAX": "max"}[f["statistic"]]
            parts = []
            if "min_value" in f:
                parts.append(f"{fn}({column}) >= {lit(f['min_value']) if fn != 'avg' else f['min_value']}")
            if "max_value" in f:
                bound = (
                    f"timestamp '{f['max_value']}'"
                    if column == "updated_at"
                    else (lit(f["max_value"]) if fn != "avg" else f["max_value"])
                )
                parts.append(f"{fn}({column}) <= {bound}")
            model.append(
                f"p_aggregate_is_true: {{name: p-{name}, "
                f"arguments: {_yaml({'expression': ' and '.join(parts)})}, {cfg}}}"
            )
        elif rule_type == "row_condition_expectation":
            model.append(
                f"p_expression_is_true: {{name: p-{name}, "
                f"arguments: {_yaml({'expression': f['sql_expression']})}, {cfg}}}"
            )
        elif rule_type == "table_condition_expectation":
            model.append(
                f"p_aggregate_is_true: {{name: p-{name}, "
                f"arguments: {_yaml({'expression': f['sql_expression']})}, {cfg}}}"
            )
        else:
            model.append(f"p_assertion: {{name: p-{name}, arguments: {_yaml({'sql': f['sql_statement']})}, {cfg}}}")
    return {"columns": cols, "model": model}


# L: the physical limit, one statement by hand
LIMIT_SQL = f"""
with agg as (
  select
    count(*) as n,
    count(*) - count(customer_id) as null_customer,
    count(*) - count(amount) as null_amount,
    count(*) - count(email) as null_email,
    count(*) - count(qty) as null_qty,
    count(*) - count(status) as null_status,
    count(*) - count(created_on) as null_created,
    count(*) - count(updated_at) as null_updated,
    count(*) - count(id) as null_id,
    count_if(amount >= 0 and amount <= 900) as p_amount_range,
    count_if(qty >= 0 and qty <= 100) as p_qty_range,
    count_if(created_on >= date '2024-01-01' and created_on <= date '2024-12-31') as p_created,
    count(customer_id) as p_customer_nn,
    count(amount) as p_amount_nn,
    count(email) as p_email_nn,
    count_if(status in ('active', 'inactive', 'pending', 'closed')) as p_status_set,
    count_if(qty in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) as p_qty_set,
    count_if(regexp_matches(email, '^[a-z0-9]+@example\\.com$')) as p_email_regex,
    count_if(regexp_matches(status, '^[a-z]+$')) as p_status_regex,
    avg(amount) as s_amount_mean,
    min(qty) as s_qty_min,
    max(updated_at) as s_updated_max,
    count_if(amount is null or amount >= 0) as p_amount_cond,
    count_if(updated_at >= created_on) as p_updated_cond,
    count(*) > 0 as t_has_rows,
    max(amount) < 1000 as t_amount_max
  from main.{TABLE}
)
select
  agg.*,
  (select count(*) from (select id from main.{TABLE} where id is not null group by id having count(*) = 1) u)
    as p_id_unique,
  (select count(*) from (select customer_id from main.{TABLE} where customer_id is not null
                         group by customer_id having count(*) = 1) u) as p_customer_unique,
  (select count(*) from main.{TABLE} where qty < 0) as a_no_negative_qty
from agg
"""


def limit_metrics(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The 20 rules' metrics from L's single row, by the Dataplex semantics (docs/SEMANTICS.md §5)."""
    n = row["n"]
    nulls = {
        "amount": row["null_amount"],
        "qty": row["null_qty"],
        "created_on": row["null_created"],
        "customer_id": row["null_customer"],
        "email": row["null_email"],
        "status": row["null_status"],
        "id": row["null_id"],
        "updated_at": row["null_updated"],
    }
    passed_counts = {
        "amount-range": "p_amount_range",
        "qty-range": "p_qty_range",
        "created-in-2024": "p_created",
        "customer-not-null": "p_customer_nn",
        "amount-not-null": "p_amount_nn",
        "email-not-null": "p_email_nn",
        "status-known": "p_status_set",
        "qty-small-set": "p_qty_set",
        "email-shape": "p_email_regex",
        "status-lower": "p_status_regex",
        "id-unique": "p_id_unique",
        "customer-unique": "p_customer_unique",
        "amount-not-negative": "p_amount_cond",
        "updated-after-created": "p_updated_cond",
    }
    out: dict[str, dict[str, Any]] = {}
    for name, rule_type, column, f, common in RULES:
        m: dict[str, Any] = {"row_count": n, "null_count": nulls[column] if column else None}
        if name in passed_counts:
            evaluated = n - nulls[column] if common.get("ignore_null") else n
            passed = row[passed_counts[name]]
            ratio = 1.0 if evaluated == 0 else passed / evaluated
            m.update(evaluated_count=evaluated, passed_count=passed, passed=ratio >= (common.get("threshold") or 1.0))
        elif rule_type == "statistic_range_expectation":
            value = {
                "amount-mean": row["s_amount_mean"],
                "qty-min": row["s_qty_min"],
                "updated-max": row["s_updated_max"],
            }[name]
            ok = value is not None
            if ok and "min_value" in f:
                ok = value >= (
                    float(f["min_value"]) if name != "updated-max" else datetime.fromisoformat(f["min_value"])
                )
            if ok and "max_value" in f:
                ok = value <= (
                    float(f["max_value"]) if name != "updated-max" else datetime.fromisoformat(f["max_value"])
                )
            m.update(passed=ok, statistic_value=float(value) if isinstance(value, (int, float)) else None)
        elif rule_type == "table_condition_expectation":
            m.update(passed=bool({"has-rows": row["t_has_rows"], "amount-max-below-1000": row["t_amount_max"]}[name]))
        else:
            m.update(assertion_row_count=row["a_no_negative_qty"], passed=row["a_no_negative_qty"] == 0)
        out[name] = m
    return out


# ----------------------------------------------------------------------------------------- running


def write_project(work: Path, db: Path, threads: int) -> Path:
    proj = work / "project"
    (proj / "models").mkdir(parents=True)
    (proj / "macros").mkdir()
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: bench_scan
        version: "1.0"
        config-version: 2
        profile: bench_scan
        flags:
          send_anonymous_usage_stats: false
        """)
    )
    (proj / "profiles.yml").write_text(
        textwrap.dedent(f"""\
        bench_scan:
          target: duckdb
          outputs:
            duckdb:
              type: duckdb
              path: "{db}"
              threads: {threads}
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (proj / "macros" / "plain_tests.sql").write_text(PLAIN_MACROS)
    (proj / "models" / "schema.yml").write_text(schema_yml())
    return proj


def dbt(proj: Path, *args: str) -> tuple[float, dict[str, Any], str]:
    exe = Path(sys.executable).parent / "dbt"
    cmd = [
        str(exe if exe.exists() else shutil.which("dbt")),
        *args,
        "--project-dir",
        str(proj),
        "--profiles-dir",
        str(proj),
    ]
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(
            f"dbt {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        )
    rr_path = proj / "target" / "run_results.json"
    return wall, json.loads(rr_path.read_text()) if rr_path.exists() else {}, proc.stdout


def _execute_seconds(result: dict[str, Any]) -> float:
    for t in result.get("timing") or []:
        if t.get("name") == "execute" and t.get("started_at") and t.get("completed_at"):
            start = datetime.fromisoformat(t["started_at"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(t["completed_at"].replace("Z", "+00:00"))
            return (end - start).total_seconds()
    return float(result.get("execution_time") or 0.0)


def dbt_run(proj: Path, tag: str) -> dict[str, Any]:
    wall, rr, _ = dbt(proj, "test", "--select", f"tag:{tag}")
    # the tests only: run_results.json also lists the hooks (operation.*), the package's on-run-end among them
    results = [r for r in rr.get("results") or [] if r["unique_id"].startswith("test.")]
    nodes = {r["unique_id"].split(".")[2]: _execute_seconds(r) for r in results}
    return {
        "wall": wall,
        "node": max(nodes.values(), default=0.0),
        "sum": sum(nodes.values()),
        "nodes": nodes,
        "run_results": rr,
    }


def limit_run(db: Path) -> tuple[float, dict[str, Any]]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        t0 = time.perf_counter()
        res = con.execute(LIMIT_SQL)
        cols = [d[0] for d in res.description]
        row = dict(zip(cols, res.fetchone(), strict=False))
        return time.perf_counter() - t0, row
    finally:
        con.close()


def interleaved(proj: Path, db: Path, repeat: int, parts: list[str]) -> dict[str, Any]:
    """One warm-up of each, then `repeat` rounds of L, S, R (, P) in turn -- so that a change in the
    machine's load touches all of them alike -- and the median of each measure."""
    runs: dict[str, list[Any]] = {p: [] for p in parts}
    tags = {"S": "scan", "R": "per_rule", "P": "plain"}
    for round_ in range(repeat + 1):
        for part in parts:
            result = limit_run(db) if part == "L" else dbt_run(proj, tags[part])
            if round_ > 0:
                runs[part].append(result)
    out: dict[str, Any] = {"L": statistics.median(t for t, _ in runs["L"]), "L_row": runs["L"][-1][1]}
    for part in parts[1:]:
        rs = runs[part]
        out[part] = {key: statistics.median(r[key] for r in rs) for key in ("wall", "node", "sum")}
        out[part]["nodes"] = {n: statistics.median(r["nodes"][n] for r in rs) for n in rs[-1]["nodes"]}
        out[part]["run_results"] = rs[-1]["run_results"]
    return out


def stored_metrics(db: Path, proj: Path, tag: str) -> dict[str, dict[str, Any]]:
    import duckdb

    manifest = json.loads((proj / "target" / "manifest.json").read_text())
    rels = [
        n["relation_name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] == "test" and tag in (n.get("tags") or [])
    ]
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for rel in rels:
            res = con.execute(f"select * from {rel}")
            cols = [d[0] for d in res.description]
            for r in res.fetchall():
                row = dict(zip(cols, r, strict=False))
                out[row["rule_name"]] = row
        return out
    finally:
        con.close()


def compare(
    limit: dict[str, dict[str, Any]], scan: dict[str, dict[str, Any]], per_rule: dict[str, dict[str, Any]]
) -> list[str]:
    problems = []
    for name, *_ in RULES:
        for label, rows in (("S", scan), ("R", per_rule)):
            row = rows.get(name)
            if row is None:
                problems.append(f"{label}: no metrics row for {name}")
                continue
            for key, expected in limit[name].items():
                got = row.get(key)
                if key == "statistic_value" and expected is not None and got is not None:
                    ok = math.isclose(got, expected, rel_tol=1e-9)
                else:
                    ok = got == expected
                if not ok:
                    problems.append(f"{label} {name}: {key} = {got!r}, L says {expected!r}")
    return problems


# ----------------------------------------------------------------------------------------- the report's pure part


def recorded_templates(proj: Path, scan_rr: dict[str, Any], per_rule_rr: dict[str, Any]) -> dict[str, Any]:
    """What the package's on-run-end hook recorded for the last S and R runs (20 rows each) and their column
    scores, read as `dataplex-dq report` reads them (run/recorded.py: read_rows, column_scores_sql)."""
    from dataplex_dq.run.recorded import read_rows
    from dataplex_dq.warehouse.connection import Warehouse

    with Warehouse(proj, proj, None, proj / "target" / "manifest.json") as wh:
        creds = wh.credentials  # the hook's table: dataplex_dq_results in the target's schema
        relation = wh.relation(creds.database, creds.schema, "dataplex_dq_results")
        out: dict[str, Any] = {}
        for key, rr in (("scan", scan_rr), ("per_rule", per_rule_rr)):
            invocation = rr["metadata"]["invocation_id"]
            out[key] = read_rows(wh, relation, invocation)
            if len(out[key]) != len(RULES):
                raise SystemExit(f"the hook recorded {len(out[key])} rows of the {key} run, expected {len(RULES)}")
        out["columns"] = wh.query(
            wh.macro("column_scores_sql", relation=relation, invocation_id=scan_rr["metadata"]["invocation_id"])
        )
    return out


def synthetic_rows(templates: dict[str, Any], rules: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One invocation of ``rules`` recorded rules, 100 per data source, half of each data source's rules in one
    scan and half per-rule tests (copies of the recorded S and R rows, renamed); with its column scores."""
    invocation = str(uuid.uuid4())
    rows: list[dict[str, Any]] = []
    columns: list[dict[str, Any]] = []
    per_source = 100
    for s in range(math.ceil(rules / per_source)):
        job_id, source = f"{invocation}-{s}", f"source.bench_scan.bench.{TABLE}_{s}"
        n_here = min(per_source, rules - s * per_source)
        for k in range(n_here):
            i = s * per_source + k
            in_scan = k < n_here // 2
            row = dict(templates["scan" if in_scan else "per_rule"][i % len(RULES)])
            row.update(
                dbt_invocation_id=invocation,
                data_quality_job_id=job_id,
                dbt_node_unique_id=source,
                rule_name=f"{row['rule_name']}-{i}",
                dbt_test_unique_id=f"{row['dbt_test_unique_id']}_{s if in_scan else i}",
            )
            rows.append(row)
        columns += [{**c, "data_quality_job_id": job_id} for c in templates["columns"]]
    return rows, columns


def posthook_once(out_dir: Path, rows: list[dict[str, Any]], columns: list[dict[str, Any]]) -> tuple[float, int]:
    """The report's pure part (what run_report does after its two queries), minus the warehouse: the recorded
    rows grouped into typed jobs (run/recorded.recorded_jobs: outcomes, the scores the SQL computed), per data
    source its DataQualityResult (run/report.source_reports), the result files (outputs/files.py)."""
    from dataplex_dq.outputs.files import write_result_files
    from dataplex_dq.run.recorded import RecordedRun, recorded_jobs
    from dataplex_dq.run.report import clean_output_dir, source_reports

    t0 = time.perf_counter()
    run = RecordedRun(
        str(rows[0]["dbt_invocation_id"]), "main.dataplex_dq_results", recorded_jobs(rows, columns, "duckdb")
    )
    sources = source_reports(run, {}, {}, clean_output_dir(out_dir))
    write_result_files(sources)
    return time.perf_counter() - t0, sum(len(s.outcomes) for s in sources)


def time_posthook(work: Path, templates: dict[str, Any], rules: int, repeat: int) -> tuple[float, int]:
    rows, columns = synthetic_rows(templates, rules)
    out_dir = work / "posthook_target" / "dataplex_dq"
    posthook_once(out_dir, rows, columns)  # warm-up (imports)
    runs = [posthook_once(out_dir, rows, columns) for _ in range(repeat)]
    return statistics.median(t for t, _ in runs), runs[0][1]


# ----------------------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description="data_quality_scan benchmark (see the module docstring)")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--threads", type=int, default=1, help="dbt threads (DuckDB itself uses every core in each query)"
    )
    parser.add_argument("--posthook-rules", type=int, default=10_000)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated parts to skip: P (dbt-utils-style), posthook (the report's pure part)",
    )
    args = parser.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}

    work = Path(tempfile.mkdtemp(prefix="bench_scan_"))
    try:
        db = work / "bench.duckdb"
        print(f"work dir {work}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        t0 = time.perf_counter()
        generate(db, args.rows)
        print(f"generated {args.rows:,} rows x 8 columns in {time.perf_counter() - t0:.1f}s")
        proj = write_project(work, db, args.threads)
        _wall, _, _out = dbt(proj, "deps")

        parts = ["L", "S", "R"] + ([] if "P" in skip else ["P"])
        timed = interleaved(proj, db, args.repeat, parts)
        limit_s, scan, per_rule, plain = timed["L"], timed["S"], timed["R"], timed.get("P")
        problems = compare(
            limit_metrics(timed["L_row"]), stored_metrics(db, proj, "scan"), stored_metrics(db, proj, "per_rule")
        )
        n_tests = {
            k: sum(1 for r in v["run_results"].get("results") or [] if r["unique_id"].startswith("test.")) if v else 0
            for k, v in (("S", scan), ("R", per_rule), ("P", plain))
        }

        print()
        print(
            f"{args.rows:,} rows, 20 rules (every rule type), "
            f"median of {args.repeat} interleaved rounds after a warm-up, "
            f"dbt threads={args.threads}, load average now {os.getloadavg()[0]:.2f}"
        )
        print(f"{'':46s} {'seconds':>9s} {'x L':>7s}")
        print(f"{'L  hand-written single SQL (duckdb module)':46s} {limit_s:9.3f} {1:7.2f}")
        print(f"{'S  data_quality_scan: test node execution':46s} {scan['node']:9.3f} {scan['node'] / limit_s:7.2f}")
        print(f"{'S  data_quality_scan: whole dbt test command':46s} {scan['wall']:9.3f} {scan['wall'] / limit_s:7.2f}")
        print(
            f"{'R  20 per-rule tests: sum of node executions':46s} "
            f"{per_rule['sum']:9.3f} {per_rule['sum'] / limit_s:7.2f}"
        )
        print(
            f"{'R  20 per-rule tests: whole dbt test command':46s} "
            f"{per_rule['wall']:9.3f} {per_rule['wall'] / limit_s:7.2f}"
        )
        if plain:
            print(
                f"{'P  20 dbt-utils-style tests: sum of nodes':46s} {plain['sum']:9.3f} {plain['sum'] / limit_s:7.2f}"
            )
            print(
                f"{'P  20 dbt-utils-style tests: whole command':46s} "
                f"{plain['wall']:9.3f} {plain['wall'] / limit_s:7.2f}"
            )
        print(
            f"S/L (node) {scan['node'] / limit_s:.2f}; R/L (nodes) {per_rule['sum'] / limit_s:.2f}"
            + (f"; P/L (nodes) {plain['sum'] / limit_s:.2f}" if plain else "")
            + f"; R/S: warehouse {per_rule['sum'] / scan['node']:.2f}, command {per_rule['wall'] / scan['wall']:.2f}"
        )
        top = sorted(per_rule["nodes"].items(), key=lambda kv: -kv[1])
        print(
            "R per rule (node execution, s): "
            + ", ".join(f"{n} {t:.2f}" for n, t in top[:6])
            + f"; the other {len(top) - 6}: {sum(t for _, t in top[6:]):.2f} together"
        )
        print(f"tests run: S {n_tests['S']}, R {n_tests['R']}, P {n_tests['P']}")

        if "posthook" not in skip:
            templates = recorded_templates(proj, scan["run_results"], per_rule["run_results"])
            seconds, n_rules = time_posthook(work, templates, args.posthook_rules, args.repeat)
            print(
                "the report's pure part (recorded rows -> typed jobs -> DataQualityResult -> result files), "
                f"{n_rules:,} recorded rules: {seconds:.3f}s (median of {args.repeat})"
            )

        if problems:
            print(f"\nMISMATCH: S, R and L disagree on {len(problems)} metric(s):")
            for p in problems[:50]:
                print("  " + p)
            return 1
        print("\nS, R and L agree on every count of the 20 rules.")
        return 0
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
