"""BigQuery SQL, checked without trusting the emulator's SQL dialect:

* every statement the package compiled for BigQuery in the integration project (the tests' compiled
  and executed SQL, the result models, the failing-rows and debug queries the rules hand out, and the
  post-hook's CREATE TABLE / delete / INSERT of the results table) parses with sqlglot's `bigquery`
  dialect, with no PostgreSQL/DuckDB-only syntax left in it;
* a few compiled statements are kept as golden files under integration_tests/golden/bigquery/ (one
  per rule type, the results table's DDL, the export's delete and INSERT) for a reviewer to read; the
  test fails when the SQL drifts from them. Regenerate with `make golden` (see golden/README.md).

The statements come from the same `dbt build` on the local BigQuery emulator as the other BigQuery
tests (the rule macros read column types from the warehouse while compiling).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path

import pytest
from sqlglot import exp

from dbt_harness import INTEGRATION_DIR, parse_bigquery, render_results_sql
from expected_schema import RESULTS_SCHEMA, schema_from_ddl

GOLDEN_DIR = INTEGRATION_DIR / "golden" / "bigquery"
UPDATE_GOLDEN = os.environ.get("DATAPLEX_DQ_UPDATE_GOLDEN") == "1"

# one rule per rule type, picked for what its SQL shows (escaping, ${data()}, row filter, dbt where)
GOLDEN_RULES = {
    "range_expectation": "qty-range-strict-both",  # strict bounds cast to INT64, a debug query
    "non_null_expectation": "event-ts-not-null",  # the data source's row filter, a threshold
    "set_expectation": "name-set-quoted",  # quotes, backslashes, unicode in literals
    "regex_expectation": "name-has-backslash",  # REGEXP_CONTAINS with an escaped backslash
    "uniqueness_expectation": "customer-ref-unique-where",  # dbt's `where` subquery
    "statistic_range_expectation": "big-id-min-stat",  # MIN of an INT64 around 2^53
    "row_condition_expectation": "event-date-after-scope-min",  # ${data()} in a scalar subquery
    "table_condition_expectation": "events-count-matches-data",  # ${data()} in an aggregate
    "sql_assertion": "events-before-2024",  # ${data()} as the FROM of the statement
}

# One results-table row with every column set, and text that needs escaping in a BigQuery literal.
EXAMPLE_ROW = {
    "data_quality_scan": {
        "resource_name": None,
        "project_id": "dq-local",
        "location": None,
        "data_scan_id": "dbt-seed-dq-strings",
        "display_name": "seed dq_strings",
    },
    "data_source": {
        "resource_name": "//bigquery.googleapis.com/projects/dq-local/datasets/dq_it/tables/dq_strings",
        "dataplex_entity_project_id": None,
        "dataplex_entity_project_number": None,
        "dataplex_lake_id": None,
        "dataplex_zone_id": None,
        "dataplex_entity_id": None,
        "table_project_id": "dq-local",
        "table_project_number": None,
        "dataset_id": "dq_it",
        "table_id": "dq_strings",
    },
    "data_quality_job_id": "job-1",
    "data_quality_job_configuration": {
        "trigger": "ondemand",
        "incremental": False,
        "sampling_percent": 100.0,
        "row_filter": "status <> 'test'",
        "incremental_column": None,
    },
    "job_labels": {"dbt_project": "dataplex_dq_integration_tests", "dbt_target": "bigquery"},
    "job_start_time": "2024-01-02T03:04:05.123456",
    "job_end_time": "2024-01-02T03:04:06.000000",
    "job_quality_result": {"passed": False, "score": 11.76, "incremental_start": None, "incremental_end": None},
    "job_dimension_result": {"VALIDITY": {"passed": False, "score": 16.67}},
    "job_rows_scanned": 18,
    "rule_name": "name-set-quoted",
    "rule_description": 'O\'Brien said "hi" at C:\\temp\\new\nsecond line, Zoë 東京 🎉',
    "rule_type": "Set check",
    "rule_evaluation_type": "Per row",
    "rule_column": "name",
    "rule_dimension": "VALIDITY",
    "rule_threshold_percent": 100.0,
    "rule_parameters": {"values": ["O'Brien", "back\\slash"]},
    "rule_passed": False,
    "rule_rows_evaluated": 18,
    "rule_rows_passed": 9,
    "rule_rows_passed_percent": 50.0,
    "rule_rows_null": 2,
    "rule_failed_records_query": (
        "select * from `dq-local`.`dq_it`.`dq_strings` where not coalesce(name in ('O\\'Brien'), false)"
    ),
    "created_on": "2024-01-02T03:04:05.123456",
    "last_updated": "2024-01-02T03:04:06.000000",
    "rule_assertion_row_count": None,
    "debug_queries": [
        {
            "description": "largest",
            "sql_statement": "select max(qty) as m from ${data()}",
            "debug_query_results": [{"name": "m", "type": "NUMERIC", "value": "100"}],
        }
    ],
    "rule_suspended": False,
    "rule_attributes": {"owner": "data-team"},
    "rule_status": "FAILED",
    "rule_message": None,
    "rule_statistic_value": None,
    "job_row_weighted_score": 0.5017,
    "dbt_invocation_id": "00000000-0000-0000-0000-000000000000",
    "dbt_test_unique_id": "test.dataplex_dq_integration_tests.name-set-quoted",
    "dbt_node_unique_id": "seed.dataplex_dq_integration_tests.dq_strings",
    "rule_statistic_value_text": None,
    "dbt_target": "bigquery",
    "job_declared_rules": None,
    "job_declared_rule_count": 2,
    "job_run_rule_count": 1,
}


@pytest.fixture(scope="module")
def bq(bigquery_build):
    return bigquery_build


@pytest.fixture(scope="module")
def rendered(bq):
    """The post-hook's results-table statements for BigQuery, rendered by the package's macros."""
    out, res = render_results_sql(
        bq.project,
        bq.project.target_path.parent / "target_ops",
        "dataplex_dq_results",
        rows_json=json.dumps([EXAMPLE_ROW], ensure_ascii=False, separators=(",", ":")),
        job_ids=("job-1", "job-2"),
        schema="dq_it",
    )
    assert out is not None, res.output[-4000:]
    return out


def _normalize(sql: str, bq) -> str:
    """Golden text: the session's random dataset and invocation id replaced by fixed names."""
    sql = sql.replace(bq.schema, "dq_it")
    sql = sql.replace(bq.build.run_results["metadata"]["invocation_id"], "<invocation_id>")
    return sql.rstrip() + "\n"


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN_DIR / name
    if UPDATE_GOLDEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"golden file {path} is missing: run `make golden` to write it"
    expected = path.read_text()
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), f"golden/bigquery/{name}", "compiled now"
            )
        )
        pytest.fail(
            f"compiled BigQuery SQL drifted from golden/bigquery/{name}; if intended, run `make golden` and review "
            f"the diff:\n{diff}"
        )


