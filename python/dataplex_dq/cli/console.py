"""The console side of `report` and `build`: the summary table and lines, and dbt's exit codes."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dataplex_dq.outputs.escape import console_text
from dataplex_dq.outputs.files import result_files_failed
from dataplex_dq.run.anomaly import is_anomaly_check, training_checks
from dataplex_dq.run.cost import QueryCost, format_cost, job_cost

if TYPE_CHECKING:
    from dataplex_dq.run.model import Report, SourceReport
    from dataplex_dq.run.outcomes import RuleOutcome

EXIT_OK, EXIT_RULE_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
WIDE = 10_000  # when stdout is not a terminal (CI logs): no cut at 80 columns


def _console() -> Console:
    """Colours and the terminal's width on a terminal; elsewhere plain text, lines never cut."""
    tty = sys.stdout.isatty()
    return Console(
        stderr=False,
        highlight=False,
        emoji=False,  # ":x:" in a rule name is printed as it is
        width=None if tty else WIDE,
        no_color=not tty or None,
        soft_wrap=not tty,
    )


def _line(label: str, style: str, text: object) -> Text:
    """A styled label, then data printed as it is (no Rich markup read in it)."""
    return Text.assemble((label, style), " ", str(text))


def print_summary(report: Report, console: Console) -> None:
    # every cell and line of data is a Text: names, values, messages and recipients never read as markup
    table = Table(title=console_text(f"Dataplex data quality — dbt invocation {report.invocation_id}"))
    table.add_column("data source")
    table.add_column("score", justify="right")
    table.add_column("row-weighted", justify="right")
    table.add_column("dimensions")
    table.add_column("rules", justify="right")
    table.add_column("failed / errors")
    table.add_column("cost")  # the job's queries (cost.py): bytes billed on BigQuery, execution time everywhere
    for s in sorted(report.sources, key=lambda s: s.data_source.unique_id):
        card = s.card
        score = "not evaluated" if not card.evaluated else ("—" if card.score is None else f"{card.score:.2f}")
        style = "yellow" if not card.evaluated else ("green" if card.passed and not card.has_errors else "red")
        dims = ", ".join(f"{d.name} {d.score:.2f}" for d in card.dimensions) or "—"
        failed = [
            o.rule_name
            + (" (anomaly)" if is_anomaly_check(o) else "")
            + (" (warn)" if report.severity.get(o.test_unique_id or "", "ERROR") == "WARN" else "")
            for o in s.outcomes
            if o.status == "FAILED"
        ]
        training = training_checks(s.outcomes)
        errored = [f"{o.rule_name} ({o.status.lower()})" for o in s.outcomes if o.status in ("ERROR", "SKIPPED")]
        rw = "—" if card.row_weighted_score is None else f"{card.row_weighted_score:.2f}"
        table.add_row(
            console_text(s.data_source.label),
            console_text(score, style),
            rw,
            console_text(dims),
            f"{card.passed_rules}/{card.evaluated_rules}"
            + (f" (+{card.suspended_rules} suspended)" if card.suspended_rules else "")
            + (f" (+{len(training)} training)" if training else ""),
            console_text(_names_cell(failed + errored)),
            _job_cost_text(s),
        )
    console.print(table)
    costliest = costliest_queries(report)
    if costliest:
        console.print(console_text("Costliest queries: " + "; ".join(costliest) + "."))
    if report.export_relation:
        console.print(console_text(f"Read {report.export_rows} recorded rows of {report.export_relation}."))
    for relation, rows in report.tables_written:  # post_scan_actions.bigquery_export
        console.print(console_text(f"Exported {rows} rows to {relation} (bigquery_export)."))
    for style, line in outcome_lines(report):
        console.print(console_text(line, style))
    if report.sources and not result_files_failed(report):  # else the previous files are in place
        console.print(console_text(f"Results written to {report.sources[0].json_path.parent}/ (*.json, *.pb)."))
    for w in report.warnings:
        console.print(_line("warning:", "yellow", w))
    for s in report.sources:
        for o in s.outcomes:
            if o.status in ("ERROR", "SKIPPED"):
                first = " ".join(x.strip() for x in (o.message or "").strip().splitlines()[:3])
                if len(first) > 500:
                    first = first[:499] + "…"
                if o.status == "SKIPPED" and not first:
                    first = (
                        "dbt skipped this test (a model or seed it depends on failed, or --fail-fast stopped the run)"
                    )
                console.print(
                    _line(f"{o.status.lower()}:", "red", f"{s.data_source.label} rule '{o.rule_name}': {first}")
                )
    for s, o in report.failed_rules("WARN"):
        console.print(
            _line("warning:", "yellow", f"{s.data_source.label} rule '{o.rule_name}' failed (severity: warn)")
        )
    for err in report.action_errors:
        console.print(_line("post-scan action failed:", "red", err))
    for err in report.output_errors:
        console.print(_line("output failed:", "red", err))
    console.print(summary_line(report))


