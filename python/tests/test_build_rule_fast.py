"""build_rule, the one way a rule proto is built (walking the descriptor), gives exactly what
json_format.ParseDict gives, and rejects what ParseDict rejects with a one-line error naming the rule."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from dataplex_dq.proto import DataQualityRule
from dataplex_dq.run.assemble import AssembleError, build_rule
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.outcomes import RuleIdentity, RuleOutcome

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
    {"name": "r10", "rangeExpectation": {"minValue": "0", "strictMaxEnabled": False}, "ignoreNull": True},
]


def _outcome(spec: dict[str, Any]) -> RuleOutcome:
    identity = RuleIdentity.from_rule_spec(spec, data_source="model.p.m", test_unique_id="test.p.t")
    return RuleOutcome.not_evaluated(identity, RuleStatus.ERROR)


@pytest.mark.parametrize("spec", SPECS, ids=[s["name"] for s in SPECS])
def test_build_rule_equals_parse_dict(spec: dict[str, Any]) -> None:
    built = build_rule(_outcome(spec))
    parsed = json_format.ParseDict(spec, DataQualityRule())
    assert built == parsed
    assert built.SerializeToString(deterministic=True) == parsed.SerializeToString(deterministic=True)


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (
            {"name": "c2", "range_expectation": {"min_value": 0}},
            r"c2: .*range_expectation\.min_value: expected a string",
        ),
        ({"name": "c3", "statistic_range_expectation": {"statistic": "MEDIAN"}}, r"c3: .*statistic: expected"),
        ({"name": "c4", "range_expectation": {"min_value": "0"}, "extra": 1}, r"c4: .*no field 'extra'"),
        ({"name": "c5", "set_expectation": {"values": "a"}}, r"c5: .*values: expected a list"),
        ({"name": "c6", "non_null_expectation": {}, "threshold": "x"}, r"c6: .*threshold: expected a number"),
    ],
)
def test_build_rule_rejects_what_parse_dict_rejects(spec: dict[str, Any], error: str) -> None:
    with pytest.raises(json_format.ParseError):
        json_format.ParseDict(spec, DataQualityRule())
    with pytest.raises(AssembleError, match=error):
        build_rule(_outcome(spec))