def _compiled_sql_files(bq) -> list[Path]:
    root = bq.build.target_path
    return sorted((root / "compiled").rglob("*.sql")) + sorted((root / "run").rglob("*.sql"))


# ------------------------------------------------------------------------------- parsing


def test_every_compiled_statement_parses(bq):
    files = _compiled_sql_files(bq)
    tests = [
        n
        for n in bq.build.manifest["nodes"].values()
        if (n.get("test_metadata") or {}).get("namespace") == "dataplex_dq"
    ]
    compiled_tests = [f for f in files if "/compiled/" in str(f) and f.stem in {t["name"] for t in tests}]
    assert len(compiled_tests) == len(tests), "every dataplex_dq test should have compiled SQL"
    for f in files:
        parse_bigquery(f.read_text(), str(f.relative_to(bq.build.target_path)))


def test_failing_rows_and_debug_queries_parse(bq):
    for name, row in bq.metrics.items():
        if row["failing_rows_query"]:
            parse_bigquery(row["failing_rows_query"], f"{name}: failing_rows_query")
        for q in json.loads(row["debug_queries_sql"] or "[]"):
            parse_bigquery(q["sql_statement"], f"{name}: debug query {q.get('description')!r}")


def test_results_table_statements_parse(rendered):
    for key in ("create", "delete", "insert"):
        parse_bigquery(rendered[key], f"results table {key}")


