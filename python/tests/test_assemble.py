"""Assembly of DataQualityResult protos from rule outcomes and a ScoreCard."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import json_format
from scorecards import score_rules

from dataplex_dq.proto import DataQualityResult, DataQualityRule
from dataplex_dq.run.assemble import (
    AssembleError,
    build_result,
    build_rule,
    order_outcomes,
    result_from_bytes,
    result_from_json,
    result_to_bytes,
    result_to_json,
    row_count_of,
)
from dataplex_dq.run.incremental import JobWindow
from dataplex_dq.run.metrics import RuleMetrics, RuleStatus
from dataplex_dq.run.outcomes import RuleIdentity, RuleOutcome

SOURCE = "model.shop.orders"
SCAN = "test.shop.dataplex_dq_data_quality_scan_orders.1"
ORDERS_ROWS = 100


def metrics_row(test: str, index: int, spec: dict[str, Any], **values: Any) -> dict[str, Any]:
    """A metrics row as a driver would return it (strings for JSON columns)."""
    rule_type = next(k for k in spec if k.endswith("expectation") or k == "sql_assertion")
    suspended = bool(spec.get("suspended"))
    row: dict[str, Any] = {
        "dq_invocation_id": "inv-42",
        "dq_test_unique_id": test,
        "dq_data_source": SOURCE,
        "rule_index": index,
        "rule_name": spec["name"],
        "rule_type": rule_type,
        "rule_column": spec.get("column"),
        "rule_dimension": spec.get("dimension"),
        "rule_suspended": suspended,
        "row_count": None if suspended else ORDERS_ROWS,
        "rule_spec": json.dumps(spec),
        "evaluated_at": "2024-05-01T12:00:00Z",
    }
    row.update(values)
    row.setdefault("passed", True)
    passed = row["passed"] in (True, "true")  # some drivers return booleans as text
    row.setdefault("rule_status", "SUSPENDED" if suspended else ("PASSED" if passed else "FAILED"))
    return row


def outcome(row: dict[str, Any]) -> RuleOutcome:
    return RuleOutcome.from_metrics(RuleMetrics.from_row(row))


AMOUNT_RANGE = {
    "name": "amount-in-range",
    "description": "Amounts are positive and below 10k",
    "column": "amount",
    "dimension": "VALIDITY",
    "threshold": 0.99,
    "ignore_null": True,
    "range_expectation": {"min_value": "0", "max_value": "10000", "strict_min_enabled": True},
    "debug_queries": [{"description": "max amount", "sql_statement": "SELECT MAX(amount) AS m FROM ${data()}"}],
}
CUSTOMER_NOT_NULL = {
    "name": "customer-not-null",
    "column": "customer_id",
    "dimension": "COMPLETENESS",
    "non_null_expectation": {},
}
STATUS_SET = {
    "name": "status-known",
    "column": "status",
    "dimension": "VALIDITY",
    "set_expectation": {"values": ["new", "paid"]},
}
NO_NEGATIVE = {
    "name": "no-negative-totals",
    "dimension": "TIMELINESS",
    "sql_assertion": {"sql_statement": "SELECT * FROM ${data()} WHERE total < 0"},
}
MEAN_AMOUNT = {
    "name": "mean-amount",
    "column": "amount",
    "dimension": "ACCURACY",
    "statistic_range_expectation": {"statistic": "MEAN", "min_value": "10"},
}
SUSPENDED_RULE = {
    "name": "id-unique",
    "column": "id",
    "dimension": "UNIQUENESS",
    "uniqueness_expectation": {},
    "suspended": True,
}
FAILING_QUERY = "SELECT * FROM orders WHERE status != 'test' AND NOT COALESCE(amount > 0 AND amount <= 10000, FALSE)"


def orders_outcomes() -> list[RuleOutcome]:
    """Declared order: scan test rules 0..3, then the per-rule test; given shuffled."""
    per_rule_test = "test.shop.customer_not_null.2"
    rows = [
        metrics_row(
            per_rule_test,
            0,
            CUSTOMER_NOT_NULL,
            evaluated_count=100,
            passed_count=100,
            null_count=0,
            pass_ratio=1.0,
            passed=True,
            rule_threshold=1.0,
            failing_rows_query="SELECT * FROM orders WHERE customer_id IS NULL",
        ),
        metrics_row(
            SCAN,
            3,
            NO_NEGATIVE,
            assertion_row_count=3,
            passed=False,
        ),
        metrics_row(
            SCAN,
            0,
            AMOUNT_RANGE,
            evaluated_count="97",  # a driver returning text
            passed_count=90,
            null_count=3,
            pass_ratio=0.9278350515463918,
            passed="false",
            rule_threshold=0.99,
            failing_rows_query=FAILING_QUERY,
            rule_attributes=json.dumps({"owner": "finance"}),
        ),
        metrics_row(SCAN, 2, SUSPENDED_RULE, passed=True),
        metrics_row(
            SCAN,
            1,
            MEAN_AMOUNT,
            statistic_value=52.5,
            null_count=3,
            passed=True,
        ),
    ]
    outcomes = [outcome(r) for r in rows]
    errored = RuleOutcome.not_evaluated(
        RuleIdentity.from_rule_spec(STATUS_SET, data_source=SOURCE, test_unique_id="test.shop.status_known.3"),
        RuleStatus.ERROR,
        "Runtime Error in test status_known: syntax error",
    )
    return [*outcomes, errored]


TEST_ORDER = [SCAN, "test.shop.customer_not_null.2", "test.shop.status_known.3"]


def orders_result(**kwargs: Any) -> DataQualityResult:
    outcomes = orders_outcomes()
    return build_result(
        outcomes,
        score_rules(outcomes),
        row_count=row_count_of(outcomes),
        test_order=TEST_ORDER,
        **kwargs,
    )


def test_rules_are_evaluated_rules_in_declaration_order() -> None:
    result = orders_result()
    assert [r.rule.name for r in result.rules] == [
        "amount-in-range",
        "mean-amount",
        "no-negative-totals",
        "customer-not-null",
    ]  # id-unique (suspended) and status-known (error) are left out


def test_row_level_rule_result() -> None:
    amount = orders_result().rules[0]
    assert amount.passed is False
    assert amount.rule.range_expectation.min_value == "0"
    assert amount.rule.range_expectation.max_value == "10000"
    assert amount.rule.range_expectation.strict_min_enabled is True
    assert amount.rule.WhichOneof("rule_type") == "range_expectation"
    assert amount.rule.threshold == 0.99 and amount.rule.ignore_null is True
    assert amount.rule.column == "amount" and amount.rule.dimension == "VALIDITY"
    assert amount.rule.description == "Amounts are positive and below 10k"
    assert amount.rule.debug_queries[0].sql_statement == "SELECT MAX(amount) AS m FROM ${data()}"
    assert (amount.evaluated_count, amount.passed_count, amount.null_count) == (97, 90, 3)
    assert amount.pass_ratio == 0.9278350515463918
    assert amount.failing_rows_query == FAILING_QUERY
    assert amount.assertion_row_count == 0
    assert "attributes" not in DataQualityRule.DESCRIPTOR.fields_by_name


def test_aggregate_rule_results() -> None:
    result = orders_result()
    mean, assertion = result.rules[1], result.rules[2]
    assert mean.passed is True
    assert mean.rule.statistic_range_expectation.statistic == (DataQualityRule.StatisticRangeExpectation.MEAN)
    assert mean.null_count == 3
    assert (mean.evaluated_count, mean.passed_count, mean.pass_ratio) == (0, 0, 0.0)
    assert mean.failing_rows_query == ""
    assert assertion.passed is False and assertion.assertion_row_count == 3
    assert assertion.rule.sql_assertion.sql_statement == "SELECT * FROM ${data()} WHERE total < 0"


def test_scores_dimensions_and_columns() -> None:
    result = orders_result()
    # 2 of 4 evaluated rules passed
    assert result.HasField("score") and result.score == pytest.approx(50.0)
    assert result.passed is False
    assert result.row_count == ORDERS_ROWS
    dims = {d.dimension.name: (d.passed, round(d.score, 2)) for d in result.dimensions}
    assert dims == {
        "ACCURACY": (True, 100.0),
        "COMPLETENESS": (True, 100.0),
        "TIMELINESS": (False, 0.0),
        "VALIDITY": (False, 0.0),
    }
    assert [c.column for c in result.columns] == ["amount", "customer_id"]
    amount = result.columns[0]
    assert amount.HasField("score") and amount.score == pytest.approx(50.0)
    assert amount.passed is False
    assert [(d.dimension.name, d.passed, d.score) for d in amount.dimensions] == [
        ("ACCURACY", True, 100.0),
        ("VALIDITY", False, 0.0),
    ]
    assert all(d.HasField("score") for d in amount.dimensions)
    assert not result.HasField("scanned_data")


def test_float32_scores_print_as_two_decimals_in_json() -> None:
    outcomes = [
        outcome(metrics_row("test.a", 0, dict(CUSTOMER_NOT_NULL, name=f"r{i}"), passed=i < 2)) for i in range(3)
    ]
    card = score_rules(outcomes)
    assert card.score == 66.67  # exact value kept in the ScoreCard
    result = build_result(outcomes, card, row_count=None)
    assert result.score == pytest.approx(66.66999816894531)  # float32 in the proto
    assert result.score != 66.67
    doc = json.loads(result_to_json(result))
    assert doc["score"] == 66.67
    assert doc["dimensions"] == [{"dimension": {"name": "COMPLETENESS"}, "score": 66.67}]
    assert doc["columns"][0]["score"] == 66.67
    assert '"score": 66.67' in result_to_json(result)
    assert "rowCount" not in doc  # row_count None leaves 0, which proto JSON omits
    assert "passed" not in doc  # proto3 JSON omits false ...
    full = json.loads(result_to_json(result, include_defaults=True))
    assert full["passed"] is False and full["rowCount"] == "0"  # ... unless asked
    assert full["dimensions"][0] == {
        "dimension": {"name": "COMPLETENESS"},
        "passed": False,
        "score": 66.67,
    }
    assert result_from_json(result_to_json(result, include_defaults=True)) == result


def test_json_is_camel_case_sorted_and_round_trips() -> None:
    result = orders_result(incremental=JobWindow("updated_at", "2024-04-30T00:00:00Z", "2024-05-01T00:00:00+00:00"))
    text = result_to_json(result)
    doc = json.loads(text)
    assert list(doc) == sorted(doc)
    assert doc["rowCount"] == "100"  # int64 as a JSON string, standard proto JSON
    assert doc["rules"][0]["rule"]["rangeExpectation"] == {
        "maxValue": "10000",
        "minValue": "0",
        "strictMinEnabled": True,
    }
    assert doc["rules"][0]["failingRowsQuery"] == FAILING_QUERY
    assert doc["rules"][0]["evaluatedCount"] == "97"
    assert doc["scannedData"] == {
        "incrementalField": {
            "field": "updated_at",
            "start": "2024-04-30T00:00:00Z",
            "end": "2024-05-01T00:00:00+00:00",
        }
    }
    assert "attributes" not in text and "finance" not in text
    assert text.startswith("{\n  ")
    assert result_from_json(text) == result
    assert json_format.Parse(text, DataQualityResult()) == result
    assert result_to_json(result_from_json(text)) == text  # stable output


def test_binary_round_trip() -> None:
    result = orders_result()
    data = result_to_bytes(result)
    assert result_from_bytes(data) == result
    assert result_to_bytes(result_from_bytes(data)) == data


def test_no_evaluated_rule_leaves_score_unset() -> None:
    outcomes = [
        outcome(metrics_row("test.a", 0, SUSPENDED_RULE)),
        RuleOutcome.not_evaluated(
            RuleIdentity.from_rule_spec(STATUS_SET, data_source=SOURCE, test_unique_id="test.b"),
            RuleStatus.SKIPPED,
            "skipped: upstream failed",
        ),
    ]
    card = score_rules(outcomes)
    result = build_result(outcomes, card, row_count=ORDERS_ROWS)
    assert not result.HasField("score")
    assert result.passed is False and card.has_errors and card.status == "NOT_EVALUATED"  # not a vacuous pass
    assert len(result.rules) == 0 and len(result.dimensions) == 0 and len(result.columns) == 0
    assert "score" not in json.loads(result_to_json(result))
    assert "score" not in json.loads(result_to_json(result, include_defaults=True))


def test_debug_query_results() -> None:
    result = orders_result(
        debug_results={"amount-in-range": [[("m", "FLOAT64", 12000.5), ("seen", "BOOL", True), ("n", "INT64", None)]]}
    )
    sets = result.rules[0].debug_queries_result_sets
    assert len(sets) == 1
    assert [(r.name, r.type, r.value) for r in sets[0].results] == [
        ("m", "FLOAT64", "12000.5"),
        ("seen", "BOOL", "true"),
        ("n", "INT64", ""),
    ]
    assert all(len(r.debug_queries_result_sets) == 0 for r in result.rules[1:])
    with pytest.raises(AssembleError, match="status-known"):
        orders_result(debug_results={"status-known": [[("x", "INT64", 1)]]})


def test_build_rule_drops_attributes_and_rejects_unknown_fields() -> None:
    ok = outcome(metrics_row("test.a", 0, dict(CUSTOMER_NOT_NULL, attributes={"team": "core"})))
    assert build_rule(ok).name == "customer-not-null"
    bad = outcome(metrics_row("test.a", 0, dict(CUSTOMER_NOT_NULL, severity="warn")))
    with pytest.raises(AssembleError, match=r"customer-not-null.*severity"):
        build_rule(bad)


def test_build_rule_without_rule_spec() -> None:
    row = metrics_row("test.a", 0, CUSTOMER_NOT_NULL, rule_spec=None)
    rule = build_rule(outcome(row))
    assert rule.WhichOneof("rule_type") == "non_null_expectation"
    assert (rule.name, rule.column, rule.dimension) == (
        "customer-not-null",
        "customer_id",
        "COMPLETENESS",
    )


def test_scorecard_must_match_the_outcomes() -> None:
    outcomes = orders_outcomes()
    with pytest.raises(AssembleError, match="evaluated rules"):
        build_result(outcomes, score_rules(outcomes[:2]), row_count=None)


def test_order_without_test_order_follows_first_appearance() -> None:
    names = [o.rule_name for o in order_outcomes(orders_outcomes())]
    assert names == [
        "customer-not-null",
        "amount-in-range",
        "mean-amount",
        "id-unique",
        "no-negative-totals",
        "status-known",
    ]


def test_row_count_of() -> None:
    assert row_count_of(orders_outcomes()) == ORDERS_ROWS
    assert row_count_of([]) is None
