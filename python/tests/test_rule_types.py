"""The rule-type registry: every field of DataQualityRule's rule_type oneof, with its arguments read
from the proto, and the facts the proto does not say as Dataplex documents them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dataplex_dq.rule_types import RULE_TYPE_OF_KEY, RULE_TYPES, is_row_level, rule_type_keys
from dataplex_dq.run.metrics import MetricsRowError
from dataplex_dq.run.outcomes import rule_type_of_spec


def test_the_registry_is_the_oneof_in_proto_order() -> None:
    assert list(RULE_TYPES) == [
        "range_expectation",
        "non_null_expectation",
        "set_expectation",
        "regex_expectation",
        "uniqueness_expectation",
        "statistic_range_expectation",
        "row_condition_expectation",
        "table_condition_expectation",
        "sql_assertion",
        "template_reference",
    ]


def test_arguments_and_their_kinds_come_from_the_descriptor() -> None:
    stat = RULE_TYPES["statistic_range_expectation"]
    assert stat.json_name == "statisticRangeExpectation"
    assert stat.arguments == ("statistic", "min_value", "max_value", "strict_min_enabled", "strict_max_enabled")
    assert dict(stat.argument_kinds) == {
        "statistic": "enum",
        "min_value": "str",
        "max_value": "str",
        "strict_min_enabled": "bool",
        "strict_max_enabled": "bool",
    }
    assert set(stat.enum_values["statistic"]) == {"STATISTIC_UNDEFINED", "MEAN", "MIN", "MAX"}
    assert dict(RULE_TYPES["set_expectation"].argument_kinds) == {"values": "list"}
    assert RULE_TYPES["sql_assertion"].arguments == ("sql_statement",)
    assert RULE_TYPES["uniqueness_expectation"].arguments == ()


def test_facts_the_proto_does_not_say() -> None:
    row_level = {t.name for t in RULE_TYPES.values() if t.row_level}
    assert row_level == {
        "range_expectation",
        "non_null_expectation",
        "set_expectation",
        "regex_expectation",
        "uniqueness_expectation",
        "row_condition_expectation",
    }
    assert {t.name for t in RULE_TYPES.values() if t.takes_ignore_null} == {
        "range_expectation",
        "set_expectation",
        "regex_expectation",
        "uniqueness_expectation",
    }
    assert {t.name for t in RULE_TYPES.values() if not t.needs_column} == {
        "row_condition_expectation",
        "table_condition_expectation",
        "sql_assertion",
        "template_reference",
    }
    template = RULE_TYPES["template_reference"]
    assert template.arguments == ("name", "values", "resolved_sql", "rule_template")
    assert dict(template.argument_kinds) == {
        "name": "str",
        "values": "map",
        "resolved_sql": "str",
        "rule_template": "message",
    }
    assert template.evaluation_type == "Aggregate"
    assert RULE_TYPES["range_expectation"].display_name == "Range Check"
    assert RULE_TYPES["non_null_expectation"].display_name == "Null check"
    assert RULE_TYPES["regex_expectation"].evaluation_type == "Per row"
    assert RULE_TYPES["sql_assertion"].evaluation_type == "Aggregate"
    assert not is_row_level("table_condition_expectation")
    assert not is_row_level("no_such_rule")


def test_rule_type_keys_read_either_casing_in_proto_order() -> None:
    assert RULE_TYPE_OF_KEY["rowConditionExpectation"] == "row_condition_expectation"
    assert rule_type_keys({"name": "x", "sqlAssertion": {}, "range_expectation": {}}) == [
        "range_expectation",
        "sql_assertion",
    ]
    assert rule_type_of_spec({"column": "a", "regexExpectation": {"regex": "x"}}) == "regex_expectation"
    with pytest.raises(MetricsRowError, match=r"rule x: several rule types \(non_null_expectation, set_expectation\)"):
        rule_type_of_spec({"name": "x", "setExpectation": {}, "non_null_expectation": {}})


def test_every_rule_type_validator_is_called_by_name() -> None:
    """macros/validation.sql's validate_rule_params calls each `<rule_type>_validate` of macros/rules/ by name:
    dbt parses a test with only the macros it finds called, and the declaration is validated while dbt parses
    (macros/identity.sql), so a validator looked up by name would silently not run there."""
    macros = Path(__file__).resolve().parents[2] / "macros"
    defined = {
        m.group(1)
        for path in (macros / "rules").glob("*.sql")
        for m in re.finditer(r"{%-?\s*macro\s+(\w+_validate)\s*\(", path.read_text())
    }
    text = (macros / "validation.sql").read_text()
    start = text.index("macro validate_rule_params")
    body = text[start : text.index("endmacro", start)]
    called = set(re.findall(r"dataplex_dq\.(\w+_validate)\(rule\.params, where\)", body))
    assert defined == called
    assert {name.removesuffix("_validate") for name in called} <= set(RULE_TYPES)
    assert ".get(" not in body
