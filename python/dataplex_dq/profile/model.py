"""A recorded profile, read back: the rows of the profile table (macros/profile/profile.sql, one per field, its
DataProfileResult field as JSON) as one :class:`TableProfile` per profile. Nothing here computes a statistic."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TopValue:
    value: str
    count: int
    ratio: float  # of the rows scanned (DataProfileResult's TopNValue.ratio)


@dataclass(frozen=True)
class FormatShare:
    format: str  # email, uuid, iso_date, url, integer_text
    pattern: str  # the RE2 pattern the share was measured with (macros/profile/profile.sql profile_formats)
    count: int
    ratio: float  # of the non-NULL values


@dataclass(frozen=True)
class FieldProfile:
    """One field of a profile: DataProfileResult.Profile.Field, plus the package's `dataplex_dq` extension."""

    name: str
    type: str
    family: str  # integer, numeric, datetime, text, boolean, other
    null_ratio: float
    non_null_count: int
    distinct_ratio: float | None = None
    distinct_count: int | None = None
    top_values: tuple[TopValue, ...] = ()
    minimum: float | None = None  # integer / double profile; epoch seconds for a datetime
    maximum: float | None = None
    average: float | None = None
    standard_deviation: float | None = None
    quartiles: tuple[float, ...] = ()
    min_text: str | None = None  # a datetime's bounds as the warehouse writes them
    max_text: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    formats: tuple[FormatShare, ...] = ()

    @classmethod
    def from_result(cls, data: Mapping[str, Any]) -> FieldProfile:
        """From the DataProfileResult field the profile macro recorded."""
        info = data.get("profile") or {}
        ext = data.get("dataplex_dq") or {}
        stats = info.get("integer_profile") or info.get("double_profile") or ext.get("datetime_profile") or {}
        strings = info.get("string_profile") or {}
        return cls(
            name=str(data["name"]),
            type=str(data.get("type") or ""),
            family=str(ext.get("family") or "other"),
            null_ratio=float(info.get("null_ratio") or 0.0),
            non_null_count=int(ext.get("non_null_count") or 0),
            distinct_ratio=_float(info.get("distinct_ratio")),
            distinct_count=None if ext.get("distinct_count") is None else int(ext["distinct_count"]),
            top_values=tuple(
                TopValue(str(t["value"]), int(t["count"]), float(t["ratio"])) for t in info.get("top_n_values") or []
            ),
            minimum=_float(stats.get("min")),
            maximum=_float(stats.get("max")),
            average=_float(stats.get("average")),
            standard_deviation=_float(stats.get("standard_deviation")),
            quartiles=tuple(float(q) for q in stats.get("quartiles") or [] if q is not None),
            min_text=stats.get("min_text"),
            max_text=stats.get("max_text"),
            min_length=None if strings.get("min_length") is None else int(strings["min_length"]),
            max_length=None if strings.get("max_length") is None else int(strings["max_length"]),
            formats=tuple(
                FormatShare(str(f["format"]), str(f["pattern"]), int(f["count"]), float(f["ratio"]))
                for f in ext.get("formats") or []
            ),
        )


@dataclass(frozen=True)
class TableProfile:
    """One profile of one data source (a DataProfileResult)."""

    profile_id: str
    data_source: str
    profiled_at: str
    row_count: int
    sampling_percent: float | None
    fields: tuple[FieldProfile, ...] = field(default_factory=tuple)

    def field(self, name: str) -> FieldProfile | None:
        return next((f for f in self.fields if f.name.lower() == name.lower()), None)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def profiles_from_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[TableProfile]]:
    """The history rows (macro profile_history_sql, newest profile first) as {data source: profiles, newest first}."""
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        key = (str(row["data_source"]), str(row["profile_id"]))
        entry = grouped.setdefault(
            key,
            {
                "profiled_at": str(row["profiled_at"]),
                "row_count": int(row["row_count"]),
                "sampling_percent": _float(row.get("sampling_percent")),
                "fields": [],
            },
        )
        entry["fields"].append((int(row["field_index"]), FieldProfile.from_result(json.loads(row["field_profile"]))))
    out: dict[str, list[TableProfile]] = {}
    for (source, pid), e in grouped.items():
        fields = tuple(f for _, f in sorted(e["fields"], key=lambda x: x[0]))
        out.setdefault(source, []).append(
            TableProfile(pid, source, e["profiled_at"], e["row_count"], e["sampling_percent"], fields)
        )
    for profiles in out.values():
        profiles.sort(key=lambda p: (p.profiled_at, p.profile_id), reverse=True)
    return out
