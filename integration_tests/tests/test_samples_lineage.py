"""Issue 34 items 4 and 5 on DuckDB, PostgreSQL and BigQuery, one `dbt build` per target:

- failing-row samples list the key columns first (a primary-key constraint, a `unique` test, meta sample_keys),
  show N rows (var dataplex_dq_sample_rows: 3), and mask meta.dataplex_dq.sample_mask in the SQL: the rendered
  sample query never selects the masked column's values and the rows fetched, the page and the alert (a JSON
  route on 127.0.0.1) hold '***';
- `dataplex-dq report` with OPENLINEAGE_URL on 127.0.0.1 sends one RunEvent per data source, each valid against
  the vendored OpenLineage schemas, one assertion per rule, the metrics the rules measured, and the dataset named as
  dbt-ol names it."""

from __future__ import annotations

import html as html_lib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_openlineage import validate_event

from conftest import drop_target_schemas, require_target
from dbt_harness import REPO_ROOT, TARGETS, DbtProject, JsonReceiver, run_dataplex_dq, target_env, write_project

N = 3
PEOPLE = [  # id, name, email, score, code: score < 0 fails `score-nonneg` on ids 2..6
    (1, "ann", "ann@x.io", 10, "a"),
    (2, "bob", "bob@x.io", -1, "b"),
    (3, "cid", "cid@x.io", -2, "c"),
    (4, "dan", "dan@x.io", -3, "d"),
    (5, "eve", "eve@x.io", -4, "e"),
    (6, "fay", "fay@x.io", -5, "f"),
    (7, "gus", "gus@x.io", 7, "g"),
]
FAILING_IDS = {2, 3, 4, 5, 6}

SCHEMA = """\
version: 2
models:
  - name: people_pk
    constraints:
      - {type: primary_key, columns: [name]}
    config:
      meta:
        dataplex_dq: {sample_mask: [email]}
    data_tests:
      - dataplex_dq.row_condition_expectation: {name: pk-score-nonneg, arguments: {sql_expression: "score >= 0"}}
    columns:
      - name: email
        data_tests:
          - dataplex_dq.non_null_expectation: {name: pk-email-present}
      - name: id
        data_tests:
          - dataplex_dq.uniqueness_expectation: {name: pk-id-unique}
      - name: score
        data_tests:
          - dataplex_dq.statistic_range_expectation:
              name: pk-score-min
              arguments: {statistic: MIN, min_value: -10}
  - name: people_unique
    data_tests:
      - dataplex_dq.row_condition_expectation: {name: uq-score-nonneg, arguments: {sql_expression: "score >= 0"}}
    columns:
      - name: email
        data_tests: [unique]
  - name: people_meta
    config:
      meta:
        dataplex_dq: {sample_keys: [code]}
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: meta-score-nonneg
          arguments: {sql_expression: "score >= 0"}
          config: {severity: warn}
"""
KEYS = {"people_pk": "name", "people_unique": "email", "people_meta": "code"}
RULES = {
    "people_pk": ["pk-score-nonneg", "pk-email-present", "pk-id-unique", "pk-score-min"],
    "people_unique": ["uq-score-nonneg"],
    "people_meta": ["meta-score-nonneg"],
}


# renders the sample queries with the package's macro, as fetch_samples does, and runs them (a subprocess: dbt's
# adapter stays out of the test process)
RENDER = """
import json, sys
from pathlib import Path
from dataplex_dq.warehouse.connection import Warehouse
a = json.loads(sys.argv[1])
with Warehouse(Path(a["project"]), Path(a["profiles"]), a["target"], Path(a["manifest"])) as wh:
    out = wh.macro("sample_rows_sqls", items=a["items"])
    rows = [wh.query(s["sql"]) for s in out["samples"]]
print(json.dumps({"out": out, "rows": rows}, default=str))
"""


@dataclass
class Run:
    target: str
    env: dict[str, str]
    project: DbtProject
    manifest: dict[str, Any]
    page: str
    report: subprocess.CompletedProcess[str]
    events: list[dict[str, Any]]
    paths: list[str]
    alerts: list[dict[str, Any]]
    rendered: dict[str, Any]


def _types(target: str, alert_url: str) -> str:
    i, s = ("int64", "string") if target == "bigquery" else ("integer", "varchar")
    route = f"{{name: samples-json, format: json, url: '{alert_url}', data_sources: [people_pk]}}"
    return (
        f"vars: {{dataplex_dq_sample_rows: {N}, dataplex_dq_alert_routes: [{route}]}}\n"
        f"seeds:\n  samples_lineage:\n    +column_types: {{id: {i}, name: {s}, email: {s}, score: {i}, code: {s}}}\n"
    )


