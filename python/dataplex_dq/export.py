"""Rows of the results table (docs/SEMANTICS.md §9): one per rule per job, the Dataplex export columns in their
order, then our extension columns. Building the rows is pure; writing them goes through the
package's macros (macros/results/results_table.sql) on dbt's adapter."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dataplex_dq.cost import QueryCost, job_cost
from dataplex_dq.errors import ExportError
from dataplex_dq.metrics import RuleStatus
from dataplex_dq.outcomes import RuleOutcome
from dataplex_dq.rule_types import RULE_TYPES
from dataplex_dq.scoring import ScoreCard
from dataplex_dq.warehouse import Warehouse

RULE_TYPE_DISPLAY = {t.name: t.display_name for t in RULE_TYPES.values()}  # rule_types.py
JOB_NAMESPACE = uuid.UUID("6f1c1f3e-2f0a-4d57-9a43-5d8e0c2b7a10")
DEFAULT_RESULTS_TABLE = "dataplex_dq_results"
MAX_STATEMENT_CHARS = 900_000  # BigQuery's limit is 1,024K characters per statement
# elsewhere (DuckDB, PostgreSQL) an INSERT may be far longer: fewer, larger statements (each one renders a macro)
MAX_INSERT_CHARS_ELSEWHERE = 16_000_000


def job_id(invocation_id: str, data_source_id: str) -> str:
    """Deterministic job id: the same invocation and data source always give the same id.

    A version-3 style UUID from the MD5 of ``"<JOB_NAMESPACE>/<invocation>/<data source>"``, so that
    the on-run-end hook computes the same id in Jinja (dbt offers MD5 there, no SHA-1): the macro
    ``dataplex_dq.job_id`` (macros/results/on_run_end.sql)."""
    digest = hashlib.md5(f"{JOB_NAMESPACE}/{invocation_id}/{data_source_id}".encode()).hexdigest()
    return str(uuid.UUID(hex=digest, version=3))


def _iso(ts: datetime | None) -> str | None:
    if ts is None:
        return None
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return ts.isoformat(timespec="microseconds")


@dataclass(frozen=True)
class JobContext:
    """What the rows of one data source's job share."""

    invocation_id: str
    data_source_id: str
    data_source_name: str
    resource_type: str
    database: str | None
    schema: str | None
    identifier: str | None
    adapter_type: str
    start_time: datetime | None
    end_time: datetime | None
    rows_scanned: int | None
    row_filter: str | None = None
    sampling_percent: float | None = None
    labels: dict[str, str] = field(default_factory=dict)
    # incremental scans: the window's column and bounds (start exclusive, None on a first job)
    incremental_field: str | None = None
    incremental_start: str | None = None
    incremental_end: str | None = None
    # outcome of the job's notifications (notify.py), kept in the extension column job_notification_result
    notification_result: dict[str, Any] | None = None
    target: str | None = None  # the dbt target the job ran on
    declared_rules: tuple[str, ...] | None = None  # every rule its data source declares (manifest), sorted
    # what each dbt test of the invocation cost (run_results.json), by test unique_id: the cost columns
    test_costs: Mapping[str, QueryCost] = field(default_factory=dict)

    @property
    def job_id(self) -> str:
        return job_id(self.invocation_id, self.data_source_id)

    @property
    def data_scan_id(self) -> str:
        """A valid Dataplex data scan id (lower-case letters, digits, hyphens) for the data source."""
        raw = re.sub(r"[^a-z0-9]+", "-", f"dbt-{self.resource_type}-{self.data_source_name}".lower()).strip("-")
        return raw[:63].rstrip("-")


def _rule_parameters(outcome: RuleOutcome) -> dict[str, Any] | None:
    params = outcome.rule_spec.get(outcome.rule_type)
    return params if isinstance(params, dict) else None


def _debug_queries(
    outcome: RuleOutcome, results: Sequence[Sequence[tuple[str, str, Any]]] | None
) -> list[dict[str, Any]]:
    declared = outcome.rule_spec.get("debug_queries") or outcome.rule_spec.get("debugQueries") or []
    out = []
    for i, q in enumerate(declared):
        values = results[i] if results and i < len(results) else []
        out.append(
            {
                "description": q.get("description"),
                "sql_statement": q.get("sql_statement") or q.get("sqlStatement"),
                "debug_query_results": [
                    {"name": n, "type": t, "value": None if v is None else str(v)} for n, t, v in values
                ],
            }
        )
    return out


