"""Bounds and regexes as the macros write them (issue 30 item 7), rendered with plain Jinja (no dbt):

- grid_bound / bound_comparison (macros/predicates.sql): on a DECIMAL(p, s) or integer column, a bound is
  rounded onto the column's grid toward the comparison's side, and one beyond the range decides alone; the
  literal never has more digits than the column, and the comparison keeps its exact outcome (checked
  against Python's Decimal for every value of a grid sample);
- double_text (macros/cross_db/typed_literal.sql): a double bound beyond a double's range is its nearest
  double (±0, ±inf), every other number its own text;
- postgres_regex (macros/cross_db.sql): the ARE reads a pattern as RE2 does (`.` skips a newline unless
  (?s), `\\xHH` is two hex digits, RE2's (?m) is the ARE's (?w)).
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any

import jinja2
import pytest

MACROS = Path(__file__).resolve().parents[2] / "macros"
FILES = [
    "cross_db.sql",
    "predicates.sql",
    "cross_db/exact_type_range.sql",
    "cross_db/exact_number_literal.sql",
    "cross_db/typed_literal.sql",
    "cross_db/type_int64.sql",
    "cross_db/type_double.sql",
    "cross_db/string_literal_escapes.sql",
]


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


def _return(value: Any) -> None:
    raise _Return(value)


class _Namespace:
    """`dataplex_dq.<macro>` over the rendered files; `adapter.dispatch(name)` picks `<adapter>__name`, else
    `default__name`, as dbt does."""

    def __init__(self, adapter_type: str):
        self.adapter_type = adapter_type
        self.modules: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        for module in self.modules:
            macro = getattr(module, name, None)
            if macro is not None:
                return self._call(macro)
        raise AttributeError(name)

    @staticmethod
    def _call(macro: Any) -> Any:
        def call(*args: Any) -> Any:
            try:
                out = macro(*args)
            except _Return as r:
                return r.value
            return str(out).strip()  # a macro without return() is its rendered text, as in dbt

        return call

    def dispatch(self, name: str, package: str) -> Any:
        for prefix in (f"{self.adapter_type}__", "default__"):
            try:
                return getattr(self, prefix + name)
            except AttributeError:
                continue
        raise AttributeError(name)


def _macros(adapter_type: str) -> _Namespace:
    env = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])
    ns = _Namespace(adapter_type)
    env.globals.update(
        {
            "return": _return,
            "modules": type("M", (), {"re": re})(),
            "dataplex_dq": ns,
            "adapter": type("A", (), {"dispatch": staticmethod(ns.dispatch)})(),
            "target": type("T", (), {"type": adapter_type})(),
        }
    )
    ns.modules = [env.from_string((MACROS / f).read_text()).module for f in FILES]
    return ns


@pytest.fixture(scope="module", params=["duckdb", "postgres", "bigquery"])
def dq(request) -> _Namespace:
    return _macros(request.param)


OPS = {">=": lambda x, b: x >= b, ">": lambda x, b: x > b, "<=": lambda x, b: x <= b, "<": lambda x, b: x < b}
BOUNDS = [
    "-0.499999",
    "-0.4999999999",
    "0.5",
    "-0.5",
    "0.4",
    "1e-400",
    "-1e-400",
    "1e40",
    "-1e40",
    "18446744073709551616",
    "99999999999999999999999999999999999998.000001",
    "-99999999999999999999999999999999999998.5",
    "99999999999999999999999999999999999999.5",
    "100000000000000000000000000000000000000",
    "12.345",
    "-12.345",
    "9999999999.995",
    "0",
]
LITERAL = re.compile(r"^x (>=|>|<=|<) cast\((E?)'(-?[0-9.]+)' as ([a-z0-9(), ]+)\)$")


def _evaluate(sql: str, x: Decimal) -> bool:
    if sql == "false":
        return False
    if sql == "(x is not null)":
        return True
    m = LITERAL.match(sql)
    assert m, sql
    return OPS[m.group(1)](x, Decimal(m.group(3)))


@pytest.mark.parametrize(
    "data_type,p,s", [("decimal(38,0)", 38, 0), ("numeric(12,2)", 12, 2), ("DECIMAL(38,6)", 38, 6)]
)
def test_a_bound_is_rounded_onto_the_grid_and_keeps_its_outcome(dq, data_type, p, s):
    with localcontext() as ctx:
        ctx.prec = 200  # 38 digits and more, exactly
        _check_grid(dq, data_type, p, s)


def _check_grid(dq: _Namespace, data_type: str, p: int, s: int) -> None:
    if dq.adapter_type == "bigquery":
        data_type = {38: "numeric(38,0)" if s == 0 else "bignumeric(38,6)", 12: "numeric(12,2)"}[p]
    top = (Decimal(10) ** p - 1) / Decimal(10) ** s
    ulp = Decimal(1) / Decimal(10) ** s
    sample = {
        top,
        -top,
        top - ulp,
        -top + ulp,
        Decimal(0),
        ulp,
        -ulp,
        Decimal(1),
        Decimal(-1),
        Decimal("12.35"),
        Decimal("-12.34"),
    }
    sample = {v.quantize(ulp) for v in sample if abs(v) <= top}
    for bound, op in itertools.product(BOUNDS, OPS):
        sql = dq.bound_comparison("x", op, bound, data_type)
        m = LITERAL.match(sql)
        if m:  # the literal holds no more digits than the column: comparing never widens it
            digits = m.group(3).lstrip("-")
            whole, _, frac = digits.partition(".")
            assert len(frac) <= s and len(whole.lstrip("0")) <= p - s, (bound, op, sql)
        for x in sample:
            assert _evaluate(sql, x) == OPS[op](x, Decimal(bound)), (bound, op, x, sql)


def test_a_set_value_off_the_grid_matches_nothing(dq):
    assert dq.grid_bound("0.5", "decimal(38,0)" if dq.adapter_type != "bigquery" else "int64", "=") == {
        "outcome": "never"
    }
    assert dq.grid_bound("1e40", "bigint" if dq.adapter_type != "bigquery" else "int64", "=") == {"outcome": "never"}
    kept = dq.grid_bound("-1.000", "integer" if dq.adapter_type != "bigquery" else "int64", "=")
    assert kept == {
        "literal": f"cast({'E' if dq.adapter_type == 'postgres' else ''}'-1' as "
        f"{'int64' if dq.adapter_type == 'bigquery' else 'bigint'})"
    }


def test_postgres_unbounded_numeric_keeps_the_exact_literal():
    dq = _macros("postgres")
    assert dq.grid_bound("-0.499999", "numeric", ">=") is None
    assert dq.bound_comparison("x", ">=", "-0.499999", "numeric") == "x >= cast(E'-0.499999' as numeric)"


@pytest.mark.parametrize(
    "value,text",
    [
        ("1e-324", "0"),
        ("-1e-324", "-0"),
        ("2e-324", "0"),
        ("1e400", "inf"),
        ("-1e309", "-inf"),
        ("1e-320", "1e-320"),
        ("0.1", "0.1"),
        ("1.7976931348623157e308", "1.7976931348623157e308"),
        ("0", "0"),
    ],
)
def test_a_double_bound_is_its_nearest_double(value, text):
    dq = _macros("postgres")
    assert dq.double_text(value) == text
    assert dq.typed_literal(value, "double precision") == f"cast(E'{text}' as double precision)"


@pytest.mark.parametrize(
    "pattern,are",
    [
        (r"^a.b$", r"^a[^\n]b$"),
        (r"\x41b", r"\u0041b"),
        (r"[\x41.]", r"[\u0041.]"),
        (r"(?s)^a.b$", r"(?s)^a.b$"),
        (r"(?m)^a.$", r"(?w)^a[^\n]$"),
        (r"(?ms)^a.$", r"(?w)^a.$"),
        (r"(?i)x\.y", r"(?i)x\.y"),
        (r"\bfoo\b", r"\yfoo\y"),
    ],
)
def test_postgres_reads_the_pattern_as_re2(pattern, are):
    dq = _macros("postgres")
    assert dq.postgres_regex(pattern) == {"pattern": are, "problem": None}
