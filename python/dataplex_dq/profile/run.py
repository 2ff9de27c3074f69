"""Profiling through the warehouse and reading the history back: each data source's profile is computed and
recorded by the package's macro (`profile_relation`, macros/profile/profile.sql) in one scan, after its
estimate is printed (`profile_plan`); the history is one query (`profile_history_sql`)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.profile.model import FieldProfile, TableProfile, profiles_from_rows
from dataplex_dq.profile.select import DataSource
from dataplex_dq.warehouse.connection import Warehouse


class ProfileError(DataplexDqError):
    """A data source could not be profiled (one line naming it)."""


@dataclass(frozen=True)
class Plan:
    bytes: int | None  # what the scan would bill (BigQuery), None where nothing is billed or it cannot tell
    sampling_percent: float | None
    is_table: bool
    how: str | None


@dataclass(frozen=True)
class Profiled:
    source: DataSource
    plan: Plan
    profile: TableProfile
    result: dict[str, Any]  # the DataProfileResult-shaped dict the macro returned
    profile_table: str


def plan_profile(wh: Warehouse, source: DataSource, sampling_percent: float | None, max_bytes: int | None) -> Plan:
    raw = wh.macro(
        "profile_plan",
        database=source.database,
        schema=source.schema,
        identifier=source.identifier,
        sampling_percent=sampling_percent,
        max_bytes=max_bytes,
    )
    return Plan(
        bytes=None if raw.get("bytes") is None else int(raw["bytes"]),
        sampling_percent=None if raw.get("sampling_percent") is None else float(raw["sampling_percent"]),
        is_table=bool(raw.get("is_table")),
        how=raw.get("how"),
    )


def profile_source(wh: Warehouse, source: DataSource, plan: Plan) -> Profiled:
    """Profile one data source and record the profile (committed)."""
    relation = wh.relation(source.database, source.schema, source.identifier)
    if not wh.relation_exists(relation):
        raise ProfileError(f"{source.label}: its relation {relation} does not exist; build it first (dbt build)")
    profile_id = uuid.uuid4().hex
    wh.begin()
    try:
        raw = wh.macro(
            "profile_relation",
            database=source.database,
            schema=source.schema,
            identifier=source.identifier,
            data_source=source.unique_id,
            profile_id=profile_id,
            sampling_percent=plan.sampling_percent,
            is_table=plan.is_table,
        )
    except DataplexDqError as exc:  # the warehouse's message may run over lines (and carry the SQL): its first
        raise ProfileError(f"{source.label} ({relation}): profiling failed: {first_line(exc)}") from exc
    wh.commit()
    result = dict(raw["result"])
    fields = tuple(FieldProfile.from_result(f) for f in result["profile"]["fields"])
    profile = TableProfile(profile_id, source.unique_id, "", int(result["row_count"]), plan.sampling_percent, fields)
    return Profiled(source, plan, profile, result, str(raw["profile_table"]))


def profile_all(
    wh: Warehouse,
    sources: Sequence[DataSource],
    *,
    sampling_percent: float | None,
    max_bytes: int | None,
    before: Callable[[DataSource, Plan], None] = lambda s, p: None,
) -> list[Profiled]:
    """Profile each source, calling ``before`` with its plan (the estimate printed) before its scan."""
    out = []
    for source in sources:
        plan = plan_profile(wh, source, sampling_percent, max_bytes)
        before(source, plan)
        out.append(profile_source(wh, source, plan))
    return out


def read_history(wh: Warehouse, sources: Sequence[DataSource], limit: int) -> dict[str, list[TableProfile]]:
    """The last ``limit`` profiles of each source, newest first ({} when nothing was ever profiled)."""
    if not sources:
        return {}
    sql = wh.macro("profile_history_sql", data_sources=[s.unique_id for s in sources], limit=int(limit))
    if not sql:
        return {}
    return profiles_from_rows(wh.query(str(sql)))
