"""Pure parts of the scan lifecycle: notification settings, triggers and message text (notify.py),
catalog comment and labels (catalog.py), the extra-export setting (outputs/results_copy.py)."""

from __future__ import annotations

import pytest

from dataplex_dq.outputs.catalog import MARK, bigquery_labels, enabled, label_value, merged_comment, published_line
from dataplex_dq.outputs.notify import (
    FailedRule,
    JobSummary,
    NotificationSpec,
    SmtpSettings,
    compose_email,
    subject_of,
    text_body,
    triggers_fired,
    webhook_payload,
)
from dataplex_dq.outputs.results_copy import extra_export_table


def job(**kw) -> JobSummary:
    base = {
        "data_source": "seed 'orders'",
        "data_source_id": "seed.p.orders",
        "job_id": "j-1",
        "invocation_id": "inv-1",
        "project": "p",
        "target": "dev",
        "score": 50.0,
        "passed": False,
        "dimensions": (("VALIDITY", 0.0, False),),
        "rules_evaluated": 2,
        "rules_passed": 1,
        "rows_scanned": 3,
        "failed_rules": (
            FailedRule("amount-range", "amount", "VALIDITY", "FAILED", 3, 2, 0, None, "select * from t where x"),
        ),
    }
    base.update(kw)
    return JobSummary(**base)


def test_spec_in_both_casings():
    snake = NotificationSpec.from_actions(
        {
            "notification_report": {
                "recipients": {"emails": ["a@x.io"]},
                "score_threshold_trigger": {"score_threshold": 80},
                "job_end_trigger": {},
            }
        }
    )
    camel = NotificationSpec.from_actions(
        {
            "notificationReport": {
                "recipients": {"emails": ["a@x.io"]},
                "scoreThresholdTrigger": {"scoreThreshold": 80},
                "jobEndTrigger": {},
            }
        }
    )
    assert snake == camel == NotificationSpec(("a@x.io",), 80.0, False, True, None)
    assert NotificationSpec.from_actions({"bigquery_export": {"results_table": "t"}}) is None


@pytest.mark.parametrize(
    "report,fragment",
    [
        ({"recipients": {"emails": "a@x.io"}}, "must be a list of email addresses"),
        (
            {"recipients": {"emails": ["a@x.io"]}, "score_threshold_trigger": {"score_threshold": 120}},
            "in [0, 100], got 120",
        ),
        ({"recipients": {}}, "neither recipients.emails nor webhook.url"),
        ({"webhook": {"url": "ftp://x"}}, "webhook.url must be an http(s) URL"),
    ],
)
def test_spec_errors_name_the_field(report, fragment):
    with pytest.raises(ValueError, match=None) as exc:
        NotificationSpec.from_actions({"notification_report": report})
    assert fragment in str(exc.value)


def test_triggers():
    spec = NotificationSpec(("a@x.io",), score_threshold=80.0, job_failure=True, job_end=False)
    assert triggers_fired(spec, job(score=79.99)) == ["score_threshold_trigger"]
    assert triggers_fired(spec, job(score=80.0)) == []  # not below the threshold
    assert triggers_fired(spec, job(score=100.0, incomplete="export failed")) == ["job_failure_trigger"]
    errored = job(score=None, failed_rules=(FailedRule("r", None, None, "ERROR", message="boom\nmore"),))
    assert triggers_fired(spec, errored) == ["job_failure_trigger"]
    assert triggers_fired(NotificationSpec(("a@x.io",), job_end=True), job(score=100.0)) == ["job_end_trigger"]


def test_message_text_and_parts():
    j = job(window=("updated_at", None, "2024-01-05 10:00:00"))
    text = text_body(j, ["score_threshold_trigger"])
    assert text.splitlines() == [
        "Data source: seed 'orders' (seed.p.orders)",
        "Score: 50.00  passed: no  rules passed: 1/2",
        "Rows scanned: 3",
        "Incremental window: (first job) < updated_at <= 2024-01-05 10:00:00",
        "Dimension scores: VALIDITY 0.00",
        "",
        "Failed rules:",
        "- amount-range (column amount, VALIDITY): 2 of 3 rows passed, 0 null",
        "  failing rows: select * from t where x",
        "",
        "Triggered by: score_threshold_trigger",
        "Job j-1, dbt invocation inv-1, project p, target dev",
    ]
    msg = compose_email(j, ["score_threshold_trigger"], "bot@x.io", ["a@x.io", "b@x.io"])
    assert (
        msg["To"] == "a@x.io, b@x.io"
        and msg["Subject"] == subject_of(j) == "[dataplex-dq] seed 'orders': score 50.00 (data quality below 100%)"
    )
    assert [p.get_content_type() for p in msg.iter_parts()] == ["text/plain", "text/html"]
    payload = webhook_payload(j, ["score_threshold_trigger"])
    assert payload["text"].startswith(subject_of(j)) and payload["blocks"][0]["text"]["text"] == subject_of(j)


