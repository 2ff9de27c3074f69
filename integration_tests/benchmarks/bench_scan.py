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
every count (the script exits non-zero if not). Then the post-hook's pure part (artifacts -> RuleMetrics -> combine
-> scores -> DataQualityResult -> export rows; no warehouse) is timed on a synthetic invocation of
10,000 rules (--posthook-rules).

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
from datetime import datetime, timedelta
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
    results = rr.get("results") or []
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


# ----------------------------------------------------------------------------------------- post-hook


def synthetic_invocation(target: Path, rules: int) -> None:
    """manifest.json + run_results.json of an invocation with `rules` rules: half in 50-rule scans,
    half per-rule tests, 100 rules per data source; plus the metrics rows as dicts (metrics.json)."""
    invocation = str(uuid.uuid4())
    nodes: dict[str, Any] = {}
    results = []
    metrics = []
    kinds = [r[1] for r in RULES]
    now = datetime(2024, 6, 1, 12, 0, 0)
    per_source = 100
    for s in range(math.ceil(rules / per_source)):
        source = f"model.bench.orders_{s}"
        nodes[source] = {
            "unique_id": source,
            "resource_type": "model",
            "name": f"orders_{s}",
            "relation_name": f'"db"."main"."orders_{s}"',
            "database": "db",
            "schema": "main",
            "alias": f"orders_{s}",
            "config": {"meta": {}},
        }
        n_here = min(per_source, rules - s * per_source)
        scan_uid = f"test.bench.orders_{s}_scan.{s:06x}"
        scan_rules = []
        scan_recorded = []  # config.meta.dataplex_dq_rules, as the package records the rules at parse time
        for k in range(n_here):
            i = s * per_source + k
            name, rule_type, column, fields, common = RULES[i % len(RULES)]
            name = f"{name}-{i}"
            in_scan = k < n_here // 2
            test_uid = scan_uid if in_scan else f"test.bench.{name}.{i:06x}"
            if in_scan:
                scan_rules.append({"name": name, **({"column": column} if column else {}), **common, rule_type: fields})
            else:
                nodes[test_uid] = {
                    "unique_id": test_uid,
                    "resource_type": "test",
                    "name": name,
                    "attached_node": source,
                    "column_name": column,
                    "relation_name": f'"db"."audit"."dq_{i}"',
                    "test_metadata": {"namespace": "dataplex_dq", "name": rule_type, "kwargs": {**fields, **common}},
                }
                results.append(
                    {
                        "unique_id": test_uid,
                        "status": "fail" if i % 7 == 0 else "pass",
                        "failures": int(i % 7 == 0),
                        "timing": [
                            {
                                "name": "execute",
                                "started_at": now.isoformat() + "Z",
                                "completed_at": (now + timedelta(seconds=1)).isoformat() + "Z",
                            }
                        ],
                    }
                )
            row_level = rule_type in (
                "range_expectation",
                "non_null_expectation",
                "set_expectation",
                "regex_expectation",
                "uniqueness_expectation",
                "row_condition_expectation",
            )
            passed = i % 7 != 0
            spec = {
                "name": name,
                **({"column": column} if column else {}),
                **{k2: v for k2, v in common.items() if k2 != "ignore_null" or v},
                rule_type: fields,
            }
            recorded = {"rule_index": k if in_scan else 0, "name_given": True, "rule": spec}
            if in_scan:
                scan_recorded.append(recorded)
            else:
                nodes[test_uid]["config"] = {"meta": {"dataplex_dq_rules": [recorded]}}
            metrics.append(
                {
                    "dq_invocation_id": invocation,
                    "dq_test_unique_id": test_uid,
                    "dq_data_source": source,
                    "rule_index": k if in_scan else 0,
                    "rule_name": name,
                    "rule_type": rule_type,
                    "rule_column": column,
                    "rule_dimension": common.get("dimension"),
                    "rule_threshold": (common.get("threshold") or 1.0) if row_level else None,
                    "rule_ignore_null": bool(common.get("ignore_null")),
                    "rule_suspended": False,
                    "rule_status": "PASSED" if passed else "FAILED",
                    "row_count": 1000,
                    "evaluated_count": 1000 if row_level else None,
                    "passed_count": (1000 if passed else 900) if row_level else None,
                    "null_count": 3 if column else None,
                    "pass_ratio": (1.0 if passed else 0.9) if row_level else None,
                    "passed": passed,
                    "assertion_row_count": (0 if passed else 5) if rule_type == "sql_assertion" else None,
                    "statistic_value": 42.0 if rule_type == "statistic_range_expectation" else None,
                    "failing_rows_query": f'select * from "db"."main"."orders_{s}" where not coalesce(x, false)'
                    if row_level
                    else None,
                    "rule_spec": json.dumps(spec),
                    "rule_attributes": None,
                    "debug_queries_sql": None,
                    "scope_row_filter": None,
                    "scope_sampling_percent": None,
                    "evaluated_at": now.isoformat(),
                }
            )
        if scan_rules:
            nodes[scan_uid] = {
                "unique_id": scan_uid,
                "resource_type": "test",
                "name": f"orders_{s}_scan",
                "attached_node": source,
                "relation_name": f'"db"."audit"."dq_scan_{s}"',
                "config": {"meta": {"dataplex_dq_rules": scan_recorded}},
                "test_metadata": {
                    "namespace": "dataplex_dq",
                    "name": "data_quality_scan",
                    "kwargs": {"rules": scan_rules},
                },
            }
            results.append(
                {
                    "unique_id": scan_uid,
                    "status": "fail",
                    "failures": 1,
                    "timing": [
                        {
                            "name": "execute",
                            "started_at": now.isoformat() + "Z",
                            "completed_at": (now + timedelta(seconds=2)).isoformat() + "Z",
                        }
                    ],
                }
            )
    assert len(metrics) == rules and set(kinds)
    target.mkdir(parents=True, exist_ok=True)
    (target / "manifest.json").write_text(
        json.dumps({"metadata": {"project_name": "bench"}, "nodes": nodes, "sources": {}})
    )
    (target / "run_results.json").write_text(
        json.dumps(
            {"metadata": {"invocation_id": invocation, "generated_at": now.isoformat() + "Z"}, "results": results}
        )
    )
    (target / "metrics.json").write_text(json.dumps(metrics))


