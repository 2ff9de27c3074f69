"""Post-scan actions (docs/SEMANTICS.md §11, §14), run by the report on the recorded rows (the package's writer
recorded them in the results table before):

1. ``bigquery_export.results_table``: the data source's rows are copied to that table as well (a macro:
   macros/results/results_table.sql, copy_results);
2. catalog publishing (``catalog_publishing_enabled``, catalog.py);
3. ``notification_report`` (notify.py): email and webhook when a trigger fires, once per job: a job whose
   recorded notification succeeded is not notified again unless ``--resend``;
4. the notification outcome is kept in the results table (extension column ``job_notification_result``, set by
   the macro record_notification) and every outcome lands in the ``DataQualityResult`` where the proto has a
   field: ``post_scan_actions_result.bigquery_export_result`` and ``catalog_publishing_status``.

No action can lose results: the rows were recorded before, each action's failure is caught, printed, and
makes the report exit 2."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.outputs.catalog import CatalogOutcome, enabled, publish
from dataplex_dq.outputs.notify import FailedRule, JobSummary, NotificationOutcome, NotificationSpec, notify


@dataclass(frozen=True)
class ExportOutcome:
    state: str  # SUCCEEDED, FAILED, SKIPPED
    message: str


def _get(mapping: Any, key: str, camel: str) -> Any:
    if not isinstance(mapping, Mapping):
        return None
    value = mapping.get(key)
    return value if value is not None else mapping.get(camel)


def extra_export_table(settings: Mapping[str, Any]) -> str | None:
    """``post_scan_actions.bigquery_export.results_table`` (either casing), or None."""
    actions = _get(settings, "post_scan_actions", "postScanActions")
    export = _get(actions, "bigquery_export", "bigqueryExport")
    table = _get(export, "results_table", "resultsTable")
    return str(table) if table else None


def job_summary(source: Any, report: Any, project: str | None, target: str | None) -> JobSummary:
    """A SourceReport (report.py) as the notification's JobSummary."""
    card = source.card
    failed = []
    for o in source.outcomes:
        if str(o.status) not in ("FAILED", "ERROR", "SKIPPED"):
            continue
        m = o.metrics
        row_level = o.is_row_level and m is not None
        failed.append(
            FailedRule(
                name=o.rule_name,
                column=o.column,
                dimension=o.dimension,
                status=str(o.status),
                evaluated=m.evaluated_count if row_level else None,
                passed=m.passed_count if row_level else None,
                nulls=m.null_count if m is not None else None,
                assertion_rows=m.assertion_row_count if (m is not None and o.rule_type == "sql_assertion") else None,
                failing_rows_query=m.failing_rows_query if row_level else None,
                message=o.message,
            )
        )
    job = source.job
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
        incomplete=report.export_error,
        window=window,
    )


def run_post_scan_actions(
    wh: Any,
    report: Any,
    *,
    export: bool,
    relation_of: Any,
    project: str | None,
    target: str | None,
    env: Mapping[str, str] | None = None,
    resend: bool = False,
) -> None:
    """Run every data source's post-scan actions; fill the SourceReports' outcomes and ``report.action_errors``.
    Each action's failure is reported and never stops the others."""
    env = os.environ if env is None else env
    written: dict[str, Any] = {}  # relation text -> relation, of every results table holding the jobs' rows
    if report.default_relation is not None:
        written[str(report.default_relation)] = report.default_relation
    job_ids = {id(s): s.job.job_id for s in report.sources if s.job is not None}

    # 1. a copy of the rows to another results table (post_scan_actions.bigquery_export.results_table)
    by_table: dict[str, list[Any]] = defaultdict(list)
    for s in report.sources:
        table = extra_export_table(s.data_source.settings)
        if table is None:
            s.export_result = ExportOutcome("SKIPPED", "no post_scan_actions.bigquery_export.results_table is set")
        elif not export:
            s.export_result = ExportOutcome("SKIPPED", f"export to {table} disabled (--no-export)")
        else:
            by_table[table].append(s)
    for table, sources in by_table.items():
        ids = sorted(job_ids[id(s)] for s in sources if id(s) in job_ids)
        try:
            relation = relation_of(table)
            wh.macro("copy_results", source=report.default_relation, target=relation, job_ids=ids)
        except DataplexDqError as exc:
            reason = first_line(exc)
            for s in sources:
                s.export_result = ExportOutcome("FAILED", reason)
            report.action_errors.append(f"bigquery_export to {table} failed: {reason}")
            continue
        name = str(relation)
        count = sum(len(s.outcomes) for s in sources)
        report.tables_written.append((name, count))
        written[name] = relation
        for s in sources:
            s.export_result = ExportOutcome("SUCCEEDED", f"exported {len(s.outcomes)} rows to {name}")

    # 2. catalog publishing
    for s in report.sources:
        if not enabled(s.data_source.settings):
            continue
        if not (s.data_source.database or s.data_source.schema) or not s.data_source.identifier:
            s.catalog = CatalogOutcome("SKIPPED", f"{s.data_source.label} has no relation")
            continue
        try:
            relation = wh.relation(s.data_source.database, s.data_source.schema, s.data_source.identifier)
            when = s.job.end_time.strftime("%Y-%m-%d %H:%M:%S") if s.job.end_time else None
            s.catalog = publish(wh, relation, score=s.card.score, passed=s.card.passed, job_id=s.job.job_id, when=when)
        except DataplexDqError as exc:
            s.catalog = CatalogOutcome("FAILED", first_line(exc))
        if s.catalog.state == "FAILED":
            report.action_errors.append(f"{s.data_source.label}: catalog publishing failed: {s.catalog.message}")

    # 3. notifications: sent once per job (the outcome recorded in job_notification_result), again with --resend
    for s in report.sources:
        try:
            spec = NotificationSpec.from_actions(_get(s.data_source.settings, "post_scan_actions", "postScanActions"))
        except ValueError as exc:
            s.notification = NotificationOutcome("FAILED", str(exc))
            report.action_errors.append(f"{s.data_source.label}: notification failed: {s.notification.message}")
            continue
        if spec is None:
            continue
        earlier = s.job.notification_result if s.job is not None else None
        if not resend and isinstance(earlier, dict) and earlier.get("state") == "SUCCEEDED":
            s.notification = _recorded_outcome(earlier)
            report.warnings.append(
                f"{s.data_source.label}: the notification of this job was already sent; not sent again "
                "(`dataplex-dq report --resend` sends it again)"
            )
            continue
        s.notification = notify(spec, job_summary(s, report, project, target), env)
        if s.notification.state == "FAILED":
            report.action_errors.append(f"{s.data_source.label}: notification failed: {s.notification.message}")
        # 4. the outcome into the job's rows of every results table holding them
        for text, relation in written.items():
            try:
                wh.macro(
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


def outcome_lines(report: Any) -> list[tuple[str, str]]:
    """(style, text) lines for the summary: tables written, and every action that ran."""
    lines = []
    for s in report.sources:
        label = s.data_source.label
        n = getattr(s, "notification", None)
        if n is not None:
            lines.append(
                (
                    "red" if n.state == "FAILED" else "green" if n.state == "SUCCEEDED" else "dim",
                    f"{label}: notification {n.state.lower()}: {n.message}",
                )
            )
        c = getattr(s, "catalog", None)
        if c is not None:
            lines.append(
                (
                    "red" if c.state == "FAILED" else "green" if c.state == "SUCCEEDED" else "yellow",
                    f"{label}: catalog publishing {c.state.lower()}: {c.message}",
                )
            )
    return lines
