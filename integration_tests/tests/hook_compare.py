"""Compare results-table rows written by the on-run-end hook with the rows `dataplex-dq report` writes,
column by column, on any target (values as the test drivers return them)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

# columns only the Python report can fill (the debug queries' results need the queries run)
DEBUG_RESULTS = "debug_query_results"
TIME_COLUMNS = ("job_start_time", "job_end_time", "created_on", "last_updated")


def _norm(value: Any) -> Any:
    """A driver value in one comparable form: JSON text decoded, timestamps naive UTC, Decimal as float,
    debug query results dropped (the hook leaves them empty)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items() if k != DEBUG_RESULTS}
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def keyed(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        key = (row["data_quality_job_id"], row["rule_name"])
        assert key not in out, f"two rows for job {key[0]} rule {key[1]}"
        out[key] = {k: _norm(v) for k, v in row.items()}
    return out


def differences(
    hook_rows: list[dict[str, Any]],
    report_rows: list[dict[str, Any]],
    skip_jobs_times: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Every (job, rule, column) where the two row sets differ, as readable lines; [] when equal.
    The time columns of the jobs in ``skip_jobs_times`` are not compared."""
    hook, report = keyed(hook_rows), keyed(report_rows)
    out = []
    for key in sorted(set(hook) ^ set(report)):
        out.append(f"{key}: only in {'hook' if key in hook else 'report'} rows")
    for key in sorted(set(hook) & set(report)):
        h, r = hook[key], report[key]
        for column in r:
            if key[0] in skip_jobs_times and column in TIME_COLUMNS:
                continue
            if h.get(column) != r[column]:
                out.append(f"{key} {column}: hook {h.get(column)!r} != report {r[column]!r}")
    return out