def test_smtp_settings_from_env():
    with pytest.raises(ValueError, match="DATAPLEX_DQ_SMTP_HOST is not set"):
        SmtpSettings.from_env({})
    s = SmtpSettings.from_env({"DATAPLEX_DQ_SMTP_HOST": "mail", "DATAPLEX_DQ_SMTP_USER": "u@x.io"})
    assert (s.port, s.starttls, s.sender) == (25, False, "u@x.io")
    s = SmtpSettings.from_env({"DATAPLEX_DQ_SMTP_HOST": "mail", "DATAPLEX_DQ_SMTP_PORT": "587"})
    assert s.starttls is True and s.sender == "dataplex-dq@localhost"
    with pytest.raises(ValueError, match="DATAPLEX_DQ_SMTP_STARTTLS must be true or false"):
        SmtpSettings.from_env({"DATAPLEX_DQ_SMTP_HOST": "mail", "DATAPLEX_DQ_SMTP_STARTTLS": "maybe"})


def test_comment_keeps_other_lines_and_replaces_the_marked_one():
    line1 = published_line(66.67, False, "j-1", "2026-01-02 03:04:05")
    assert line1 == f"{MARK} data quality score 66.67, passed false, job j-1, 2026-01-02 03:04:05 UTC"
    first = merged_comment("Orders table.\nOwned by sales.", line1)
    assert first == "Orders table.\nOwned by sales.\n" + line1
    line2 = published_line(100.0, True, "j-2", None)
    assert merged_comment(first, line2) == "Orders table.\nOwned by sales.\n" + line2
    assert merged_comment(None, line2) == line2


def test_bigquery_labels_merge():
    labels = bigquery_labels({"team": "sales", "dataplex-dq-score": "10_00"}, 66.67, False, "7C9E-ab")
    assert labels == {
        "team": "sales",
        "dataplex-dq-score": "66_67",
        "dataplex-dq-passed": "false",
        "dataplex-dq-job": "7c9e-ab",
    }
    assert label_value("x" * 70) == "x" * 63


def test_settings_in_both_casings():
    assert enabled({"catalog_publishing_enabled": True}) and enabled({"catalogPublishingEnabled": True})
    assert not enabled({}) and not enabled({"catalog_publishing_enabled": False})
    assert extra_export_table({"post_scan_actions": {"bigquery_export": {"results_table": "a.b"}}}) == "a.b"
    assert (
        extra_export_table({"postScanActions": {"bigqueryExport": {"resultsTable": "projects/p/datasets/d/tables/t"}}})
        == "projects/p/datasets/d/tables/t"
    )
    assert extra_export_table({}) is None


def test_job_window_is_the_widest_of_the_rules():
    from dataplex_dq.run.incremental import JobWindow, job_window
    from dataplex_dq.run.metrics import RuleMetrics
    from dataplex_dq.run.outcomes import RuleOutcome

    def outcome(start, end, field="updated_at"):
        m = RuleMetrics.from_row(
            {
                "rule_name": "r",
                "rule_type": "non_null_expectation",
                "rule_status": "PASSED",
                "passed": True,
                "incremental_field": field,
                "incremental_start": start,
                "incremental_end": end,
            }
        )
        return RuleOutcome.from_metrics(m, message=None)

    assert job_window([outcome("2024-01-02", "2024-01-05"), outcome("2024-01-01", "2024-01-04")]) == JobWindow(
        "updated_at", "2024-01-01", "2024-01-05"
    )
    assert job_window([outcome(None, "2024-01-05"), outcome("2024-01-01", "2024-01-04")]) == JobWindow(
        "updated_at", None, "2024-01-05"
    )
    assert job_window([outcome(None, None, field=None)]) is None