def test_results_ddl_has_the_export_schema_partitioning_and_clustering(rendered):
    """The CREATE TABLE the post-hook runs when the results table is missing: docs/SEMANTICS.md §9's columns, types
    and nesting, partitioned by day on job_start_time as the package model is (TIMESTAMP_TRUNC(job_start_time, DAY),
    what dbt-bigquery renders for the model's partition_by: one form for both)."""
    [create] = parse_bigquery(rendered["create"], "results table create")
    assert isinstance(create, exp.Create)
    assert schema_from_ddl(create.this.expressions) == RESULTS_SCHEMA
    partition = create.find(exp.PartitionedByProperty)
    assert partition is not None, "no PARTITION BY"
    assert re.sub(r"\s+", "", partition.this.sql("bigquery").upper()) == "TIMESTAMP_TRUNC(JOB_START_TIME,DAY)"
    assert _clustering(create) == ["dbt_invocation_id", "data_source"]


def _clustering(create: exp.Create) -> list[str]:
    """The CLUSTER BY columns of a CREATE TABLE (issue 32: one invocation's rows, one data source's history)."""
    cluster = create.find(exp.ClusterProperty)
    assert cluster is not None, "no CLUSTER BY"
    return [c.name for c in cluster.expressions]


def test_results_model_ddl_partitioning_and_clustering(bq):
    """The package model `dataplex_dq_results` (what `dbt build` creates): dbt-bigquery renders
    partition_by {field: job_start_time, data_type: timestamp, granularity: day} as
    TIMESTAMP_TRUNC(job_start_time, DAY), the same daily partitioning as DATE(job_start_time)."""
    [path] = [p for p in _compiled_sql_files(bq) if "/run/" in str(p) and p.name == "dataplex_dq_results.sql"]
    statements = parse_bigquery(path.read_text(), "dataplex_dq_results model")
    create = next(s for s in statements if isinstance(s, exp.Create))
    partition = create.find(exp.PartitionedByProperty)
    assert partition is not None
    assert re.sub(r"\s+", "", partition.this.sql("bigquery").upper()) in (
        "TIMESTAMP_TRUNC(JOB_START_TIME,DAY)",
        "DATE(JOB_START_TIME)",
    )
    assert _clustering(create) == ["dbt_invocation_id", "data_source"]


def test_insert_reads_every_column_in_order(rendered):
    [insert] = parse_bigquery(rendered["insert"], "results insert")
    assert isinstance(insert, exp.Insert)
    assert [c.name for c in insert.this.expressions] == [name for name, _ in RESULTS_SCHEMA]
    select = insert.expression
    assert [e.alias_or_name for e in select.expressions] == [name for name, _ in RESULTS_SCHEMA]


# ------------------------------------------------------------------------------- golden files


@pytest.mark.parametrize("rule_type", sorted(GOLDEN_RULES))
def test_golden_rule_sql(bq, rule_type):
    rule = GOLDEN_RULES[rule_type]
    assert bq.metrics[rule]["rule_type"] == rule_type
    [path] = [p for p in _compiled_sql_files(bq) if "/compiled/" in str(p) and p.stem == rule]
    _check_golden(
        f"{rule_type}.sql", f"-- rule {rule}: dbt's compiled test SQL on BigQuery\n" + _normalize(path.read_text(), bq)
    )


@pytest.mark.parametrize("statement", ["create", "delete", "insert"])
def test_golden_results_statements(bq, rendered, statement):
    names = {
        "create": "results_table_create.sql",
        "delete": "results_export_delete.sql",
        "insert": "results_export_insert.sql",
    }
    header = {
        "create": "-- the post-hook's CREATE TABLE when the results table is missing (ensure_results_table)\n",
        "delete": "-- the post-hook removes the rows of the jobs it is about to write (idempotent re-export)\n",
        "insert": "-- the post-hook's INSERT of result rows given as JSON (here one example row)\n",
    }[statement]
    _check_golden(names[statement], header + _normalize(rendered[statement], bq))