def result_rows(
    job: JobContext,
    outcomes: Sequence[RuleOutcome],
    card: ScoreCard,
    debug_results: Mapping[str, Sequence[Sequence[tuple[str, str, Any]]]] | None = None,
) -> list[dict[str, Any]]:
    """The results-table rows of one job, every rule included (suspended, errored, skipped too)."""
    is_bigquery = job.adapter_type == "bigquery"
    table_resource = (
        f"//bigquery.googleapis.com/projects/{job.database}/datasets/{job.schema}/tables/{job.identifier}"
        if is_bigquery
        else ".".join(p for p in (job.database, job.schema, job.identifier) if p)
    )
    shared = {
        "data_quality_scan": {
            "resource_name": None,
            "project_id": job.database,
            "location": None,
            "data_scan_id": job.data_scan_id,
            "display_name": f"{job.resource_type} {job.data_source_name}",
        },
        "data_source": {
            "resource_name": table_resource,
            "dataplex_entity_project_id": None,
            "dataplex_entity_project_number": None,
            "dataplex_lake_id": None,
            "dataplex_zone_id": None,
            "dataplex_entity_id": None,
            "table_project_id": job.database,
            "table_project_number": None,
            "dataset_id": job.schema,
            "table_id": job.identifier,
        },
        "data_quality_job_id": job.job_id,
        "data_quality_job_configuration": {
            "trigger": "ondemand",
            "incremental": job.incremental_field is not None,
            "sampling_percent": float(job.sampling_percent) if job.sampling_percent else 100.0,
            "row_filter": job.row_filter,
            "incremental_column": job.incremental_field,
        },
        "job_labels": job.labels,
        "job_start_time": _iso(job.start_time),
        "job_end_time": _iso(job.end_time),
        # a job without evaluated rules (all skipped, errored or suspended) is not evaluated: passed NULL
        "job_quality_result": {
            "passed": card.passed if card.evaluated else None,
            "score": card.score,
            "incremental_start": job.incremental_start,
            "incremental_end": job.incremental_end,
        },
        "job_dimension_result": card.job_dimension_result(),
        "job_rows_scanned": job.rows_scanned,
    }
    # rule names are letters, digits and hyphens: '"name"' occurs in this JSON text only for that rule
    declared = json.dumps(sorted(job.declared_rules), separators=(",", ":")) if job.declared_rules is not None else None
    # cost (docs/SEMANTICS.md §9): the job's tests summed once each; a rule's own cost only where its test
    # evaluated that rule alone (a per-rule test), never a share of a scan's query
    costs = job.test_costs
    spent = job_cost((o.test_unique_id for o in outcomes), costs)
    rules_of_test = Counter(o.test_unique_id for o in outcomes)
    rows = []
    for o in outcomes:
        m = o.metrics
        evaluated = o.status in (RuleStatus.PASSED, RuleStatus.FAILED)
        row_level = o.is_row_level
        threshold = o.threshold if row_level else None
        test_cost = costs.get(o.test_unique_id or "")
        own = test_cost if test_cost is not None and rules_of_test[o.test_unique_id] == 1 else None
        rows.append(
            {
                **shared,
                "rule_name": o.rule_name,
                "rule_description": o.description,
                "rule_type": RULE_TYPE_DISPLAY.get(o.rule_type, o.rule_type),
                "rule_evaluation_type": RULE_TYPES[o.rule_type].evaluation_type,
                "rule_column": o.column,
                "rule_dimension": o.dimension,
                "rule_threshold_percent": round(threshold * 100, 6) if threshold is not None else None,
                "rule_parameters": _rule_parameters(o),
                "rule_passed": o.passed if evaluated else None,
                "rule_rows_evaluated": m.evaluated_count if (m and evaluated and row_level) else None,
                "rule_rows_passed": m.passed_count if (m and evaluated and row_level) else None,
                "rule_rows_passed_percent": (m.pass_ratio * 100 if m.pass_ratio is not None else None)
                if (m and evaluated and row_level)
                else None,
                "rule_rows_null": m.null_count if (m and evaluated) else None,
                "rule_failed_records_query": m.failing_rows_query if (m and evaluated and row_level) else None,
                "created_on": _iso(job.start_time),
                "last_updated": _iso(job.end_time),
                "rule_assertion_row_count": m.assertion_row_count if (m and evaluated) else None,
                "debug_queries": _debug_queries(o, (debug_results or {}).get(o.rule_name)),
                "rule_suspended": o.status == RuleStatus.SUSPENDED,
                "rule_attributes": o.attributes or None,
                "rule_status": str(o.status),
                "rule_message": o.message,
                "rule_statistic_value": m.statistic_value if (m and evaluated) else None,
                "job_row_weighted_score": card.row_weighted_score,
                "dbt_invocation_id": job.invocation_id,
                "dbt_test_unique_id": o.test_unique_id,
                "dbt_node_unique_id": job.data_source_id,
                # extension column (issue 11): outcome of the job's notification_report, NULL when none is set;
                # {"state": SUCCEEDED|FAILED|SKIPPED, "message", "triggers": [...], "emails": [...], "webhook": bool}
                "job_notification_result": job.notification_result,
                "rule_statistic_value_text": m.statistic_value_text if (m and evaluated) else None,
                "dbt_target": job.target,
                "job_declared_rules": declared,
                "job_declared_rule_count": len(job.declared_rules) if job.declared_rules is not None else None,
                "job_run_rule_count": len(outcomes),
                "rule_execution_seconds": own.execution_seconds if own else None,
                "rule_bytes_processed": own.bytes_processed if own else None,
                "rule_bytes_billed": own.bytes_billed if own else None,
                "rule_slot_ms": own.slot_ms if own else None,
                "job_execution_seconds": spent.execution_seconds,
                "job_bytes_processed": spent.bytes_processed,
                "job_bytes_billed": spent.bytes_billed,
                "job_slot_ms": spent.slot_ms,
                "job_query_count": spent.queries,
                "dbt_test_cost": test_cost.as_json() if test_cost is not None else None,
            }
        )
    return rows


