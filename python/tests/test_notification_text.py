"""A failed statistic rule's alert shows its value (issue 30 item 14, last clause): the email's text and HTML and
the webhook message name the statistic, the value measured and the range it had to be in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scorecards import score_rules

from dataplex_dq.outputs.notifications import job_summary
from dataplex_dq.outputs.notify import html_body, text_body, webhook_payload
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.run.jobs import JobContext
from dataplex_dq.run.metrics import RuleMetrics
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleOutcome


def statistic_rule(name: str, expectation: dict[str, Any], value: float | None, text: str | None) -> RuleOutcome:
    spec = {"name": name, "column": "amount", "statistic_range_expectation": expectation}
    return RuleOutcome.from_metrics(
        RuleMetrics.from_row(
            {
                "dq_invocation_id": "inv-1",
                "dq_test_unique_id": f"test.p.{name}",
                "dq_data_source": "model.p.orders",
                "rule_name": name,
                "rule_type": "statistic_range_expectation",
                "rule_column": "amount",
                "rule_status": "FAILED",
                "passed": False,
                "row_count": 4,
                "statistic_value": value,
                "statistic_value_text": text,
                "rule_spec": json.dumps(spec),
            }
        )
    )


def summary_of(*outcomes: RuleOutcome) -> Any:
    ds = DataSource("model.p.orders", "orders", "model", None, "db", "main", "orders")
    source = SourceReport(ds, list(outcomes), score_rules(outcomes), Path("x.json"), Path("x.pb"))
    source.job = JobContext("inv-1", ds.unique_id, "orders", "model", "db", "main", "orders", "duckdb", None, None, 4)
    report = Report("inv-1", sources=[source])
    return job_summary(source, report, None, None)


def test_a_failed_statistic_rule_shows_its_value():
    mean = statistic_rule("amount-mean", {"statistic": "MEAN", "min_value": "0", "max_value": "10"}, 12.5, "12.5")
    newest = statistic_rule(
        "newest-order",
        {"statistic": "MAX", "min_value": "2024-01-01", "strict_min_enabled": True},
        None,
        "2023-12-31",  # a DATE statistic has no numeric value, only its text
    )
    empty = statistic_rule("amount-min", {"statistic": "MIN", "max_value": "5", "strict_max_enabled": True}, None, None)
    job = summary_of(mean, newest, empty)
    text = text_body(job, ["score_threshold_trigger"])
    assert "- amount-mean (column amount): MEAN 12.5, expected >= 0 and <= 10" in text.splitlines()
    assert "- newest-order (column amount): MAX 2023-12-31, expected > 2024-01-01" in text.splitlines()
    assert "- amount-min (column amount): MIN NULL, expected < 5" in text.splitlines()
    assert "aggregate check failed" not in text
    assert "<td>MEAN 12.5, expected &gt;= 0 and &lt;= 10</td>" in html_body(job, [])
    assert "MEAN 12.5, expected &gt;= 0 and &lt;= 10" in webhook_payload(job, [])["blocks"][1]["text"]["text"]


def test_the_value_as_the_warehouse_wrote_it_without_trailing_zeros():
    job = summary_of(statistic_rule("m", {"statistic": "MEAN", "max_value": "2"}, 2.5, "2.5000000000000000"))
    assert job.failed_rules[0].measured == "MEAN 2.5"  # PostgreSQL's avg of integers
    job = summary_of(statistic_rule("m", {"statistic": "MAX", "max_value": "2"}, None, "12345678901234567890"))
    assert job.failed_rules[0].measured == "MAX 12345678901234567890"  # no float rounding


def test_a_numeric_value_without_its_text():
    job = summary_of(statistic_rule("m", {"statistic": "MEAN", "max_value": "1"}, 2.25, None))
    assert job.failed_rules[0].measured == "MEAN 2.25" and job.failed_rules[0].expected == "<= 1"
