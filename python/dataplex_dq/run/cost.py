"""What each dataplex_dq test's query cost (docs/SEMANTICS.md §9, cost columns): dbt's `execution_time` and
`adapter_response` of the test node (BigQuery: bytes processed, bytes billed, slot milliseconds; DuckDB and
PostgreSQL: the execution time and what the adapter reports, e.g. rows_affected).

A test node is one query: a per-rule test's query is its rule's own cost; a data_quality_scan's one query
is shared by all its rules, so its cost belongs to the job. A job's cost is the sum over its tests."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


def _int(value: Any) -> int | None:
    """An integer counter of an adapter response, else None (dbt-bigquery's dry run formats bytes as text)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class QueryCost:
    """The cost of one test node's query, as dbt recorded it (None: not reported by the adapter)."""

    execution_seconds: float | None = None
    bytes_processed: int | None = None
    bytes_billed: int | None = None
    slot_ms: int | None = None
    adapter_response: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_run_result(cls, adapter_response: Any, execution_time: Any) -> QueryCost:
        response = adapter_response if isinstance(adapter_response, dict) else {}
        seconds = (
            float(execution_time)
            if isinstance(execution_time, int | float) and not isinstance(execution_time, bool)
            else None
        )
        return cls(
            execution_seconds=seconds,
            bytes_processed=_int(response.get("bytes_processed")),
            bytes_billed=_int(response.get("bytes_billed")),
            slot_ms=_int(response.get("slot_ms")),
            adapter_response=dict(response),
        )

    def as_json(self) -> dict[str, Any]:
        """The `dbt_test_cost` column: what dbt recorded for the test, read back by ``from_json``."""
        return {"execution_time": self.execution_seconds, "adapter_response": self.adapter_response}

    @classmethod
    def from_json(cls, value: Any) -> QueryCost | None:
        """A stored `dbt_test_cost` (JSON text where the warehouse has no JSON type), None when absent."""
        if isinstance(value, str):
            value = json.loads(value)
        if not isinstance(value, dict):
            return None
        return cls.from_run_result(value.get("adapter_response"), value.get("execution_time"))


def _sum(values: Iterable[int | float | None]) -> Any:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


@dataclass(frozen=True)
class JobCost:
    """The sum of a job's test queries (each test counted once, however many rules it evaluated)."""

    queries: int = 0
    execution_seconds: float | None = None
    bytes_processed: int | None = None
    bytes_billed: int | None = None
    slot_ms: int | None = None

    @classmethod
    def of(cls, costs: Iterable[QueryCost]) -> JobCost:
        items = list(costs)
        return cls(
            queries=len(items),
            execution_seconds=_sum(c.execution_seconds for c in items),
            bytes_processed=_sum(c.bytes_processed for c in items),
            bytes_billed=_sum(c.bytes_billed for c in items),
            slot_ms=_sum(c.slot_ms for c in items),
        )


def job_cost(test_ids: Iterable[str | None], costs: Mapping[str, QueryCost]) -> JobCost:
    """The cost of the distinct tests among ``test_ids`` that dbt ran (skipped tests ran no query)."""
    seen = dict.fromkeys(t for t in test_ids if t is not None and t in costs)
    return JobCost.of(costs[t] for t in seen)


def format_bytes(n: int) -> str:
    """Bytes in binary units, as BigQuery bills them (its MB and GB are 2^20 and 2^30 bytes)."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024:
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def format_cost(
    execution_seconds: float | None,
    bytes_billed: int | None = None,
    slot_ms: int | None = None,
    queries: int | None = None,
) -> str:
    """One short text for a summary cell: '1.2 GiB billed, 3.4 slot-s, 0.52 s, 3 queries'."""
    parts = []
    if bytes_billed is not None:
        parts.append(f"{format_bytes(bytes_billed)} billed")
    if slot_ms is not None:
        parts.append(f"{slot_ms / 1000:.1f} slot-s")
    if execution_seconds is not None:
        parts.append(f"{execution_seconds:.2f} s")
    if queries is not None:
        parts.append(f"{queries} {'query' if queries == 1 else 'queries'}")
    return ", ".join(parts) or "—"
