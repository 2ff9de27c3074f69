"""The metrics row each rule leaves in the warehouse: the model (:class:`RuleMetrics`) and the
conversion of whatever a driver returns into it.

This module never talks to the warehouse. The package's writer (macros/results/on_run_end.sql) reads the
metrics rows and records them in the results table; run/recorded.py reads a recorded rule back into a
:class:`RuleMetrics` with :meth:`RuleMetrics.from_row`, and a rule's outcome is outcomes.py.

The metrics-row contract (column names, order and meaning) is ``docs/ARCHITECTURE.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from dataplex_dq._compat import UTC, Self, StrEnum, fromisoformat
from dataplex_dq.errors import DataplexDqError
from dataplex_dq.rule_types import RULE_TYPES, is_row_level

__all__ = [
    "EVALUATED_STATUSES",
    "DebugQuerySql",
    "MetricsRowError",
    "RuleMetrics",
    "RuleStatus",
    "blank_to_none",
    "status_of",
]


class MetricsRowError(DataplexDqError, ValueError):
    """A metrics row (or a rule declaration) does not follow the contract."""


class RuleStatus(StrEnum):
    """A rule's status in a job (the ``rule_status`` export column)."""

    PASSED = "PASSED"
    FAILED = "FAILED"
    ERROR = "ERROR"
    SKIPPED = "SKIPPED"
    SUSPENDED = "SUSPENDED"
    TRAINING = "TRAINING"  # an anomaly check still learning its history (docs/SEMANTICS.md §13): reported, not scored


EVALUATED_STATUSES: frozenset[RuleStatus] = frozenset({RuleStatus.PASSED, RuleStatus.FAILED})
"""The statuses that count in scores and in ``DataQualityResult.rules``."""

_STATUS_OF_TEXT: dict[str, RuleStatus] = {s.value: s for s in RuleStatus}


def status_of(text: str) -> RuleStatus:
    """``RuleStatus(text)`` through a dict (an Enum call is ~2.5 µs: 40,000 of them in a 10,000-rule report);
    ValueError for an unknown status, as the Enum call."""
    return _STATUS_OF_TEXT.get(text) or RuleStatus(text)


# --------------------------------------------------------------------------- value normalization


class _RowLike(Protocol):
    def items(self) -> Any: ...


_TRUE_STRINGS = frozenset({"true", "t", "1", "yes", "y"})
_FALSE_STRINGS = frozenset({"false", "f", "0", "no", "n"})


