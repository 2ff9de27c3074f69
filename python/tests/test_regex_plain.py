"""The fast path of the compile-time regex check (macros/regex_check.sql, re2_plain, issue 32 item 1):
a pattern it accepts skips the full RE2 tokenizer (regex_problem), so every pattern it accepts must be
valid RE2 (DuckDB's regexp_matches, RE2 as BigQuery's REGEXP_CONTAINS) and accepted by regex_problem.
Checked on random token strings (mostly invalid) and on random patterns of the subset's grammar."""

from __future__ import annotations

import random

import pytest
from test_regex_check import PATTERNS, re2_error

from dataplex_dq.spec.validate import regex_check_macros

TOKENS = [
    *"az09AZfF19-._@/ #'\"%&,:;<=>`~!",
    *["\\", "[", "]", "^", "$", "(", ")", "|", "*", "+", "?", "{", "}", "(?:", "(?i)", "{2}", "{3,}", "{2,1}"],
    *["\\d", "\\w", "\\S", "\\.", "\\-", "\\[", "\\]", "\\^", "\\/", "\\b", "\\1", "\\Q", "\\x41", "[:alpha:]"],
    *["a-z", "z-a", "A-Z", "0-9", "9-0", "a-f", "1-9", "é", "[a-z]", "[^@]", "{1000}", "{999}", "{0}", "{,3}"],
]


def _atom(rng: random.Random, depth: int) -> str:
    kind = rng.randrange(6 if depth == 0 else 5)
    if kind == 0:
        return rng.choice("abcXYZ019 @_-/#'\"%&,:;<=>`~!")
    if kind == 1:
        return "."
    if kind == 2:
        return "\\" + rng.choice("dDsSwW.\\+*?()[]{}|^$/-")
    if kind in (3, 4):
        items = [
            rng.choice(["a-z", "A-Z", "0-9", "a-f", "A-F", "1-9", "x", ".", "_", "$", "(", "|", "\\d", "\\]", "\\-"])
            for _ in range(rng.randint(1, 4))
        ]
        return "[" + rng.choice(["", "^"]) + rng.choice(["", "-"]) + "".join(items) + rng.choice(["", "-"]) + "]"
    branches = ["".join(_piece(rng, 1) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
    return "(" + rng.choice(["", "?:"]) + "|".join(branches) + ")"


def _piece(rng: random.Random, depth: int) -> str:
    atom = _atom(rng, depth)
    counts = ["{3}", "{12,}", "{999}", "{0}"] if depth == 0 and not atom.startswith("(") else []
    return atom + rng.choice(["", "", "*", "+", "?", *counts])


def _plain(rng: random.Random) -> str:
    branches = ["".join(_piece(rng, 0) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 2))]
    return rng.choice(["", "^"]) + "|".join(branches) + rng.choice(["", "$"])


@pytest.fixture(scope="module")
def macros():
    macros = regex_check_macros(None)
    assert macros is not None
    return macros


def test_the_anchors_patterns_and_common_ones_are_plain(macros):
    for pattern in [
        "^[^@]+@[^@]+[.][a-z]+$",
        "^(ok|retry|fail)$",
        "^[a-z0-9.]+@example[.]com$",
        r"^\d{3}-\d{2}-\d{4}$",
        r"^[A-Z]{2}-[0-9]{4}$",
        r"^([a-z0-9_\.-]+)@([\da-z\.-]+)\.[a-z\.]{2,}$",
    ]:
        assert macros.re2_plain(pattern) is True, pattern
    for pattern in [
        "[z-a]",
        "a**",
        "a{1000}",
        "a{3,2}",
        "(a",
        "a)",
        r"\1",
        "a(?=b)",
        "",
        "[]",
        "é+",
        r"(?i)a",
        "(a{2})",
        "(ab){2}",
    ]:
        assert macros.re2_plain(pattern) is False, pattern


def test_no_pattern_re2_refuses_is_plain(macros):
    assert [p for p in PATTERNS if re2_error(p) and macros.re2_plain(p)] == []


def test_every_plain_pattern_is_valid_re2_and_passes_the_full_check(macros):
    rng = random.Random(32)
    candidates = ["".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    candidates += [_plain(rng) for _ in range(2000)]
    plain = [p for p in candidates if macros.re2_plain(p)]
    assert len(plain) > 2000  # the grammar's patterns, and some of the random strings
    wrong = [(p, re2_error(p), macros.regex_problem(p)) for p in plain if re2_error(p) or macros.regex_problem(p)]
    assert wrong == []