def batches(texts: Sequence[str], max_chars: int, sep_len: int = 1, max_items: int | None = None) -> list[list[str]]:
    """Consecutive groups of ``texts`` whose joined length (with ``sep_len`` between items, plus 2
    for brackets) stays within ``max_chars``, and at most ``max_items`` items each. An item longer
    than the limit gets a group of its own."""
    out: list[list[str]] = []
    current: list[str] = []
    size = 2
    for text in texts:
        full = max_items is not None and len(current) >= max_items
        if current and (full or size + len(text) + sep_len > max_chars):
            out.append(current)
            current, size = [], 2
        current.append(text)
        size += len(text) + sep_len
    if current:
        out.append(current)
    return out


def chunk_rows(rows: Sequence[dict[str, Any]], max_chars: int = MAX_STATEMENT_CHARS) -> list[str]:
    """JSON arrays of rows, each small enough for one INSERT statement."""
    texts = [json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in rows]
    return ["[" + ",".join(b) + "]" for b in batches(texts, max_chars)]


def write_results(wh: Warehouse, relation: Any, rows: Sequence[dict[str, Any]], job_ids: Sequence[str]) -> None:
    """Create the results table if missing, replace the rows of these jobs, insert the new rows."""
    try:
        wh.begin()
        created = bool(wh.macro("ensure_results_table", relation=relation))
        if not created:
            from dataplex_dq.results_schema import check_results_columns

            check_results_columns(wh, relation)
        # creating the table commits (dbt's create_schema ends the transaction): open it again, the
        # lock and the DELETE + INSERT must share one
        wh.begin()
        wh.macro("lock_results_table", relation=relation)
        pause = os.environ.get("DATAPLEX_DQ_TEST_PAUSE_AFTER_DELETE")  # tests: widen the race window
        if job_ids:
            for i in range(0, len(job_ids), 1000):
                wh.macro("delete_results", relation=relation, job_ids=list(job_ids[i : i + 1000]))
        if pause:
            time.sleep(float(pause))
        # BigQuery's string literal escaping (\\ and \') can double the JSON's length: keep the
        # statement under BigQuery's 1,024K characters.
        max_chars = MAX_STATEMENT_CHARS // 2 if wh.adapter_type == "bigquery" else MAX_INSERT_CHARS_ELSEWHERE
        for chunk in chunk_rows(rows, max_chars):
            # the INSERT rendered by the package's macro, run on the connection's cursor (no dbt log event
            # copying each megabyte-long statement)
            wh.execute(str(wh.macro("insert_results_json_sql", relation=relation, rows_json=chunk)))
        wh.commit()
    except Exception as exc:
        raise ExportError(
            f"exporting {len(rows)} result rows to {relation} failed: {exc}\n"
            "The result files under target/dataplex_dq/ were written; fix the cause and run `dataplex-dq report` again "
            "(it replaces the rows of this invocation, so no duplicates are left)."
        ) from exc
