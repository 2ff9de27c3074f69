"""Anomaly checks in the post-hook (docs/SEMANTICS.md §13): TRAINING is reported, not scored; generated assets."""

from __future__ import annotations

import json
from typing import Any

from scorecards import score_rules

from dataplex_dq.run.anomaly import anomalies, fill_generated_assets, training_checks
from dataplex_dq.run.assemble import build_result
from dataplex_dq.run.metrics import RuleMetrics, RuleStatus
from dataplex_dq.run.outcomes import RuleOutcome

SOURCE = "seed.shop.orders"
TEST = "test.shop.orders-anomalies.1"
TABLES = {
    "result_table": "db.main.dataplex_dq_anomaly_results",
    "volume_intermediate_table": "db.main.dataplex_dq_anomaly_volume",
    "freshness_intermediate_table": "db.main.dataplex_dq_anomaly_freshness",
    "data_intermediate_table": "db.main.dataplex_dq_anomaly_data",
}


def check(index: int, name: str, status: str, spec: dict[str, Any], **attrs: str) -> RuleOutcome:
    row = {
        "dq_invocation_id": "inv-1",
        "dq_test_unique_id": TEST,
        "dq_data_source": SOURCE,
        "rule_index": index,
        "rule_name": name,
        "rule_type": next(k for k in spec if k.endswith("expectation")),
        "rule_column": spec.get("column"),
        "rule_dimension": spec.get("dimension"),
        "rule_suspended": False,
        "rule_status": status,
        "passed": status != "FAILED",
        "rule_spec": json.dumps({"name": name, **spec}),
        "rule_attributes": json.dumps({"anomaly_check": attrs.pop("kind"), **attrs, **TABLES}),
        "statistic_value": float(attrs.get("value") or 0),
        "evaluated_at": "2024-03-16T00:00:00",
    }
    return RuleOutcome.from_metrics(RuleMetrics.from_row(row))


def outcomes() -> list[RuleOutcome]:
    return [
        check(
            0,
            "volume-anomaly",
            "FAILED",
            {
                "dimension": "VOLUME",
                "table_condition_expectation": {"sql_expression": "count(*) >= 17.89 and count(*) <= 27.0"},
            },
            kind="volume",
            value="30",
            anomaly_status="anomalous",
        ),
        check(
            1,
            "freshness-anomaly",
            "PASSED",
            {
                "dimension": "FRESHNESS",
                "column": "created_at",
                "table_condition_expectation": {"sql_expression": "true"},
            },
            kind="freshness",
            value="21600",
            anomaly_status="normal",
        ),
        check(
            2,
            "mean-amount-anomaly",
            "TRAINING",
            {"dimension": "CONSISTENCY", "column": "amount", "statistic_range_expectation": {"statistic": "MEAN"}},
            kind="data",
            value="10",
            anomaly_status="training",
        ),
    ]


def test_training_checks_are_reported_not_scored():
    outs = outcomes()
    assert [o.status for o in outs] == [RuleStatus.FAILED, RuleStatus.PASSED, RuleStatus.TRAINING]
    card = score_rules(outs)
    assert (card.score, card.evaluated_rules, card.failed_rules, card.total_rules) == (50.0, 2, 1, 3)
    assert [d.name for d in card.dimensions] == ["FRESHNESS", "VOLUME"]  # no CONSISTENCY: only a training check has it
    result = build_result(outs, card, row_count=None)
    assert [r.rule.name for r in result.rules] == ["volume-anomaly", "freshness-anomaly"]
    assert [o.rule_name for o in training_checks(outs)] == ["mean-amount-anomaly"]
    assert [o.rule_name for o in anomalies(outs)] == ["volume-anomaly"]


def test_generated_assets_come_from_the_checks():
    outs = outcomes()
    result = build_result(outs, score_rules(outs), row_count=None)
    assert not result.HasField("anomaly_detection_generated_assets")
    fill_generated_assets(result, outs)
    assets = result.anomaly_detection_generated_assets
    assert (
        assets.result_table,
        assets.volume_intermediate_table,
        assets.freshness_intermediate_table,
        assets.data_intermediate_table,
    ) == (
        TABLES["result_table"],
        TABLES["volume_intermediate_table"],
        TABLES["freshness_intermediate_table"],
        TABLES["data_intermediate_table"],
    )


# The TRAINING row the writer records (rule_status TRAINING, rule_passed NULL): integration_tests/tests/test_anomaly.py;
# read back as a TRAINING outcome, out of the scores: test_recorded.py.
