"""A plain-Python reference of the rule semantics and the scores (docs/SEMANTICS.md §5 and §7), sharing no
code with the SQL path (macros/) nor with the post-hook (python/dataplex_dq/): the property-based
tests (test_properties.py) compare what dbt and the post-hook compute with what this module says.

Values are Python values: int, Decimal, float, str, datetime.date, datetime.datetime, or None (SQL
NULL). Expressions of row conditions, table conditions and SQL assertions are small generated ones
that carry both their SQL text and a Python function (see test_properties.py)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

Row = dict[str, Any]
ROW_LEVEL = {
    "range_expectation",
    "non_null_expectation",
    "set_expectation",
    "regex_expectation",
    "uniqueness_expectation",
    "row_condition_expectation",
}
AGGREGATE = {"statistic_range_expectation", "table_condition_expectation", "sql_assertion"}


@dataclass
class Rule:
    name: str
    rule_type: str
    column: str | None = None
    dimension: str | None = None
    threshold: float | None = None
    ignore_null: bool = False
    suspended: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    # row condition: row -> True/False/None; table condition: rows -> True/False/None;
    # SQL assertion: rows -> number of rows the statement returns
    fn: Callable[..., Any] | None = None


@dataclass
class Outcome:
    row_count: int
    null_count: int | None
    evaluated_count: int | None = None
    passed_count: int | None = None
    pass_ratio: float | None = None
    passed: bool = True
    status: str = "PASSED"
    statistic_value: float | None = None
    assertion_row_count: int | None = None


def convert(text: str, kind: str) -> Any:
    """A bound or set value (a string, as in the proto) converted to the column's kind, exactly."""
    if kind == "int":
        return Fraction(Decimal(text))
    if kind == "decimal":
        return Fraction(Decimal(text))
    if kind == "float":
        return float(text)
    if kind == "date":
        return dt.date.fromisoformat(text)
    if kind == "timestamp":
        return dt.datetime.fromisoformat(text)
    return text


def _cmp_value(v: Any, kind: str) -> Any:
    if v is None:
        return None
    if kind in ("int", "decimal"):
        return Fraction(v)
    return v


def in_bounds(v: Any, params: dict[str, Any], kind: str) -> bool:
    x = _cmp_value(v, kind)
    lo, hi = params.get("min_value") or None, params.get("max_value") or None  # "" is unset (proto3)
    if lo is not None:
        b = convert(lo, kind)
        if (x <= b) if params.get("strict_min_enabled") else (x < b):
            return False
    if hi is not None:
        b = convert(hi, kind)
        if (x >= b) if params.get("strict_max_enabled") else (x > b):
            return False
    return True


def text_of(v: Any, kind: str) -> str:
    """A value read as text, as the warehouse casts it (the regex rule reads the column as text)."""
    if kind == "float":
        return repr(v)
    return str(v)


def row_passes(rule: Rule, row: Row, kinds: dict[str, str], counts: dict[Any, int]) -> bool:
    v = row.get(rule.column) if rule.column else None
    t = rule.rule_type
    if t == "row_condition_expectation":
        return rule.fn(row) is True
    if v is None:
        return False
    kind = kinds[rule.column]
    if t == "range_expectation":
        return in_bounds(v, rule.params, kind)
    if t == "non_null_expectation":
        return True
    if t == "set_expectation":
        return any(_cmp_value(v, kind) == convert(x, kind) for x in rule.params["values"])
    if t == "regex_expectation":
        return re.search(rule.params["regex"], text_of(v, kind)) is not None
    if t == "uniqueness_expectation":
        return counts[_cmp_value(v, kind)] == 1
    raise ValueError(t)


def evaluate(rule: Rule, rows: list[Row], kinds: dict[str, str]) -> Outcome:
    """docs/SEMANTICS.md §5 for one rule over the rows in scope (§4)."""
    n = len(rows)
    nulls = sum(1 for r in rows if r.get(rule.column) is None) if rule.column else None
    if rule.suspended:
        return Outcome(row_count=0, null_count=None, status="SUSPENDED")
    t = rule.rule_type
    if t in ROW_LEVEL:
        counts: dict[Any, int] = {}
        if t == "uniqueness_expectation":
            kind = kinds[rule.column]
            for r in rows:
                if r.get(rule.column) is not None:
                    k = _cmp_value(r[rule.column], kind)
                    counts[k] = counts.get(k, 0) + 1
        evaluated = [r for r in rows if not (rule.ignore_null and r.get(rule.column) is None)]
        passed = sum(1 for r in evaluated if row_passes(rule, r, kinds, counts))
        ratio = 1.0 if not evaluated else passed / len(evaluated)
        ok = ratio >= (rule.threshold or 1.0)
        return Outcome(n, nulls, len(evaluated), passed, ratio, ok, "PASSED" if ok else "FAILED")
    if t == "statistic_range_expectation":
        kind = kinds[rule.column]
        values = [r[rule.column] for r in rows if r.get(rule.column) is not None]
        stat: Any = None
        if values:
            s = rule.params["statistic"]
            if s == "MEAN":
                stat = float(sum(Fraction(v) for v in values) / len(values))
            else:
                stat = (min if s == "MIN" else max)(values, key=lambda v: _cmp_value(v, kind))
        bound_kind = "float" if rule.params["statistic"] == "MEAN" else kind
        ok = stat is not None and in_bounds(stat, rule.params, bound_kind)
        shown = None if stat is None or kind in ("date", "timestamp", "text") else float(stat)
        return Outcome(n, nulls, passed=ok, status="PASSED" if ok else "FAILED", statistic_value=shown)
    if t == "table_condition_expectation":
        ok = rule.fn(rows) is True
        return Outcome(n, nulls, passed=ok, status="PASSED" if ok else "FAILED")
    if t == "sql_assertion":
        count = rule.fn(rows)
        ok = count == 0
        return Outcome(n, nulls, passed=ok, status="PASSED" if ok else "FAILED", assertion_row_count=count)
    raise ValueError(t)


def score(passed: int, total: int) -> float | None:
    """docs/SEMANTICS.md §7: 100 x passed / total, rounded to 2 decimals (half up); unset without rules."""
    if total == 0:
        return None
    return float((Decimal(passed) * 100 / Decimal(total)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


@dataclass
class Scores:
    score: float | None
    passed: bool
    dimensions: dict[str, float | None]
    columns: dict[str, float | None]


def scores(rules: list[Rule], outcomes: dict[str, Outcome]) -> Scores:
    """docs/SEMANTICS.md §7 over the evaluated (not suspended) rules of one data source."""
    evaluated = [r for r in rules if not r.suspended]
    ok = {r.name: outcomes[r.name].passed for r in evaluated}

    def group(key: Callable[[Rule], str | None]) -> dict[str, float | None]:
        out: dict[str, list[bool]] = {}
        for r in evaluated:
            k = key(r)
            if k:
                out.setdefault(k, []).append(ok[r.name])
        return {k: score(sum(v), len(v)) for k, v in out.items()}

    # no rule evaluated: not evaluated, so not passed (a vacuous `all` is not a pass)
    return Scores(
        score(sum(ok.values()), len(ok)),
        bool(ok) and all(ok.values()),
        group(lambda r: r.dimension),
        group(lambda r: r.column),
    )
