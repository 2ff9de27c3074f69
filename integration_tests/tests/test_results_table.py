"""The results table (docs/SEMANTICS.md §9) as each warehouse holds it: the Dataplex export schema (names, order,
types, nesting) and, on BigQuery, the daily partitioning on job_start_time.

Two ways the table comes to exist, both checked: `dbt build` of the package model
`dataplex_dq_results`, and the post-hook's `ensure_results_table` when the table is missing."""

from __future__ import annotations

from typing import Any

from dbt_harness import bigquery_client, render_results_sql
from expected_schema import RESULTS_SCHEMA, schema_from_api


def _postgres_type(t: Any) -> str:
    if isinstance(t, tuple) or t == "JSON":  # STRUCT, ARRAY and JSON are jsonb on PostgreSQL
        return "jsonb"
    return {
        "STRING": "text",
        "INT64": "bigint",
        "FLOAT64": "double precision",
        "BOOL": "boolean",
        "TIMESTAMP": "timestamp without time zone",
    }[t]


def _duckdb_type(t: Any) -> str:
    if isinstance(t, tuple) and t[0] == "STRUCT":
        return "STRUCT(" + ", ".join(f"{n} {_duckdb_type(s)}" for n, s in t[1]) + ")"
    if isinstance(t, tuple):
        return _duckdb_type(t[1]) + "[]"
    return {
        "STRING": "VARCHAR",
        "INT64": "BIGINT",
        "FLOAT64": "DOUBLE",
        "BOOL": "BOOLEAN",
        "TIMESTAMP": "TIMESTAMP",
        "JSON": "JSON",
    }[t]


def _columns_with_types(tb, identifier: str) -> list[tuple[str, Any]]:
    if tb.target == "bigquery":
        client = bigquery_client(tb.env)
        try:
            return schema_from_api(client.get_table(f"{tb.env['DBT_BQ_PROJECT']}.{tb.schema}.{identifier}").schema)
        finally:
            client.close()
    with tb.db() as db:
        if tb.target == "duckdb":
            # DuckDB quotes struct field names that are keywords ("location")
            return [
                (r["column_name"], r["column_type"].replace('"', ""))
                for r in db.query(f"describe {tb.schema}.{identifier}")
            ]
        rows = db.query(
            "select column_name, data_type from information_schema.columns "
            f"where table_schema = '{tb.schema}' and table_name = '{identifier}' order by ordinal_position"
        )
        return [(r["column_name"], r["data_type"]) for r in rows]


def _expected(target: str) -> list[tuple[str, Any]]:
    if target == "bigquery":
        return RESULTS_SCHEMA
    convert = _postgres_type if target == "postgres" else _duckdb_type
    return [(name, convert(t)) for name, t in RESULTS_SCHEMA]


def test_model_results_table_schema(target_build):
    """The table `dbt build` creates (package model dataplex_dq_results), read back from the warehouse."""
    assert _columns_with_types(target_build, "dataplex_dq_results") == _expected(target_build.target)


def test_bigquery_results_table_schema_and_partitioning(bigquery_build):
    """Read back through the BigQuery API (google-cloud-bigquery against the emulator): every field
    NULLABLE, or REPEATED for the arrays, and daily time partitioning on job_start_time."""
    tb = bigquery_build
    client = bigquery_client(tb.env)
    try:
        table = client.get_table(f"{tb.env['DBT_BQ_PROJECT']}.{tb.schema}.dataplex_dq_results")
    finally:
        client.close()
    assert schema_from_api(table.schema) == RESULTS_SCHEMA

    def modes(fields):
        for f in fields:
            yield f.name, f.mode
            yield from modes(f.fields)

    assert {m for _, m in modes(table.schema)} <= {"NULLABLE", "REPEATED"}
    assert [n for n, m in modes(table.schema) if m == "REPEATED"] == ["debug_queries", "debug_query_results"]
    assert table.time_partitioning is not None, "the results table is not partitioned"
    assert (table.time_partitioning.type_, table.time_partitioning.field) == ("DAY", "job_start_time")


def test_ensure_results_table_creates_it_when_missing(target_build):
    """The post-hook's create-if-missing path: a new table with the export schema, once."""
    tb = target_build
    ops = tb.build.target_path.parent / "target_ensure"
    out, res = render_results_sql(tb.project, ops, "dq_results_ensured", create=True)
    assert out is not None, res.output[-4000:]
    assert out["created"] is True
    assert _columns_with_types(tb, "dq_results_ensured") == _expected(tb.target)
    if tb.target == "bigquery":  # partitioned by day on job_start_time, as the package model is
        table = bigquery_client(tb.env).get_table(f"{tb.env['DBT_BQ_PROJECT']}.{tb.schema}.dq_results_ensured")
        assert table.time_partitioning is not None, "the results table is not partitioned"
        assert (table.time_partitioning.type_, table.time_partitioning.field) == ("DAY", "job_start_time")
    again, res = render_results_sql(tb.project, ops, "dq_results_ensured", create=True)
    assert again is not None and again["created"] is False, res.output[-2000:]
