"""The compile-time regex check (macros/regex_check.sql) against a real RE2 (DuckDB's regexp_matches,
RE2 as BigQuery's REGEXP_CONTAINS): a table of patterns on which the two must agree (issue 9, E.2).
The macro is rendered with plain Jinja: it only needs `modules.re`."""

from __future__ import annotations

import duckdb
import pytest

from dataplex_dq.spec.validate import regex_check_macros

PATTERNS = [
    # valid RE2 the old check refused or might refuse
    r"\\1",
    r"\(?=",
    r"[(?!]",
    r"\(?!x\)",
    r"[\\1]",
    r"a\\\\1",
    r"[(?<=]",
    r"\Qa(?=b\E",
    r"\Q(\E",
    r"^[A-Z]{2}-[0-9]{4}$",
    r"^\d{3}-\d{2}-\d{4}$",
    r"(?i)abc",
    r"(?i:abc)",
    r"(?im-s:a.b)",
    r"(?U)a+",
    r"(?P<year>\d{4})",
    r"[[:alpha:]]+",
    r"[[:^digit:]]",
    r"\pL",
    r"\p{Greek}",
    r"\p{^Greek}",
    r"\PN",
    r"[\p{Lu}\d]",
    r"\x41",
    r"\x{1F600}",
    r"[\x00-\x7F]",
    r"\012",
    r"[\012-\015]",
    r"a{1000}",
    r"a{2,1000}",
    r"a{0}",
    r"x{,3}",
    r"a*?",
    r"a+?",
    r"a??",
    r"a{2,3}?",
    r"^*",
    r"\b\B\A\z",
    r"\C",
    r"[]a]",
    r"[^]a]",
    r"[a-]",
    r"[-a]",
    r"[\d-z]",
    r"[a\-z]",
    r"\.\*\+\?\(\)\[\]\{\}\|\^\$",
    r"a|",
    r"|a",
    r"()",
    r"(a)(b)\t\n\r\f\v\a",
    r"^([a-z0-9_\.-]+)@([\da-z\.-]+)\.([a-z\.]{2,6})$",
    r"[\\]",
    r"\{",
    r"a{",
    r"a{1",
    r"{}",
    r"[.]",
    # what RE2 refuses
    r"[z-a]",
    r"a{1001}",
    r"a{3,2}",
    r"\Z",
    r"(?P=foo)",
    r"\p{Foo}",
    r"(?y)a",
    r"\1",
    r"(a)\1",
    r"\8",
    r"a(?=b)",
    r"a(?!b)",
    r"(?<=a)b",
    r"(?<!a)b",
    r"(?>a)",
    r"a**",
    r"a*+",
    r"a++",
    r"a{2}{3}",
    r"a{2}*",
    r"a???",
    r"*a",
    r"(*a)",
    r"a|*",
    r"(?i-)a",
    r"(?-)a",
    r"\e",
    r"\G",
    r"\K",
    r"\R",
    r"\h",
    r"(ab",
    r"ab)",
    r"[a-z",
    r"[[:foo:]]",
    r"\x{110000}",
    r"\xZZ",
    r"[\e]",
    r"[\b]",
    "a\\",
    r"(?P<n!>a)",
    r"(?<n>a)",
    r"(?#comment)",
    r"[\x{110000}]",
    r"\Q",
    r"[]",
    r"[^]",
    r"\p{}",
    r"\pX",
    r"[9-0]",
    r"[\x7A-\x61]",
    "\\é",
    "é+",
    "[é-ü]",
    "[ü-é]",
    r"\Q\E*",
    r"a\Q\E*",
    r"a\Q\E\Q\E+",
]


_CON = duckdb.connect()


def re2_error(pattern: str) -> str | None:
    try:
        _CON.execute("select regexp_matches('x', ?)", [pattern]).fetchall()
        return None
    except duckdb.Error as exc:
        return str(exc)


@pytest.fixture(scope="module")
def check_macros():
    """macros/regex_check.sql of this checkout, read as import-spec reads it (spec/validate.py)."""
    macros = regex_check_macros(None)
    assert macros is not None
    return macros


@pytest.fixture(scope="module")
def regex_problem(check_macros):
    return check_macros.regex_problem


def test_the_table_is_large_and_has_both_kinds():
    errors = [p for p in PATTERNS if re2_error(p)]
    assert len(PATTERNS) >= 40 and len(errors) >= 20 and len(PATTERNS) - len(errors) >= 20


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_check_agrees_with_re2(regex_problem, pattern):
    expected = re2_error(pattern)
    problem = regex_problem(pattern)
    if expected is None:
        assert problem is None, f"{pattern!r} is valid RE2, but the check says: {problem}"
    else:
        assert problem, f"{pattern!r} is refused by RE2 ({expected}), but the check accepts it"


def test_every_unicode_class_name_is_known_to_re2(check_macros):
    names = check_macros.re2_unicode_classes()
    assert len(names) > 150
    assert [n for n in names if re2_error(rf"\p{{{n}}}")] == []


def test_messages_name_the_problem(regex_problem):
    assert "backreference" in regex_problem(r"(a)\1")
    assert "start is after its end" in regex_problem("[z-a]")
    assert "counts up to 1000" in regex_problem("a{1001}")
    assert "use \\z" in regex_problem(r"\Z")
    assert "not a Unicode class" in regex_problem(r"\p{Foo}")
    assert "lookaround" in regex_problem("a(?=b)")