@pytest.fixture(scope="module", params=TARGETS)
def run(request, tmp_path_factory) -> Any:
    target = request.param
    require_target(target)
    tmp = tmp_path_factory.mktemp(f"samples_lineage_{target}")
    env = target_env(target, tmp, "samples_lineage")
    receiver = JsonReceiver(status=201)
    try:
        csv = "id,name,email,score,code\n" + "".join(",".join(map(str, p)) + "\n" for p in PEOPLE)
        model = "{{ config(materialized='table') }}\nselect * from {{ ref('people') }}\n"
        project = write_project(
            tmp,
            "samples_lineage",
            {
                "seeds/people.csv": csv,
                "models/people_pk.sql": model,
                "models/people_unique.sql": model,
                "models/people_meta.sql": model,
                "models/schema.yml": SCHEMA,
            },
            env=env,
            target=target,
            project_config=_types(target, receiver.base + "/alert"),
        )
        build = project.run("build")
        assert build.returncode == 1, build.output[-3000:]  # the score rules fail
        page = tmp / "report.html"
        report = run_dataplex_dq(
            "report",
            "--project-dir",
            str(project.project_dir),
            "--profiles-dir",
            str(project.profiles_dir),
            "--target",
            target,
            "--target-path",
            str(project.target_path),
            "--html",
            str(page),
            env={
                **env,
                "DBT_LOG_PATH": str(tmp / "logs"),
                "OPENLINEAGE_URL": receiver.base,
                "OPENLINEAGE_NAMESPACE": "dq-tests",
            },
            cwd=project.project_dir,
        )
        metrics = project.metrics(build)
        ds = build.manifest["nodes"]["model.samples_lineage.people_pk"]
        items = [
            {
                "query": metrics["pk-score-nonneg"]["failing_rows_query"],
                "columns": None,
                "mask": ["EMAIL"],
                "relation": {"database": ds["database"], "schema": ds["schema"], "identifier": ds["alias"]},
            },
            {
                "query": metrics["pk-score-nonneg"]["failing_rows_query"],
                "columns": ["id", "email"],
                "mask": ["email"],
                "relation": None,
            },
            {"query": metrics["pk-score-nonneg"]["failing_rows_query"], "columns": None, "mask": [], "relation": None},
        ]
        args = {
            "project": str(project.project_dir),
            "profiles": str(project.profiles_dir),
            "target": target,
            "manifest": str(project.target_path / "manifest.json"),
            "items": items,
        }
        proc = run_dataplex_dq_python(RENDER, json.dumps(args), env=env, cwd=project.project_dir)
        assert proc.returncode == 0, proc.stderr[-3000:]
        yield Run(
            target,
            env,
            project,
            build.manifest,
            page.read_text() if page.exists() else "",
            report,
            receiver.bodies("/api/v1/lineage"),
            [p for p, _ in receiver.posts if p != "/alert"],
            receiver.bodies("/alert"),
            json.loads(proc.stdout.strip().splitlines()[-1]),
        )
    finally:
        receiver.stop()
        drop_target_schemas(target, env)


