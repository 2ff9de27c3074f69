"""The bytes-billed guard `meta.dataplex_dq.max_bytes_billed` (issue 10 item 2; macros/cost_guard.sql).

One small project per target, one `dbt build`:
  - DuckDB: the setting is checked (a positive whole number, else a one-line compile error naming the
    data source, rule and field) and does nothing else (DuckDB bills no bytes): every capped test runs.
  - BigQuery (the emulator): the project defines its own `bigquery__estimate_bytes_billed` for the seed
    `items` (dbt dispatches to the root project first), so the decision is exercised: the scan whose
    estimate is over its cap errors before its query runs (no metrics table), the per-rule test under
    its cap passes. The seed `plain` keeps the package's estimator, which asks BigQuery for the table's
    size (tables.get); the emulator reports none, so the test runs and dbt's log says it was not checked.
Not exercised offline: a real BigQuery table's numBytes (the emulator has none) and a dry run (dbt-bigquery
1.12 gives macros none; the emulator refuses dry-run jobs)."""

from __future__ import annotations

import pytest

from conftest import require_target
from dbt_harness import bigquery_client, target_env, write_project

MiB = 2**20
SCHEMA = f"""\
version: 2
seeds:
  - name: items
    data_tests:
      - dataplex_dq.data_quality_scan:
          name: items_scan
          arguments: {{rules: [{{name: id-present, column: id, non_null_expectation: {{}}}}]}}
          config: {{meta: {{dataplex_dq: {{max_bytes_billed: {20 * MiB}}}}}}}
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation:
              name: qty-capped
              config: {{meta: {{dataplex_dq: {{max_bytes_billed: {100 * MiB}}}}}}}
          - dataplex_dq.range_expectation:
              name: qty-bad-cap
              arguments: {{min_value: 0}}
              config: {{meta: {{dataplex_dq: {{max_bytes_billed: lots}}}}}}
  - name: plain
    columns:
      - name: id
        data_tests:
          - dataplex_dq.non_null_expectation:
              name: plain-capped
              config: {{meta: {{dataplex_dq: {{max_bytes_billed: {MiB}}}}}}}
"""
ESTIMATOR = """\
{% macro bigquery__estimate_bytes_billed(source_node, sql) %}
  {%- if source_node.name == 'items' -%}
    {{ return({'bytes': 50 * 1024 * 1024, 'how': "the project's estimate"}) }}
  {%- endif -%}
  {{ return(dataplex_dq.bigquery__estimate_bytes_billed(source_node, sql)) }}
{% endmacro %}
"""


@pytest.mark.parametrize("target", ["duckdb", "bigquery"])
def test_max_bytes_billed(target, tmp_path, dropped_after):
    require_target(target)
    project = write_project(
        tmp_path,
        "cost_guard",
        {
            "seeds/items.csv": "id,qty\n1,1\n2,3\n",
            "seeds/plain.csv": "id\n1\n",
            "seeds/schema.yml": SCHEMA,
            "macros/estimator.sql": ESTIMATOR,
        },
        env=dropped_after(target, target_env(target, tmp_path, "cost_guard")),
        target=target,
    )
    build = project.run("build")
    by_name = build.results_by_name()
    status = {name: r["status"] for name, r in by_name.items() if name in ("items_scan", "qty-capped", "plain-capped")}
    bad = by_name["qty-bad-cap"]
    assert bad["status"] == "error"
    assert (
        "dataplex_dq: seed 'items', rule 'qty-bad-cap' (dataplex_dq.range_expectation), "
        "field 'meta.dataplex_dq.max_bytes_billed': must be a positive whole number of bytes, got \"lots\""
    ) in bad["message"]
    if target == "duckdb":  # no bytes billed: checked, nothing else
        assert status == {"items_scan": "pass", "qty-capped": "pass", "plain-capped": "pass"}
        return
    assert status == {"items_scan": "error", "qty-capped": "pass", "plain-capped": "pass"}, build.output[-3000:]
    message = by_name["items_scan"]["message"]
    assert (
        "field 'meta.dataplex_dq.max_bytes_billed': the query would bill up to 50.0 MiB (52,428,800 bytes) "
        "(the project's estimate), over the cap of 20.0 MiB (20,971,520 bytes); it was not run"
    ) in message
    assert "seed 'items'" in message and "items_scan" in message
    scan_node = next(n for n in build.manifest["nodes"].values() if n["name"] == "items_scan")
    client = bigquery_client(project.env)  # its query never ran: dbt stored no metrics table
    tables = {t.table_id for t in client.list_tables(f"{project.env['DBT_BQ_PROJECT']}.{project.schema}")}
    assert scan_node["alias"] not in tables and "items" in tables
    assert "max_bytes_billed not checked: BigQuery reports no size for" in build.output


def test_a_results_table_without_the_cost_columns_gets_them_from_dbt_build(tmp_path):
    """A results table of an earlier version (no cost columns): `dbt build` appends them at the end (the
    model's on_schema_change), and the report then fills them."""
    import duckdb

    from expected_schema import RESULTS_SCHEMA

    db = tmp_path / "upgrade.duckdb"
    project = write_project(
        tmp_path,
        "cost_upgrade",
        {
            "seeds/items.csv": "id,qty\n1,1\n2,3\n",
            "seeds/schema.yml": """\
                version: 2
                seeds:
                  - name: items
                    columns:
                      - name: qty
                        data_tests:
                          - dataplex_dq.non_null_expectation: {name: qty-present}
                """,
        },
        env={"DBT_DUCKDB_PATH": str(db)},
    )
    assert project.run("build").success
    cost_columns = [n for n, _ in RESULTS_SCHEMA][-10:]
    assert cost_columns[0] == "rule_execution_seconds"
    con = duckdb.connect(str(db))
    for name in cost_columns:
        con.execute(f"alter table main.dataplex_dq_results drop column {name}")
    con.close()
    build = project.run("build")
    assert build.success, build.output[-3000:]
    report = project.report()
    assert report.returncode == 0, report.stdout + report.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        # the second build's row (the first build recorded its own before the columns were dropped)
        invocation = build.run_results["metadata"]["invocation_id"]
        res = con.execute("select * from main.dataplex_dq_results where dbt_invocation_id = ?", [invocation])
        cols = [d[0] for d in res.description]
        (row,) = [dict(zip(cols, r, strict=True)) for r in res.fetchall()]
    finally:
        con.close()
    assert cols == [n for n, _ in RESULTS_SCHEMA]
    ran = build.results_by_name()["qty-present"]
    assert (row["job_query_count"], row["rule_execution_seconds"]) == (1, ran["execution_time"])
