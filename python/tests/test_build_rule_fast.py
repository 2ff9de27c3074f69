"""The fast rule builder gives exactly what json_format.ParseDict gives, and falls back otherwise."""

from __future__ import annotations

import pytest
from google.protobuf import json_format

from dataplex_dq.assemble import _build_rule_fast
from dataplex_dq.proto import DataQualityRule

SPECS = [
    {
        "name": "r1",
        "column": "amount",
        "dimension": "VALIDITY",
        "threshold": 0.99,
        "ignore_null": True,
        "range_expectation": {"min_value": "0", "max_value": "10", "strict_min_enabled": True},
    },
    {"name": "r2", "column": "c", "non_null_expectation": {}, "threshold": 1},
    {"name": "r3", "column": "s", "set_expectation": {"values": ["a", "O'Brien", "東京"]}, "description": "known"},
    {"name": "r4", "column": "e", "regex_expectation": {"regex": "^[a-z]+\\\\.com$"}},
    {"name": "r5", "column": "u", "uniqueness_expectation": {}, "suspended": True},
    {
        "name": "r6",
        "column": "x",
        "statistic_range_expectation": {
            "statistic": "MEAN",
            "min_value": "1.5",
            "strict_max_enabled": True,
            "max_value": "9",
        },
    },
    {"name": "r7", "row_condition_expectation": {"sql_expression": "a > b"}, "column": "a"},
    {"name": "r8", "table_condition_expectation": {"sql_expression": "count(*) > 0"}},
    {
        "name": "r9",
        "sql_assertion": {"sql_statement": "select * from ${data()} where x < 0"},
        "debug_queries": [{"description": "min", "sql_statement": "select min(x) as m from ${data()}"}],
    },
]


@pytest.mark.parametrize("spec", SPECS, ids=[s["name"] for s in SPECS])
def test_fast_path_equals_parse_dict(spec):
    fast = DataQualityRule()
    assert _build_rule_fast(spec, fast) is True
    slow = json_format.ParseDict(spec, DataQualityRule())
    assert fast == slow
    assert fast.SerializeToString(deterministic=True) == slow.SerializeToString(deterministic=True)


@pytest.mark.parametrize(
    "spec",
    [
        {"name": "c1", "rangeExpectation": {"minValue": "0"}},  # camelCase: ParseDict's job
        {"name": "c2", "range_expectation": {"min_value": 0}},  # wrong type
        {"name": "c3", "statistic_range_expectation": {"statistic": "MEDIAN"}},  # unknown enum
        {"name": "c4", "range_expectation": {"min_value": "0"}, "extra": 1},  # unknown key
    ],
)
def test_fast_path_declines_other_shapes(spec):
    assert _build_rule_fast(spec, DataQualityRule()) is False
