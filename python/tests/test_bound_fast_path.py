"""The fast path of the typed-bound check (macros/validation.sql, bound_problem, issue 32 item 1): the
common bounds are fine by one match, every other goes through bound_problem_message. The fast path
must never hide a problem: on every value and type below, bound_problem says what bound_problem_message
(the full check) says. The macros are rendered with plain Jinja (they need only `modules.re`)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from dataplex_dq.spec.validate import macros_of


@pytest.fixture(scope="module")
def package() -> Any:
    return macros_of(["validation.sql", "cross_db.sql"], None)


TYPES = ["bigint", "integer", "decimal(12,2)", "numeric", "double", "float64", "date", "timestamp", "datetime",
         "timestamp with time zone", "time", "boolean", "varchar", "json"]  # fmt: skip

VALUES: list[Any] = [
    *["0", "5", "-5", "+5", "007", "1.5", "-0.25", ".5", "5.", "1e3", "1.5e-3", "", " ", "abc", "1,5", "--1", "+-1"],
    *[5, -3, 0, 1.5, 1e20, True, False, "true", "FALSE", "True", "tRUE", "yes", "fal\u017fe"],
    *["2024-01-01", "2024-12-31", "2024-02-28", "2024-02-29", "2023-02-29", "2024-02-30", "2024-04-31", "2024-13-01"],
    *["2024-00-10", "2024-06-00", "2024-1-1", "24-01-01", "2024-01-01x", " 2024-06-30 ", "2024-01-01\n"],
    *["2024-01-01 00:00:00", "2024-01-01T23:59:59", "2024-01-01 24:00:00", "2024-01-01 23:60", "2024-01-01 12:00"],
    *["2024-01-01 12:00:00.123456", "2024-01-01 12:00:00.1234567", "2024-01-01 12:00:00Z", "2024-01-01 12:00:00 UTC"],
    *["2024-01-01 12:00:00+02:00", "2024-01-01 12:00:00-0530", "2024-01-01 12:00:00+2", "2024-01-01 12:00:61"],
    *["12:00", "23:59:59", "24:00", "12:00:00.5", "12:00:00.1234567", "1:00", "99:99"],
]


def test_the_fast_path_never_hides_a_problem(package) -> None:
    for value, data_type in itertools.product(VALUES, TYPES):
        family = package.type_family(data_type)
        full = package.bound_problem_message(value, data_type, family)
        assert package.bound_problem(value, data_type) == full, (value, data_type)


def test_common_bounds_are_fine_and_bad_ones_are_named(package) -> None:
    assert package.bound_problem("2024-12-31", "date") is None
    assert package.bound_problem("2024-01-01 00:00:00", "timestamp") is None
    assert package.bound_problem("10000", "decimal(12,2)") is None
    assert package.bound_problem("2023-02-29", "date") == (
        "'2023-02-29' is not a valid date (month 1-12, a day that month has)"
    )
    assert "has a fractional part" in package.bound_problem("1.5", "integer")
    assert package.bound_problem("2024-02-29", "date") is None
