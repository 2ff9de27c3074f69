"""The results table's schema as docs/SEMANTICS.md §9 gives it (Dataplex's BigQuery export columns, in order, then
our extension columns), written out independently of the macros that create the table.

A type is a BigQuery type name, ("STRUCT", [(field, type), ...]) or ("ARRAY", element type)."""

from __future__ import annotations

from typing import Any

S, INT, F, B, TS, J = "STRING", "INT64", "FLOAT64", "BOOL", "TIMESTAMP", "JSON"


def struct(*fields: tuple[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    return ("STRUCT", list(fields))


def array(element: Any) -> tuple[str, Any]:
    return ("ARRAY", element)


RESULTS_SCHEMA: list[tuple[str, Any]] = [
    (
        "data_quality_scan",
        struct(("resource_name", S), ("project_id", S), ("location", S), ("data_scan_id", S), ("display_name", S)),
    ),
    (
        "data_source",
        struct(
            ("resource_name", S),
            ("dataplex_entity_project_id", S),
            ("dataplex_entity_project_number", INT),
            ("dataplex_lake_id", S),
            ("dataplex_zone_id", S),
            ("dataplex_entity_id", S),
            ("table_project_id", S),
            ("table_project_number", INT),
            ("dataset_id", S),
            ("table_id", S),
        ),
    ),
    ("data_quality_job_id", S),
    ("data_quality_job_configuration", J),
    ("job_labels", J),
    ("job_start_time", TS),
    ("job_end_time", TS),
    ("job_quality_result", struct(("passed", B), ("score", F), ("incremental_start", S), ("incremental_end", S))),
    ("job_dimension_result", J),
    ("job_rows_scanned", INT),
    ("rule_name", S),
    ("rule_description", S),
    ("rule_type", S),
    ("rule_evaluation_type", S),
    ("rule_column", S),
    ("rule_dimension", S),
    ("rule_threshold_percent", F),
    ("rule_parameters", J),
    ("rule_passed", B),
    ("rule_rows_evaluated", INT),
    ("rule_rows_passed", INT),
    ("rule_rows_passed_percent", F),
    ("rule_rows_null", INT),
    ("rule_failed_records_query", S),
    ("created_on", TS),
    ("last_updated", TS),
    ("rule_assertion_row_count", INT),
    (
        "debug_queries",
        array(
            struct(
                ("description", S),
                ("sql_statement", S),
                ("debug_query_results", array(struct(("name", S), ("type", S), ("value", S)))),
            )
        ),
    ),
    # extension columns
    ("rule_suspended", B),
    ("rule_attributes", J),
    ("rule_status", S),
    ("rule_message", S),
    ("rule_statistic_value", F),
    ("job_row_weighted_score", F),
    ("dbt_invocation_id", S),
    ("dbt_test_unique_id", S),
    ("dbt_node_unique_id", S),
    ("job_notification_result", J),
    # issue 17 / issue 9 B: the statistic's text form, the dbt target, what the job ran vs declares
    ("rule_statistic_value_text", S),
    ("dbt_target", S),
    ("job_declared_rules", S),
    ("job_declared_rule_count", INT),
    ("job_run_rule_count", INT),
    # issue 10 item 2: what the queries cost (a rule's own query only; the job's tests summed; dbt's response)
    ("rule_execution_seconds", F),
    ("rule_bytes_processed", INT),
    ("rule_bytes_billed", INT),
    ("rule_slot_ms", INT),
    ("job_execution_seconds", F),
    ("job_bytes_processed", INT),
    ("job_bytes_billed", INT),
    ("job_slot_ms", INT),
    ("job_query_count", INT),
    ("dbt_test_cost", J),
]

# BigQuery's REST API reports the legacy names of some types.
_API_TYPES = {
    "INTEGER": INT,
    "INT64": INT,
    "FLOAT": F,
    "FLOAT64": F,
    "BOOLEAN": B,
    "BOOL": B,
    "STRING": S,
    "TIMESTAMP": TS,
    "JSON": J,
}


def schema_from_api(fields: Any) -> list[tuple[str, Any]]:
    """google.cloud.bigquery SchemaField list -> the notation above (REPEATED -> ARRAY, RECORD -> STRUCT)."""
    out = []
    for f in fields:
        t: Any = (
            struct(*schema_from_api(f.fields))
            if f.field_type in ("RECORD", "STRUCT")
            else _API_TYPES.get(f.field_type, f.field_type)
        )
        if f.mode == "REPEATED":
            t = array(t)
        out.append((f.name, t))
    return out


def schema_from_ddl(column_defs: Any) -> list[tuple[str, Any]]:
    """sqlglot ColumnDef nodes of a CREATE TABLE (parsed with the bigquery dialect) -> the notation above."""
    return [(c.name, type_from_sqlglot(c.args["kind"])) for c in column_defs]


def type_from_sqlglot(dt: Any) -> Any:
    from sqlglot import exp

    if dt.this == exp.DataType.Type.STRUCT:
        return struct(*[(f.name, type_from_sqlglot(f.args["kind"])) for f in dt.expressions])
    if dt.this == exp.DataType.Type.ARRAY:
        return array(type_from_sqlglot(dt.expressions[0]))
    return dt.sql("bigquery").upper()
