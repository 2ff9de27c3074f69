"""What a job of the results table is (docs/SEMANTICS.md §9): its deterministic id and its context. The rows
themselves are written by the package's SQL only (macros/results/on_run_end.sql, the one writer) and read back by
run/recorded.py."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dataplex_dq.rule_types import RULE_TYPES
from dataplex_dq.run.cost import QueryCost

RULE_TYPE_DISPLAY = {t.name: t.display_name for t in RULE_TYPES.values()}  # rule_types.py
JOB_NAMESPACE = uuid.UUID("6f1c1f3e-2f0a-4d57-9a43-5d8e0c2b7a10")
DEFAULT_RESULTS_TABLE = "dataplex_dq_results"


def job_id(invocation_id: str, data_source_id: str) -> str:
    """Deterministic job id: the same invocation and data source always give the same id.

    A version-3 style UUID from the MD5 of ``"<JOB_NAMESPACE>/<invocation>/<data source>"``, so that
    the on-run-end hook computes the same id in Jinja (dbt offers MD5 there, no SHA-1): the macro
    ``dataplex_dq.job_id`` (macros/results/on_run_end.sql)."""
    digest = hashlib.md5(f"{JOB_NAMESPACE}/{invocation_id}/{data_source_id}".encode()).hexdigest()
    return str(uuid.UUID(hex=digest, version=3))


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
