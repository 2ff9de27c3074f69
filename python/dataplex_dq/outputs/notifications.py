"""The post-scan action `notification_report` (docs/SEMANTICS.md §11): a data source's email and webhook when a
trigger fires (notify.py sends them), once per job: the outcome is recorded in the job's rows
(`job_notification_result`, by the macro record_notification) and a job whose notification succeeded is not
notified again unless ``--resend``. All the notifications of a run share one deadline (outputs/deadline.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from dataplex_dq.errors import DataplexDqError, OutputError, first_line
from dataplex_dq.field_names import spec_field
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.outputs.deadline import Deadline
from dataplex_dq.outputs.notify import FailedRule, JobSummary, NotificationOutcome, NotificationSpec, notify
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleOutcome

STATISTIC = "statistic_range_expectation"


def _number_text(text: str | None) -> str | None:
    """A statistic as the warehouse wrote it, a number without trailing zeros (PostgreSQL's avg: 2.5000000000000000);
    a date or timestamp as it is."""
    try:
        return format(Decimal(text).normalize(), "f") if text is not None else None
    except (InvalidOperation, ValueError):
        return text


def measured_statistic(o: RuleOutcome) -> tuple[str | None, str | None]:
    """A statistic rule's measured value ("MEAN 12.5") and the range it had to be in (">= 0 and <= 10")."""
    m = o.metrics
    if o.rule_type != STATISTIC or m is None:
        return None, None
    spec = spec_field(o.rule_spec, STATISTIC)
    spec = spec if isinstance(spec, Mapping) else {}
    statistic = str(spec_field(spec, "statistic") or "statistic").upper()
    value = _number_text(m.statistic_value_text)
    if value is None and m.statistic_value is not None:
        value = format(m.statistic_value, ".15g")
    bounds = []
    for bound, strict, ops in (
        ("min_value", "strict_min_enabled", (">=", ">")),
        ("max_value", "strict_max_enabled", ("<=", "<")),
    ):
        limit = spec_field(spec, bound)
        if limit is not None and limit != "":
            bounds.append(f"{ops[bool(spec_field(spec, strict))]} {limit}")
    return f"{statistic} {'NULL' if value is None else value}", " and ".join(bounds) or None


def job_summary(source: SourceReport, report: Report, project: str | None, target: str | None) -> JobSummary:
    """A SourceReport as the notification's JobSummary."""
    card = source.card
    failed = []
    for o in source.outcomes:
        if str(o.status) not in ("FAILED", "ERROR", "SKIPPED"):
            continue
        m = o.metrics
        row_level = m if o.is_row_level else None
        measured, expected = measured_statistic(o)
        failed.append(
            FailedRule(
                name=o.rule_name,
                column=o.column,
                dimension=o.dimension,
                status=str(o.status),
                evaluated=row_level.evaluated_count if row_level else None,
                passed=row_level.passed_count if row_level else None,
                nulls=m.null_count if m is not None else None,
                assertion_rows=m.assertion_row_count if (m is not None and o.rule_type == "sql_assertion") else None,
                failing_rows_query=row_level.failing_rows_query if row_level else None,
                message=o.message,
                measured=measured,
                expected=expected,
            )
        )
    job = source.job
    if job is None:
        raise OutputError(f"{source.data_source.label}: no recorded job to notify of")
    window = (job.incremental_field, job.incremental_start, job.incremental_end) if job.incremental_field else None
    return JobSummary(
        data_source=source.data_source.label,
        data_source_id=source.data_source.unique_id,
        job_id=job.job_id,
        invocation_id=report.invocation_id,
        project=project,
        target=target,
        score=card.score,
        passed=card.passed,
        dimensions=tuple((d.name, d.score, d.passed) for d in card.dimensions),
        rules_evaluated=card.evaluated_rules,
        rules_passed=card.passed_rules,
        rows_scanned=job.rows_scanned,
        failed_rules=tuple(failed),
        window=window,
    )


class Notifications:
    name = "notification_report"

    def write(self, ctx: OutputContext) -> None:
        report = ctx.report
        try:
            deadline = Deadline.from_env(ctx.env)  # one for all the data sources' notifications
        except ValueError as exc:
            raise OutputError(str(exc)) from None
        for s in report.sources:
            try:
                spec = NotificationSpec.from_actions(spec_field(s.data_source.settings, "post_scan_actions"))
            except ValueError as exc:
                s.notification = NotificationOutcome("FAILED", str(exc))
                report.action_errors.append(f"{s.data_source.label}: notification failed: {s.notification.message}")
                continue
            if spec is None or s.job is None:
                continue
            earlier = s.job.notification_result
            if not ctx.resend and isinstance(earlier, dict) and earlier.get("state") == "SUCCEEDED":
                s.notification = _recorded_outcome(earlier)
                report.warnings.append(
                    f"{s.data_source.label}: the notification of this job was already sent; not sent again "
                    "(`dataplex-dq report --resend` sends it again)"
                )
                continue
            s.notification = notify(spec, job_summary(s, report, ctx.project, ctx.target), ctx.env, deadline)
            if s.notification.state == "FAILED":
                report.action_errors.append(f"{s.data_source.label}: notification failed: {s.notification.message}")
            # the outcome into the job's rows of every results table holding them
            for text, relation in report.results_tables.items():
                try:
                    ctx.wh.macro(
                        "record_notification",
                        relation=relation,
                        job_id=s.job.job_id,
                        result_json=json.dumps(s.notification.as_json()),
                    )
                except DataplexDqError as exc:
                    report.action_errors.append(
                        f"the notification outcome could not be written to {text}: {first_line(exc)}"
                    )


def _recorded_outcome(value: Mapping[str, Any]) -> NotificationOutcome:
    return NotificationOutcome(
        str(value.get("state") or "SUCCEEDED"),
        str(value.get("message") or ""),
        [str(t) for t in value.get("triggers") or []],
        [str(e) for e in value.get("emails") or []],
        bool(value.get("webhook")),
    )
