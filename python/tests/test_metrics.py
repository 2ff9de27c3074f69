"""The metrics-row data model: normalization of driver values, status, identity, outcomes."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from dataplex_dq.run.metrics import DebugQuerySql, MetricsRowError, RuleMetrics, RuleStatus
from dataplex_dq.run.outcomes import RuleIdentity, RuleOutcome, rule_status_from_dbt, rule_type_of_spec

SPEC = {
    "name": "amount-in-range",
    "column": "amount",
    "dimension": "VALIDITY",
    "threshold": 0.99,
    "range_expectation": {"min_value": "0", "max_value": "10000"},
}


def full_row() -> dict[str, object]:
    return {
        "dq_invocation_id": "inv-1",
        "dq_test_unique_id": "test.shop.amount_in_range.abc",
        "dq_data_source": "model.shop.orders",
        "rule_index": 0,
        "rule_name": "amount-in-range",
        "rule_type": "range_expectation",
        "rule_column": "amount",
        "rule_dimension": "VALIDITY",
        "rule_threshold": 0.99,
        "rule_ignore_null": False,
        "rule_suspended": False,
        "rule_status": "PASSED",
        "row_count": 100,
        "evaluated_count": 100,
        "passed_count": 99,
        "null_count": 1,
        "pass_ratio": 0.99,
        "passed": True,
        "assertion_row_count": None,
        "statistic_value": None,
        "failing_rows_query": "SELECT * FROM orders WHERE NOT COALESCE(amount >= 0, FALSE)",
        "rule_spec": json.dumps(SPEC),
        "rule_attributes": json.dumps({"owner": "finance"}),
        "debug_queries_sql": json.dumps([{"description": "max", "sql_statement": "SELECT MAX(amount) AS m FROM (x)"}]),
        "scope_row_filter": "status != 'test'",
        "scope_sampling_percent": None,
        "evaluated_at": datetime(2024, 5, 1, 12, 0, tzinfo=UTC),
        "incremental_field": "updated_at",
        "incremental_start": "2024-04-30 00:00:00",
        "incremental_end": "2024-05-01 00:00:00",
        "statistic_value_text": None,
    }


def test_columns_follow_the_contract_order() -> None:
    assert RuleMetrics.columns()[:4] == (
        "dq_invocation_id",
        "dq_test_unique_id",
        "dq_data_source",
        "rule_index",
    )
    assert RuleMetrics.columns()[-5:] == (
        "evaluated_at",
        "incremental_field",
        "incremental_start",
        "incremental_end",
        "statistic_value_text",
    )
    assert len(RuleMetrics.columns()) == 31
    assert tuple(full_row()) == RuleMetrics.columns()


def test_from_row_plain_values() -> None:
    m = RuleMetrics.from_row(full_row(), strict=True)
    assert m.evaluated_count == 100 and m.passed_count == 99 and m.pass_ratio == 0.99
    assert m.status is RuleStatus.PASSED
    assert m.is_row_level
    assert m.rule_spec_dict() == SPEC
    assert m.attributes() == {"owner": "finance"}
    assert m.debug_queries() == (DebugQuerySql(sql_statement="SELECT MAX(amount) AS m FROM (x)", description="max"),)


def test_from_row_normalizes_driver_values() -> None:
    row = {key.upper(): value for key, value in full_row().items()}
    row.update(
        {
            "RULE_INDEX": Decimal("3"),
            "ROW_COUNT": "100",
            "EVALUATED_COUNT": Decimal("100.0"),
            "PASSED_COUNT": 99.0,
            "NULL_COUNT": " 1 ",
            "PASS_RATIO": Decimal("0.99"),
            "RULE_THRESHOLD": "0.99",
            "RULE_IGNORE_NULL": "false",
            "RULE_SUSPENDED": "f",
            "PASSED": "TRUE",
            "SCOPE_SAMPLING_PERCENT": Decimal("20"),
            "RULE_SPEC": SPEC,  # a JSON column the driver already decoded
            "EVALUATED_AT": "2024-05-01 12:00:00 UTC",
            "EXTRA_COLUMN": "ignored",
        }
    )
    m = RuleMetrics.from_row(row)
    assert m.rule_index == 3 and isinstance(m.rule_index, int)
    assert (m.row_count, m.evaluated_count, m.passed_count, m.null_count) == (100, 100, 99, 1)
    assert all(type(v) is int for v in (m.row_count, m.evaluated_count, m.passed_count))
    assert m.pass_ratio == 0.99 and type(m.pass_ratio) is float
    assert m.rule_threshold == 0.99
    assert m.rule_ignore_null is False and m.rule_suspended is False and m.passed is True
    assert m.scope_sampling_percent == 20.0
    assert m.rule_spec_dict() == SPEC
    assert m.evaluated_at == datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01 14:00:00+02", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T12:00:00.123456789", datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)),
        (datetime(2024, 5, 1, 12), datetime(2024, 5, 1, 12, tzinfo=UTC)),  # naive -> UTC
        (date(2024, 5, 1), datetime(2024, 5, 1, tzinfo=UTC)),
    ],
)
def test_timestamps(raw: object, expected: datetime) -> None:
    row = full_row() | {"evaluated_at": raw}
    m = RuleMetrics.from_row(row)
    assert m.evaluated_at == expected
    assert m.evaluated_at is not None and m.evaluated_at.tzinfo is not None


def test_aware_timestamp_keeps_its_offset() -> None:
    tz = timezone(timedelta(hours=2))
    m = RuleMetrics.from_row(full_row() | {"evaluated_at": datetime(2024, 5, 1, 14, tzinfo=tz)})
    assert m.evaluated_at == datetime(2024, 5, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("evaluated_count", Decimal("1.5")),
        ("evaluated_count", "ten"),
        ("evaluated_count", True),
        ("passed", "maybe"),
        ("passed", 2),
        ("evaluated_at", "yesterday"),
        ("rule_type", "freshness_expectation"),  # not a Dataplex rule type
        ("rule_name", None),
        ("rule_status", "ERROR"),
        ("rule_spec", "{not json"),
    ],
)
def test_bad_values_are_errors(column: str, value: object) -> None:
    with pytest.raises(MetricsRowError):
        m = RuleMetrics.from_row(full_row() | {column: value})
        m.rule_spec_dict()


def test_strict_reports_missing_columns() -> None:
    row = full_row()
    del row["statistic_value"]
    assert RuleMetrics.from_row(row).statistic_value is None
    with pytest.raises(MetricsRowError, match="statistic_value"):
        RuleMetrics.from_row(row, strict=True)


def test_status_derivation_and_contradictions() -> None:
    base = full_row()
    assert RuleMetrics.from_row(base | {"rule_status": None, "passed": False}).status == "FAILED"
    suspended = RuleMetrics.from_row(
        base | {"rule_status": None, "rule_suspended": True, "passed": True, "row_count": None}
    )
    assert suspended.status is RuleStatus.SUSPENDED
    with pytest.raises(MetricsRowError, match="passed"):
        RuleMetrics.from_row(base | {"rule_status": "PASSED", "passed": False})
    with pytest.raises(MetricsRowError, match="rule_suspended"):
        RuleMetrics.from_row(base | {"rule_status": "SUSPENDED", "rule_suspended": False})


def test_outcome_from_metrics() -> None:
    outcome = RuleOutcome.from_metrics(RuleMetrics.from_row(full_row()))
    assert outcome.status is RuleStatus.PASSED and outcome.passed is True and outcome.is_evaluated
    assert outcome.rule_name == "amount-in-range"
    assert outcome.rule_type == "range_expectation"
    assert (outcome.column, outcome.dimension) == ("amount", "VALIDITY")
    assert outcome.data_source == "model.shop.orders"
    assert outcome.test_unique_id == "test.shop.amount_in_range.abc"
    assert outcome.rule_spec == SPEC
    assert outcome.attributes == {"owner": "finance"}
    assert outcome.threshold == 0.99
    assert outcome.description is None


def test_outcome_for_an_errored_test_from_its_declaration() -> None:
    spec = {
        "name": "no-negative-totals",
        "sqlAssertion": {"sqlStatement": "SELECT * FROM ${data()} WHERE total < 0"},
        "description": "totals",
        "attributes": {"team": "core"},
    }
    identity = RuleIdentity.from_rule_spec(
        spec, data_source="model.shop.orders", test_unique_id="test.shop.scan.1", rule_index=2
    )
    assert identity.rule_type == "sql_assertion"
    assert identity.column is None and identity.dimension is None
    assert identity.attributes == {"team": "core"}
    assert "attributes" not in identity.rule_spec
    assert identity.description == "totals"
    outcome = RuleOutcome.not_evaluated(identity, "ERROR", "Runtime Error: division by zero")
    assert outcome.status is RuleStatus.ERROR
    assert outcome.metrics is None and outcome.passed is None and not outcome.is_evaluated
    assert outcome.message == "Runtime Error: division by zero"
    assert outcome.threshold is None
    with pytest.raises(MetricsRowError):
        RuleOutcome.not_evaluated(identity, RuleStatus.PASSED)


def test_identity_normalizes_and_validates() -> None:
    identity = RuleIdentity.from_rule_spec(
        {"nonNullExpectation": {}, "column": "id", "dimension": ""},
        data_source="model.a",
        test_unique_id="test.a",
        rule_name="id-not-null",
    )
    assert identity.dimension is None and identity.rule_spec["name"] == "id-not-null"
    with pytest.raises(MetricsRowError, match="no rule type"):
        rule_type_of_spec({"name": "x", "column": "id"})
    with pytest.raises(MetricsRowError, match="several"):
        rule_type_of_spec({"name": "x", "non_null_expectation": {}, "regexExpectation": {}})
    with pytest.raises(MetricsRowError, match="no name"):
        RuleIdentity.from_rule_spec({"non_null_expectation": {}}, data_source=None, test_unique_id=None)


def test_threshold_defaults_from_the_declaration() -> None:
    identity = RuleIdentity.from_rule_spec(
        {"name": "r", "column": "c", "regex_expectation": {"regex": "^a"}, "threshold": 0},
        data_source="model.a",
        test_unique_id="test.a",
    )
    assert RuleOutcome.not_evaluated(identity, RuleStatus.SKIPPED).threshold == 1.0


@pytest.mark.parametrize(
    ("dbt", "expected"),
    [
        ("error", RuleStatus.ERROR),
        ("skipped", RuleStatus.SKIPPED),
        ("pass", None),
        ("fail", None),
        ("warn", None),
    ],
)
def test_rule_status_from_dbt(dbt: str, expected: RuleStatus | None) -> None:
    assert rule_status_from_dbt(dbt) == expected


def test_rule_status_from_dbt_rejects_unknown() -> None:
    with pytest.raises(ValueError):
        rule_status_from_dbt("exploded")
