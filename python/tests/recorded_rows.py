"""Results-table rows as the package's SQL writes them (macros/results/on_run_end.sql; a full one in
integration_tests/tests/test_bigquery_sql.py): JSON columns as text (as DuckDB and PostgreSQL give them back),
rule types by display name. For the tests of run/recorded.py and its users."""

from __future__ import annotations

import json
from typing import Any

INV = "inv-1"
SOURCE = "seed.p.items"
JOB = "job-items"
BQ = {"_message": "SELECT", "code": "SELECT", "bytes_processed": 3_000_000, "bytes_billed": 10_485_760, "slot_ms": 42}
NOTIFIED = {
    "state": "SUCCEEDED",
    "message": "sent to 1 recipient(s)",
    "triggers": ["score_threshold"],
    "emails": ["dq@example.com"],
    "webhook": False,
}


def job_columns(**over: Any) -> dict[str, Any]:
    """What every row of the job shares (the writer repeats it in each row)."""
    cols: dict[str, Any] = {
        "data_quality_scan": json.dumps(
            {
                "resource_name": None,
                "project_id": "db",
                "location": None,
                "data_scan_id": "dbt-seed-items",
                "display_name": "seed items",
            }
        ),
        "data_source": json.dumps(
            {"resource_name": "db.main.items", "table_project_id": "db", "dataset_id": "main", "table_id": "items"}
        ),
        "data_quality_job_id": JOB,
        "data_quality_job_configuration": json.dumps(
            {
                "trigger": "ondemand",
                "incremental": False,
                "sampling_percent": 100.0,
                "row_filter": "id <> 99",
                "incremental_column": None,
            }
        ),
        "job_labels": json.dumps({"dbt_project": "p", "dbt_target": "prod"}),
        "job_start_time": "2024-01-02T03:04:05.123456",
        "job_end_time": "2024-01-02 03:04:07.5 UTC",  # BigQuery's text form
        "job_quality_result": json.dumps(
            {"passed": False, "score": 66.67, "incremental_start": None, "incremental_end": None}
        ),
        "job_dimension_result": json.dumps(
            {"VALIDITY": {"passed": False, "score": 50.0}, "CONSISTENCY": {"passed": True, "score": 100.0}}
        ),
        "job_rows_scanned": 10,
        "job_row_weighted_score": 93.75,
        "job_notification_result": json.dumps(NOTIFIED),
        "dbt_invocation_id": INV,
        "dbt_node_unique_id": SOURCE,
        "dbt_target": "prod",
        "job_declared_rules": '["anomaly-detection-items","qty-cond","qty-mean","qty-range","qty-regex","qty-set"]',
        "job_declared_rule_count": 6,
        "job_run_rule_count": 6,
    }
    cols.update(over)
    return cols


def rule_row(name: str, rule_type: str, status: str, **over: Any) -> dict[str, Any]:
    evaluated = status in ("PASSED", "FAILED")
    row: dict[str, Any] = {
        **job_columns(),
        "rule_name": name,
        "rule_description": None,
        "rule_type": rule_type,
        "rule_column": "qty",
        "rule_dimension": "VALIDITY",
        "rule_threshold_percent": 100.0,
        "rule_parameters": None,
        "rule_passed": (status == "PASSED") if evaluated else None,
        "rule_rows_evaluated": None,
        "rule_rows_passed": None,
        "rule_rows_null": None,
        "rule_failed_records_query": None,
        "rule_assertion_row_count": None,
        "debug_queries": "[]",
        "rule_suspended": status == "SUSPENDED",
        "rule_attributes": None,
        "rule_status": status,
        "rule_message": None,
        "rule_statistic_value": None,
        "rule_statistic_value_text": None,
        "dbt_test_unique_id": f"test.p.{name}",
        "dbt_test_cost": None,
    }
    row.update(over)
    return row


def debug_query(description: str, sql: str, *results: tuple[str, str, str | None]) -> dict[str, Any]:
    return {
        "description": description,
        "sql_statement": sql,
        "debug_query_results": [{"name": n, "type": t, "value": v} for n, t, v in results],
    }