def _as_str(value: Any, column: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8")
    if isinstance(value, dict | list):
        # a JSON column (e.g. rule_spec on a warehouse with a JSON type) decoded by the driver
        return json.dumps(value, sort_keys=False, separators=(",", ":"))
    return str(value)


def _as_int(value: Any, column: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise MetricsRowError(f"column {column}: expected an integer, got a boolean {value!r}")
    if isinstance(value, int):
        return value
    try:
        return operator.index(value)  # numpy / other integral types
    except TypeError:
        pass
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise MetricsRowError(f"column {column}: not an integer: {value!r}") from None
    if isinstance(value, float | Decimal):
        if isinstance(value, float) and not math.isfinite(value):
            raise MetricsRowError(f"column {column}: not an integer: {value!r}")
        if isinstance(value, Decimal) and not value.is_finite():
            raise MetricsRowError(f"column {column}: not an integer: {value!r}")
        if value != int(value):
            raise MetricsRowError(f"column {column}: not an integer: {value!r}")
        return int(value)
    raise MetricsRowError(f"column {column}: expected an integer, got {type(value).__name__}")


def _as_float(value: Any, column: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise MetricsRowError(f"column {column}: expected a number, got a boolean {value!r}")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            raise MetricsRowError(f"column {column}: not a number: {value!r}") from None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise MetricsRowError(f"column {column}: expected a number, got {type(value).__name__}") from None


def _as_bool(value: Any, column: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if not text:
            return None
        if text in _TRUE_STRINGS:
            return True
        if text in _FALSE_STRINGS:
            return False
        raise MetricsRowError(f"column {column}: not a boolean: {value!r}")
    if isinstance(value, int | Decimal) and value in (0, 1):
        return bool(value)
    try:
        number = operator.index(value)  # numpy.bool_ / numpy ints
    except TypeError:
        number = None
    if number in (0, 1):
        return bool(number)
    raise MetricsRowError(f"column {column}: expected a boolean, got {value!r}")


def _as_datetime(value: Any, column: str) -> datetime | None:
    """datetime (naive values are taken as UTC), ``date`` (midnight UTC) or an ISO 8601 string."""
    if value is None:
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if text.endswith(" UTC"):  # BigQuery's text form
            text = text[: -len(" UTC")] + "+00:00"
        try:
            parsed = fromisoformat(text)
        except ValueError:
            raise MetricsRowError(f"column {column}: not an ISO timestamp: {value!r}") from None
    else:
        raise MetricsRowError(f"column {column}: expected a timestamp, got {type(value).__name__}")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


_CONVERTERS = {
    "str": _as_str,
    "int": _as_int,
    "float": _as_float,
    "bool": _as_bool,
    "datetime": _as_datetime,
}


def _json_value(text: str | None, what: str) -> Any:
    if text is None or not text.strip():
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MetricsRowError(f"{what} is not valid JSON: {exc}") from None


def blank_to_none(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


# --------------------------------------------------------------------------- the metrics row


@dataclass(frozen=True)
class DebugQuerySql:
    """One debug query of a rule, ``${data()}`` already expanded (ready to run)."""

    sql_statement: str
    description: str | None = None


@dataclass(frozen=True)
class RuleMetrics:
    """One metrics row: the columns of the contract in ``docs/ARCHITECTURE.md``, in that order.

    Build it with :meth:`from_row`; the field types are normalized whatever the driver returned.
    Timestamps are timezone-aware (naive values are taken as UTC).
    """

    dq_invocation_id: str | None = None
    dq_test_unique_id: str | None = None
    dq_data_source: str | None = None
    rule_index: int | None = None
    rule_name: str | None = None
    rule_type: str | None = None
    rule_column: str | None = None
    rule_dimension: str | None = None
    rule_threshold: float | None = None
    rule_ignore_null: bool | None = None
    rule_suspended: bool | None = None
    rule_status: str | None = None
    row_count: int | None = None
    evaluated_count: int | None = None
    passed_count: int | None = None
    null_count: int | None = None
    pass_ratio: float | None = None
    passed: bool | None = None
    assertion_row_count: int | None = None
    statistic_value: float | None = None
    failing_rows_query: str | None = None
    rule_spec: str | None = None
    rule_attributes: str | None = None
    debug_queries_sql: str | None = None
    scope_row_filter: str | None = None
    scope_sampling_percent: float | None = None
    evaluated_at: datetime | None = None
    # incremental scans (macros/incremental.sql): the window as text; NULL without incremental_field
    incremental_field: str | None = None
    incremental_start: str | None = None
    incremental_end: str | None = None
    statistic_value_text: str | None = None

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The contract's column names, in order (what the fetching SQL should select)."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_row(cls, row: Mapping[str, Any] | _RowLike, *, strict: bool = False, lower_case: bool = False) -> Self:
        """Build from one row as any DB driver returns it (a dict, an ``agate.Row``, ...).

        Column names are matched case-insensitively; columns outside the contract are ignored;
        missing columns are ``None`` unless ``strict`` (then a :class:`MetricsRowError` names them).
        Integers may come as ``Decimal``/``float``/``str``, booleans as ``'true'``/``'false'``/0/1,
        timestamps as ``datetime`` or ISO strings, JSON columns as already-decoded dicts/lists.
        ``rule_name`` and ``rule_type`` are required, and ``rule_type`` must be a known oneof field.
        """
        if not hasattr(row, "items"):
            raise TypeError(f"expected a mapping, got {type(row).__name__}")
        # ``lower_case``: the caller's dict already has lower-case names (run/recorded.py builds it so)
        values = row if lower_case and isinstance(row, dict) else {str(k).lower(): v for k, v in row.items()}
        if strict:
            missing = [name for name in cls.columns() if name not in values]
            if missing:
                raise MetricsRowError(f"metrics row lacks column(s): {', '.join(missing)}")
        # a value already of its field's exact type is kept as it is (what its converter would return)
        kwargs = {
            name: value if (value := values.get(name)) is None or type(value) is exact else convert(value, name)
            for name, exact, convert in _row_converters(RuleMetrics)
        }
        metrics = cls(**kwargs)
        metrics._validate()
        return metrics

    def _validate(self) -> None:
        where = f"metrics row of {self.dq_test_unique_id or 'an unknown test'}"
        if not self.rule_name:
            raise MetricsRowError(f"{where}: rule_name is NULL")
        if self.rule_type not in RULE_TYPES:
            raise MetricsRowError(f"{where}, rule {self.rule_name}: unknown rule_type {self.rule_type!r}")
        if self.rule_status is not None and self.rule_status.upper() not in {
            RuleStatus.PASSED,
            RuleStatus.FAILED,
            RuleStatus.SUSPENDED,
            RuleStatus.TRAINING,
        }:
            raise MetricsRowError(
                f"{where}, rule {self.rule_name}: rule_status {self.rule_status!r} is not "
                "PASSED, FAILED, SUSPENDED or TRAINING"
            )
        _ = self.status  # raises when rule_status, rule_suspended and passed contradict

    # -- derived values -----------------------------------------------------------------------

    @property
    def is_row_level(self) -> bool:
        return is_row_level(self.rule_type or "")

    @property
    def status(self) -> RuleStatus:
        """PASSED, FAILED or SUSPENDED: ``rule_status``, else from ``rule_suspended``/``passed``.

        Raises :class:`MetricsRowError` when the row contradicts itself.
        """
        suspended = bool(self.rule_suspended)
        if self.rule_status is not None:
            status = status_of(self.rule_status.upper())
            if (status is RuleStatus.SUSPENDED) != suspended and self.rule_suspended is not None:
                raise MetricsRowError(
                    f"rule {self.rule_name}: rule_status {status} but rule_suspended {self.rule_suspended}"
                )
        elif suspended:
            status = RuleStatus.SUSPENDED
        elif self.passed is None:
            raise MetricsRowError(f"rule {self.rule_name}: both rule_status and passed are NULL")
        else:
            status = RuleStatus.PASSED if self.passed else RuleStatus.FAILED
        if status in EVALUATED_STATUSES and self.passed is not None and self.passed != (status is RuleStatus.PASSED):
            raise MetricsRowError(f"rule {self.rule_name}: rule_status {status} but passed {self.passed}")
        return status

    def rule_spec_dict(self) -> dict[str, Any]:
        """``rule_spec`` parsed (a ``DataQualityRule`` in snake_case proto JSON); ``{}`` if NULL."""
        spec = _json_value(self.rule_spec, f"rule_spec of rule {self.rule_name}")
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            raise MetricsRowError(f"rule_spec of rule {self.rule_name} is not a JSON object")
        return spec

    def attributes(self) -> dict[str, str]:
        """``rule_attributes`` parsed (string map); ``{}`` when NULL."""
        attrs = _json_value(self.rule_attributes, f"rule_attributes of rule {self.rule_name}")
        if attrs is None:
            return {}
        if not isinstance(attrs, dict):
            raise MetricsRowError(f"rule_attributes of rule {self.rule_name} is not a JSON object")
        return {str(k): "" if v is None else str(v) for k, v in attrs.items()}

    def debug_queries(self) -> tuple[DebugQuerySql, ...]:
        """``debug_queries_sql`` parsed: the rule's debug queries, ready to run."""
        what = f"debug_queries_sql of rule {self.rule_name}"
        queries = _json_value(self.debug_queries_sql, what)
        if queries is None:
            return ()
        if not isinstance(queries, list):
            raise MetricsRowError(f"{what} is not a JSON array")
        out: list[DebugQuerySql] = []
        for item in queries:
            if not isinstance(item, dict):
                raise MetricsRowError(f"{what}: an entry is not an object")
            sql = item.get("sql_statement", item.get("sqlStatement"))
            if not isinstance(sql, str) or not sql.strip():
                raise MetricsRowError(f"{what}: an entry has no sql_statement")
            out.append(DebugQuerySql(sql_statement=sql, description=item.get("description")))
        return tuple(out)


# per kind, the type whose values its converter returns unchanged (not datetime: a naive one gets UTC)
_KEPT_AS_IS: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}


@functools.cache
def _row_converters(cls: type) -> tuple[tuple[str, type | None, Any], ...]:
    """(field name, the exact type kept as it is, converter) per field of a row dataclass, once per class."""
    return tuple(
        (f.name, _KEPT_AS_IS.get(kind), _CONVERTERS[kind])
        for f in dataclasses.fields(cls)
        for kind in (_field_kind(f.type),)
    )


def _field_kind(annotation: Any) -> str:
    """'str' / 'int' / ... from a ``X | None`` annotation (a string under postponed evaluation)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return text.split("|")[0].strip()