def posthook_once(target: Path, metrics_rows: list[dict[str, Any]]) -> tuple[float, int]:
    """The report's pure core (report.assemble_sources, what run_report calls), minus the warehouse:
    artifacts -> RuleMetrics -> outcomes -> scores -> DataQualityResult -> result files and export rows."""
    from dataplex_dq.record.artifacts import load_artifacts
    from dataplex_dq.record.declared import declared_rule_names
    from dataplex_dq.run.metrics import RuleMetrics
    from dataplex_dq.run.outcomes import combine
    from dataplex_dq.run.report import assemble_sources, clean_output_dir, write_result_files

    t0 = time.perf_counter()
    artifacts = load_artifacts(target)
    metrics = [RuleMetrics.from_row(r) for r in metrics_rows]
    outcomes = combine(artifacts, metrics)
    sources = assemble_sources(
        artifacts,
        outcomes,
        out_dir=clean_output_dir(target / "dataplex_dq"),
        adapter_type="duckdb",
        target_name="bench",
        declared_by_source=declared_rule_names(artifacts),
    )
    write_result_files(sources)
    return time.perf_counter() - t0, sum(len(s.rows) for s in sources)


def time_posthook(work: Path, rules: int, repeat: int) -> tuple[float, int]:
    target = work / "posthook_target"
    synthetic_invocation(target, rules)
    metrics_rows = json.loads((target / "metrics.json").read_text())
    posthook_once(target, metrics_rows)  # warm-up (imports)
    runs = [posthook_once(target, metrics_rows) for _ in range(repeat)]
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
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: P (dbt-utils-style), posthook")
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
            k: len(v["run_results"].get("results", [])) if v else 0
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
            seconds, n_rows = time_posthook(work, args.posthook_rules, args.repeat)
            print(
                f"post-hook, pure part (artifacts -> RuleMetrics -> combine -> scores -> DataQualityResult -> rows), "
                f"{args.posthook_rules:,} rules ({n_rows:,} export rows): {seconds:.3f}s"
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