def test_golden_results_model(bq):
    [path] = [p for p in _compiled_sql_files(bq) if "/run/" in str(p) and p.name == "dataplex_dq_results.sql"]
    _check_golden(
        "results_table_model.sql",
        "-- `dbt build` of the package model dataplex_dq_results (first run)\n" + _normalize(path.read_text(), bq),
    )


# ------------------------------------------------------------------ the fused scan


def _normalize_build(sql: str, build, dataset: str) -> str:
    sql = sql.replace(dataset, "dq_it")
    sql = sql.replace(build.run_results["metadata"]["invocation_id"], "<invocation_id>")
    return sql.rstrip() + "\n"


def _compiled_test(build, name: str) -> str:
    [path] = [p for p in (build.target_path / "compiled").rglob("*.sql") if p.stem == name]
    return path.read_text()


def test_golden_sampled_scan(tmp_path_factory):
    """The fused scan of every rule type on a sampled base table (the sampling project's seed
    sample_rows: row filter, 50 %), with `${data()}` in a row condition, a table condition and a SQL
    assertion: the table is sampled once, in dq_scope, and `${data()}` reads that CTE; the FLOAT64
    column's uniqueness is a grouped count, the INT64 column's a window count."""
    from conftest import require_target

    require_target("bigquery")
    from test_sampling import build_sampling_project

    _, project, build, metrics = build_sampling_project("bigquery", tmp_path_factory)
    dataset = project.env["DBT_BQ_DATASET"]
    sql = _compiled_test(build, "sample_scan")
    from bigquery_lint import code_only  # the SQL outside string literals (the debug queries are one)

    assert code_only(sql).lower().count("tablesample") == 1
    assert "(select * from dq_scope)" in sql
    assert "partition by `id`" in sql and "group by `score`" in sql and "partition by `score`" not in sql
    _check_golden(
        "data_quality_scan_sampled.sql",
        "-- data_quality_scan sample_scan: every rule type on a sampled base table, ${data()} rules\n"
        + _normalize_build(sql, build, dataset),
    )
    queries = json.loads(metrics["scan-row-data-ref"]["debug_queries_sql"])
    assert [q["description"] for q in queries] == ["sampled rows", "a self-join"]
    # one `${data()}`: the table's sampler; two: a row-level random filter (a table is sampled once per statement)
    assert "tablesample system (50 percent)" in queries[0]["sql_statement"]
    assert "tablesample" not in queries[1]["sql_statement"] and queries[1]["sql_statement"].count("rand() < 0.5") == 2
    text = "".join(f"-- debug query: {q['description']}\n{q['sql_statement']};\n" for q in queries)
    _check_golden(
        "data_quality_scan_sampled_debug_queries.sql",
        "-- the debug queries of rule scan-row-data-ref, as handed out (${data()} expanded)\n"
        + _normalize_build(text, build, dataset),
    )


def test_golden_scan_uniqueness_on_float64(tmp_path_factory):
    """The scan project's dq_all_null_scan: uniqueness of a FLOAT64 column is a grouped count on
    BigQuery (a window cannot be partitioned by FLOAT64)."""
    from conftest import require_target

    require_target("bigquery")
    from test_scan import build_scan_project

    build, _, project = build_scan_project("bigquery", tmp_path_factory)
    sql = _compiled_test(build, "dq_all_null_scan")
    assert "partition by `val`" not in sql and "group by `val`" in sql
    _check_golden(
        "data_quality_scan_float_unique.sql",
        "-- data_quality_scan dq_all_null_scan: uniqueness on a FLOAT64 column\n"
        + _normalize_build(sql, build, project.env["DBT_BQ_DATASET"]),
    )


def test_no_stale_golden_files():
    expected = {f"{t}.sql" for t in GOLDEN_RULES} | {
        "results_table_create.sql",
        "results_export_delete.sql",
        "results_export_insert.sql",
        "results_table_model.sql",
        "catalog_publish.sql",  # test_post_scan_actions.py::test_bigquery_catalog_sql_golden
        "data_quality_scan_sampled.sql",
        "data_quality_scan_sampled_debug_queries.sql",
        "data_quality_scan_float_unique.sql",
    }
    present = {p.name for p in GOLDEN_DIR.glob("*.sql")}
    assert present <= expected, f"golden files no test checks: {sorted(present - expected)}"