SUMMARY_NAMES = 10  # rule names in a data source's "failed / errors" cell; the rest are counted


def _names_cell(names: list[str]) -> str:
    """The failed and errored rules of a data source, at most SUMMARY_NAMES of them by name and the others
    counted: a cell of hundreds of names (1,000 rules on a table) makes the table unreadable, and each
    rule is in the result files, the results table and the HTML report (errors are also printed below)."""
    if not names:
        return "—"
    shown = ", ".join(names[:SUMMARY_NAMES])
    more = len(names) - SUMMARY_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def _job_cost_text(s: SourceReport) -> str:
    if s.job is None:
        return "—"
    spent = job_cost((o.test_unique_id for o in s.outcomes), s.job.test_costs)
    return format_cost(spent.execution_seconds, spent.bytes_billed, spent.slot_ms, spent.queries)


def costliest_queries(report: Report, limit: int = 3) -> list[str]:
    """The most expensive test queries of the run (bytes billed, then execution time), each named by
    data source and rule (a scan: its rule count), when the run had more than one."""
    found: dict[str, tuple[SourceReport, list[RuleOutcome], QueryCost]] = {}
    for s in report.sources:
        for o in s.outcomes:
            cost = s.job.test_costs.get(o.test_unique_id or "") if s.job is not None else None
            if cost is not None and cost.execution_seconds is not None:
                found.setdefault(o.test_unique_id or "", (s, [], cost))[1].append(o)
    if len(found) < 2:
        return []
    ranked = sorted(found.values(), key=lambda x: (x[2].bytes_billed or 0, x[2].execution_seconds or 0), reverse=True)
    out = []
    for s, outcomes, cost in ranked[:limit]:
        what = f"rule '{outcomes[0].rule_name}'" if len(outcomes) == 1 else f"scan of {len(outcomes)} rules"
        out.append(
            f"{s.data_source.label} {what} {format_cost(cost.execution_seconds, cost.bytes_billed, cost.slot_ms)}"
        )
    return out


def summary_line(report: Report) -> str:
    """One line counting the rules by outcome; failures of `severity: warn` tests are warnings."""
    counts = dict.fromkeys(("PASSED", "FAILED", "ERROR", "SKIPPED", "SUSPENDED"), 0)
    for s in report.sources:
        for o in s.outcomes:
            counts[str(o.status)] = counts.get(str(o.status), 0) + 1
    warned = len(report.failed_rules("WARN"))
    return (
        f"Rules: {counts['PASSED']} passed, {counts['FAILED'] - warned} failed, {warned} warned, "
        f"{counts['ERROR']} errored, {counts['SKIPPED']} skipped, {counts['SUSPENDED']} suspended."
    )


def exit_code(report: Report, fail_on_rule_failure: bool, warn_error: bool = False) -> int:
    """dbt's exit codes: 2 when a rule errored or the export failed; 1 when a rule of an error-severity
    test failed (or of a warn-severity one with --warn-error); else 0."""
    if report.has_errors:
        return EXIT_ERROR
    failed = bool(report.failed_rules("ERROR")) or (warn_error and bool(report.failed_rules("WARN")))
    if failed and fail_on_rule_failure:
        return EXIT_RULE_FAILED
    return EXIT_OK


def outcome_lines(report: Report) -> list[tuple[str, str]]:
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
    return lines + list(report.alert_lines)  # outputs/alerts.py