def run_dataplex_dq_python(code: str, *args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    import os

    full = {**os.environ, **env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    full["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT / "python"), full.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=full, capture_output=True, text=True, check=False
    )


# -- item 4: samples -------------------------------------------------------------------------------------------


def _section(page: str, model: str) -> str:
    node = f"model.samples_lineage.{model}"
    section = re.search(
        rf'<section class="source" id="[^"]+" data-source-id="{re.escape(node)}"(.*?)</section>', page, re.S
    )
    assert section, node
    return section.group(1)


def _sample(page: str, model: str) -> tuple[str, list[str], list[list[str]]]:
    table = re.search(
        r'<table class="sample"><caption>(.*?)</caption>\s*<thead><tr>(.*?)</tr></thead>\s*<tbody>(.*?)</tbody>',
        _section(page, model),
        re.S,
    )
    assert table, f"no sample for {model}"
    caption, head, body = table.groups()
    columns = [html_lib.unescape(c) for c in re.findall(r"<th[^>]*>(.*?)</th>", head)]
    rows = [
        [html_lib.unescape(v) for v in re.findall(r"<td>(.*?)</td>", r)]
        for r in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]
    return html_lib.unescape(caption), columns, rows


def test_report_ran(run):
    assert run.report.returncode == 1, run.report.stdout + run.report.stderr  # failing rules, no output error
    assert "OpenLineage" not in run.report.stdout + run.report.stderr, run.report.stdout


def test_samples_list_keys_first_and_n_rows(run):
    for model, key in KEYS.items():
        caption, columns, rows = _sample(run.page, model)
        assert columns[0] == key, (run.target, model, columns)
        assert len(rows) == N, (run.target, model, caption)
        assert caption.startswith(f"First {N} failing rows; key {key}"), caption
        ids = {int(r[columns.index("id")]) for r in rows}
        assert ids <= FAILING_IDS and len(ids) == N, (run.target, model, ids)


def test_masked_column_never_leaves_the_warehouse(run):
    caption, columns, rows = _sample(run.page, "people_pk")
    assert "masked email" in caption and {r[columns.index("email")] for r in rows} == {"***"}
    by_name = {p[1]: p for p in PEOPLE}
    for r in rows:  # the other columns are the real ones
        assert int(r[columns.index("score")]) == by_name[r[columns.index("name")]][3]
    assert "@x.io" not in _section(run.page, "people_pk")
    _, uq_columns, uq_rows = _sample(run.page, "people_unique")  # no mask there: its emails are shown
    assert all(r[uq_columns.index("email")].endswith("@x.io") for r in uq_rows)


def test_alert_sample_has_keys_first_and_masks(run):
    """The alert (a JSON route on 127.0.0.1) carries the same sample: key first, N rows, the masked column '***'."""
    (message,) = run.alerts
    (alert,) = [a for a in message["alerts"] if a["rule"]["name"] == "pk-score-nonneg"]
    sample = alert["sample"]
    assert sample["columns"][0] == "name" and len(sample["rows"]) == N, sample
    email = sample["columns"].index("email")
    assert {r[email] for r in sample["rows"]} == {"***"}
    assert "@x.io" not in json.dumps(message)


def test_rendered_sample_sql_selects_no_masked_value(run):
    out, rows = run.rendered["out"], run.rendered["rows"]
    assert out["max_rows"] == N
    full, narrow, plain = (s["sql"] for s in out["samples"])
    for sql in (full, narrow):
        outer = sql.split("from (", 1)[0]
        assert re.search(r"'\*\*\*' as [`\"]?email[`\"]?", outer), sql
        assert not re.search(r"dq_sample\.[`\"]?email", outer), sql  # the column itself is not selected
        assert sql.rstrip().endswith(f"limit {N}")
    assert "dq_sample.*" in plain or plain.startswith("select * from (")
    assert [c.lower() for c in rows[0][0]] == ["id", "name", "email", "score", "code"]
    assert {r["email"] for r in rows[0]} == {"***"} and len(rows[0]) == N
    assert {r["email"] for r in rows[1]} == {"***"} and list(rows[1][0]) == ["id", "email"]
    assert {r["email"] for r in rows[2]} <= {p[2] for p in PEOPLE}  # unmasked: the real values


# -- item 5: OpenLineage ---------------------------------------------------------------------------------------


def _namespace(run: Run) -> str:
    if run.target == "duckdb":
        return f"duckdb://{run.env['DBT_DUCKDB_PATH']}"
    if run.target == "postgres":
        return f"postgres://{run.env.get('DBT_PG_HOST', '127.0.0.1')}:{run.env.get('DBT_PG_PORT', '5432')}"
    return "bigquery"


def test_one_valid_event_per_data_source_on_a_local_endpoint(run):
    assert set(run.paths) == {"/api/v1/lineage"}
    assert len(run.events) == 3, run.events
    invocation = json.loads((run.project.target_path / "run_results.json").read_text())["metadata"]["invocation_id"]
    for event in run.events:
        validate_event(event)
        (dataset,) = event["inputs"]
        node = next(
            n
            for n in run.manifest["nodes"].values()
            if n["resource_type"] == "model" and dataset["name"].endswith("." + n["alias"])
        )
        assert dataset["namespace"] == _namespace(run)
        assert dataset["name"] == f"{node['database']}.{node['schema']}.{node['alias']}"  # dbt-ol's name
        assert event["job"]["namespace"] == "dq-tests" and event["job"]["name"] == dataset["name"] + ".dataplex_dq"
        import uuid

        assert event["run"]["runId"] == str(uuid.uuid5(uuid.UUID(invocation), node["unique_id"]))
        assertions = dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
        assert sorted(a["assertion"] for a in assertions) == sorted(RULES[node["name"]])
        for a in assertions:
            assert a["success"] is (not a["assertion"].endswith("score-nonneg")), a
            assert a["severity"] == ("warn" if a["assertion"] == "meta-score-nonneg" else "error")
        assert event["eventType"] == ("COMPLETE" if node["name"] == "people_meta" else "FAIL")
        assert dataset["facets"]["dataQualityMetrics"]["rowCount"] == len(PEOPLE)


def test_metrics_facet_holds_what_the_rules_measured(run):
    event = next(e for e in run.events if e["inputs"][0]["name"].endswith(".people_pk"))
    assertions = {a["assertion"]: a for a in event["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]}
    assert {k: a.get("column") for k, a in assertions.items()} == {
        "pk-score-nonneg": None,
        "pk-email-present": "email",
        "pk-id-unique": "id",
        "pk-score-min": "score",
    }
    cols = event["inputs"][0]["facets"]["dataQualityMetrics"]["columnMetrics"]
    assert cols["email"] == {"nullCount": 0, "count": 7.0}
    assert cols["id"] == {"nullCount": 0, "count": 7.0, "distinctCount": 7}
    assert cols["score"]["min"] == -5.0 and cols["score"]["nullCount"] == 0
