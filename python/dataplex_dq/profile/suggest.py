"""Rules suggested from profiles (`dataplex-dq suggest`), as pure functions: the profiles of one data source
(newest first) in, Dataplex rules (proto JSON, snake_case) with their evidence out. Each rule holds on every
profile it was learned from: a bound is the observed one (widened by a margin where the data drifts), a
threshold the lowest share observed less its binomial spread, rounded down; a rule on a column whose property
changed between the profiles (a NULL seen, a duplicate, a value outside the set) is not proposed."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from dataplex_dq.profile.model import FieldProfile, TableProfile

#: The order in which a text column's formats are tried: the most specific first.
FORMAT_ORDER = ("uuid", "email", "url", "iso_date", "integer_text")
FORMAT_LABELS = {
    "uuid": "a UUID",
    "email": "an email address",
    "url": "a URL",
    "iso_date": "an ISO date",
    "integer_text": "an integer",
}


@dataclass(frozen=True)
class SuggestOptions:
    max_set_values: int = 10  # a column with at most this many distinct values gets a set rule
    min_rows_per_value: int = 3  # ... when each value repeats at least this often on average
    min_unique_rows: int = 10  # uniqueness is proposed from at least this many non-NULL values
    range_margin: float = 0.5  # bounds widened by this fraction of the observed range (never across 0)
    row_count_floor: float = 0.5  # the row-count rule fails below this fraction of the fewest rows seen
    max_null_ratio: float = 0.5  # a completeness threshold is proposed up to this NULL ratio
    share_sigmas: float = 4.0  # a threshold sits this many binomial standard deviations under the share seen
    range_threshold: float = 0.995  # a range rule tolerates this share of rows outside (a heavy tail's new max)


@dataclass(frozen=True)
class Suggestion:
    data_source: str
    rule: dict[str, Any]  # a DataQualityRule: name, description (the evidence), column, dimension, the type
    evidence: str

    @property
    def name(self) -> str:
        return str(self.rule["name"])

    @property
    def rule_type(self) -> str:
        return next(k for k in self.rule if k.endswith("_expectation") or k == "sql_assertion")

    @property
    def column(self) -> str | None:
        return self.rule.get("column")


def rule_name(*parts: str) -> str:
    """A Dataplex rule name: lower-case letters, digits and hyphens, starting with a letter, at most 63."""
    slug = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")
    if not slug or not slug[0].isalpha():
        slug = f"c-{slug}"
    return slug[:63].rstrip("-")


def _profiles_of(history: Sequence[TableProfile], name: str) -> list[FieldProfile]:
    return [f for p in history if p.row_count > 0 for f in [p.field(name)] if f is not None]


def _n(k: int) -> str:
    return f"{k} profile{'s' if k != 1 else ''}"


def _pct(x: float) -> str:
    return f"{x * 100:.4g}%"


def _floor2(x: float) -> float:
    """A threshold from an observed share: rounded down to 0.01, so the share passes it."""
    return math.floor(x * 100 + 1e-9) / 100


def _number_text(x: float, integer: bool) -> str:
    if integer:
        return str(int(x))
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def _widened(lo: float, hi: float, margin: float, integer: bool) -> tuple[float, float]:
    """Observed bounds widened by ``margin`` x the range (a bound on one side of 0 stays there), rounded
    outward (integers to integers, others to 2 decimals)."""
    pad = (hi - lo) * margin if hi > lo else abs(hi) * margin
    new_lo, new_hi = lo - pad, hi + pad
    if lo >= 0 > new_lo:
        new_lo = 0.0
    if hi <= 0 < new_hi:
        new_hi = 0.0
    if integer:
        return float(math.floor(new_lo)), float(math.ceil(new_hi))
    return math.floor(new_lo * 100) / 100, math.ceil(new_hi * 100) / 100


def suggest_field(
    data_source: str, table_name: str, fields: Sequence[FieldProfile], options: SuggestOptions = SuggestOptions()
) -> list[Suggestion]:
    """The rules for one column of ``table_name`` from its profiles (newest first); the rules are named
    `<table>-<column>-<kind>` (a dbt test's name is unique in the project, a Dataplex rule's in its scan)."""
    if not fields:
        return []
    latest = fields[0]
    col = latest.name
    k = len(fields)
    out: list[Suggestion] = []

    def add(kind: str, rule_type: str, body: dict[str, Any], dimension: str, evidence: str, **extra: Any) -> None:
        rule: dict[str, Any] = {
            "name": rule_name(table_name, col, kind),
            "description": f"Suggested: {evidence}.",
            "column": col,
        }
        rule["dimension"] = dimension
        rule[rule_type] = body
        rule.update(extra)
        out.append(Suggestion(data_source, rule, evidence))

    # completeness
    max_null = max(f.null_ratio for f in fields)
    if all(f.non_null_count > 0 for f in fields) and max_null == 0:
        evidence = f"0 nulls in {_n(k)} ({latest.non_null_count} rows in the latest)"
        add("not-null", "non_null_expectation", {}, "COMPLETENESS", evidence)
    elif all(f.non_null_count > 0 for f in fields) and max_null <= options.max_null_ratio:
        # under the worst share seen by the spread a clean day has (binomial, at the smallest profile's rows)
        rows = min(f.non_null_count / (1 - f.null_ratio) for f in fields)
        spread = options.share_sigmas * math.sqrt(max_null * (1 - max_null) / max(rows, 1.0))
        threshold = _floor2(max(1 - max_null - spread, 0.0))
        if threshold > 0:
            evidence = f"at most {_pct(max_null)} nulls in {_n(k)}"
            add("mostly-not-null", "non_null_expectation", {}, "COMPLETENESS", evidence, threshold=threshold)
    if any(f.non_null_count == 0 for f in fields):
        return out

    # uniqueness
    unique = latest.family in ("integer", "text") and all(
        f.distinct_count is not None and f.distinct_count == f.non_null_count for f in fields
    )
    unique = unique and latest.non_null_count >= options.min_unique_rows
    if unique:
        add(
            "unique",
            "uniqueness_expectation",
            {},
            "UNIQUENESS",
            f"{latest.distinct_count} distinct values in {latest.non_null_count} non-null rows, "
            f"no duplicate in {_n(k)}",
            ignore_null=True,
        )

    # a set of values
    categorical = (
        not unique
        and latest.family in ("text", "boolean", "integer")
        and all(
            f.distinct_count is not None
            and f.distinct_count <= options.max_set_values
            and f.distinct_count * options.min_rows_per_value <= f.non_null_count
            and sum(t.count for t in f.top_values) == f.non_null_count
            for f in fields
        )
    )
    if categorical:
        values = sorted({t.value for f in fields for t in f.top_values})
        covered = sum(t.count for t in latest.top_values)
        add(
            "in-set",
            "set_expectation",
            {"values": values},
            "VALIDITY",
            f"{len(values)} distinct values, 100% of non-null rows in {_n(k)} ({covered} rows in the latest)",
            ignore_null=True,
        )

    # a range of values
    if not unique and not categorical and latest.family in ("integer", "numeric"):
        lows = [f.minimum for f in fields if f.minimum is not None]
        highs = [f.maximum for f in fields if f.maximum is not None]
        if lows and highs:
            integer = latest.family == "integer"
            lo, hi = min(lows), max(highs)
            new_lo, new_hi = _widened(lo, hi, options.range_margin, integer)
            add(
                "in-range",
                "range_expectation",
                {"min_value": _number_text(new_lo, integer), "max_value": _number_text(new_hi, integer)},
                "VALIDITY",
                f"values from {_number_text(lo, integer)} to {_number_text(hi, integer)} in {_n(k)}; bounds widened "
                f"by {_pct(options.range_margin)} of that range",
                ignore_null=True,
                threshold=options.range_threshold,
            )
    if latest.family == "datetime" and all(f.min_text for f in fields):
        earliest = min(str(f.min_text) for f in fields)
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", earliest):
            add(
                "not-before",
                "range_expectation",
                {"min_value": earliest},
                "VALIDITY",
                f"no value before {earliest} in {_n(k)}",
                ignore_null=True,
            )

    # a recognizable format
    if latest.family == "text" and not categorical:
        for fmt in FORMAT_ORDER:
            shares = [next((s for s in f.formats if s.format == fmt), None) for f in fields]
            if all(s is not None and s.count == f.non_null_count for s, f in zip(shares, fields, strict=True)):
                pattern = shares[0].pattern if shares[0] is not None else ""
                add(
                    f"is-{fmt.replace('_', '-')}",
                    "regex_expectation",
                    {"regex": pattern},
                    "VALIDITY",
                    f"100% of non-null values are {FORMAT_LABELS[fmt]} in {_n(k)}",
                    ignore_null=True,
                )
                break
    return out


def suggest_table(
    data_source: str,
    table_name: str,
    history: Sequence[TableProfile],
    *,
    excluded: Collection[str] = (),
    existing: Collection[tuple[str, str | None]] = (),
    existing_names: Collection[str] = (),
    options: SuggestOptions = SuggestOptions(),
) -> list[Suggestion]:
    """The rules for one data source from its profiles (newest first): one per column property that held in
    every profile, and a row-count floor. ``excluded``: columns never to propose a rule on (lower-case);
    ``existing``: (rule type, lower-case column or None) already declared; ``existing_names``: rule names taken."""
    usable = [p for p in history if p.row_count > 0]
    if not usable:
        return []
    latest = usable[0]
    out: list[Suggestion] = []
    for f in latest.fields:
        if f.name.lower() in excluded:
            continue
        out.extend(suggest_field(data_source, table_name, _profiles_of(usable, f.name), options))
    # a sampled profile's rows stand for 100 / sampling_percent as many in the table
    rows = [round(p.row_count * 100 / p.sampling_percent) if p.sampling_percent else p.row_count for p in usable]
    floor = math.floor(min(rows) * options.row_count_floor)
    if floor > 0:
        k = len(usable)
        seen = f"{min(rows)} rows" if min(rows) == max(rows) else f"{min(rows)} to {max(rows)} rows"
        evidence = f"{seen} in {_n(k)}; fails below {_pct(options.row_count_floor)} of the fewest"
        rule = {
            "name": rule_name(table_name, "row-count"),
            "description": f"Suggested: {evidence}.",
            "dimension": "VOLUME",
            "table_condition_expectation": {"sql_expression": f"count(*) >= {floor}"},
        }
        out.append(Suggestion(data_source, rule, evidence))
    taken = set(existing_names)
    kept = []
    for s in out:
        column = s.column.lower() if s.column else None
        if (s.rule_type, column) in existing or s.name in taken:
            continue
        if s.rule_type == "table_condition_expectation" and any(t == s.rule_type for t, _ in existing):
            continue
        taken.add(s.name)
        kept.append(s)
    return kept
