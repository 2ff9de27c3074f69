"""`Alerts`: rule alerts to the channels of `dataplex_dq_alert_routes`, mentioning the rules' owners, once
(docs/SEMANTICS.md §11, "Alerts: owners, routes, once").

Per rule whose route matches (tags, severity, data source): decide from its state in the warehouse
(outputs/alert_state.py) whether a new failure, a repeat or a recovery is sent; per route one message of the
rules to send, in the route's format (outputs/alert_formats/), with up to N failing rows of each failing
row-level rule (outputs/html_data.py fetch_samples, only when a failure is sent); post it (outputs/webhook.py,
within the actions' deadline); append the new state of each rule whose alert went out to the warehouse table
(macros/alerts/alert_state.sql). Why each rule was or was not alerted is printed on the console and written to
`target/dataplex_dq/alerts.json`."""

from __future__ import annotations

import http.client
import json
import smtplib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from dataplex_dq._compat import UTC
from dataplex_dq.errors import DataplexDqError, OutputError, first_line
from dataplex_dq.outputs import webhook
from dataplex_dq.outputs.alert_formats import RECOVERED, Alert, AlertFormat, AlertItem, AlertSample, email_alert
from dataplex_dq.outputs.alert_formats.json_alert import JsonAlert
from dataplex_dq.outputs.alert_formats.slack import SlackAlert
from dataplex_dq.outputs.alert_formats.teams import TeamsAlert
from dataplex_dq.outputs.alert_state import Decision, Previous, alert_key, decide, iso, state_of
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.outputs.deadline import Deadline, DeadlinePassed
from dataplex_dq.outputs.files import write_atomic
from dataplex_dq.outputs.notifications import measured_statistic
from dataplex_dq.outputs.notify import SmtpSettings, send_email
from dataplex_dq.outputs.owners import AlertRoute, AlertSettings, parse_interval, rule_alert_setting, rule_owners
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleOutcome

RESULT_FILE = "alerts.json"  # in target/dataplex_dq/


def formats() -> dict[str, AlertFormat]:
    """Every format by its name in a route's `format` (outputs/owners.py FORMATS)."""
    return {f.name: f for f in (SlackAlert(), TeamsAlert(), JsonAlert())}


def rule_summary(o: RuleOutcome) -> str:
    """What failed, on one line: counts of a row-level rule, an assertion's rows, a statistic and its range."""
    status = str(o.status)
    if status != "FAILED":
        first = (o.message or "").strip().splitlines()
        return f"{status.lower()}: {first[0] if first else ''}".rstrip(": ")
    m = o.metrics
    if m is not None and o.is_row_level and m.evaluated_count is not None:
        return f"{m.passed_count} of {m.evaluated_count} rows passed, {m.null_count or 0} null"
    if m is not None and o.rule_type == "sql_assertion" and m.assertion_row_count is not None:
        return f"{m.assertion_row_count} rows returned by the assertion"
    measured, expected = measured_statistic(o)
    if measured is not None:
        return measured + (f", expected {expected}" if expected else "")
    return "aggregate check failed"


@dataclass
class _Pending:
    """A rule with something to say in this run."""

    source: SourceReport
    outcome: RuleOutcome
    decision: Decision
    routes: list[AlertRoute]
    failures: list[str] = field(default_factory=list)  # routes whose post failed, with the reason

    @property
    def key(self) -> str:
        return alert_key(self.source.data_source.unique_id, self.outcome.rule_name)


class Alerts:
    name = "alerts"
    resolver: webhook.Resolver = staticmethod(webhook.system_resolver)  # tests stub it

    def write(self, ctx: OutputContext) -> None:
        report = ctx.report
        try:
            settings = AlertSettings.from_vars(ctx.wh.macro("alert_settings"), ctx.env)
        except ValueError as exc:
            raise OutputError(str(exc)) from None
        if not settings.routes or report.default_relation is None:
            return
        try:
            deadline = Deadline.from_env(ctx.env)
        except ValueError as exc:
            raise OutputError(str(exc)) from None
        now = datetime.now(UTC).replace(tzinfo=None)
        rows = ctx.wh.macro("alert_state_read", results_relation=report.default_relation)
        previous = {str(r["alert_key"]): Previous.from_row(r) for r in rows or []}
        pending = self._decide(report, settings, previous, ctx.resend, now)
        to_send = [p for p in pending if p.decision.event is not None]
        if to_send:
            items = self._items(ctx, report, settings, to_send)
            for route in settings.routes:
                chosen = [(p, items[p.key]) for p in to_send if route in p.routes]
                if chosen:
                    self._post(ctx, route, chosen, deadline=deadline, now=now)
        self._record(ctx, report, pending, now)

    def _decide(
        self,
        report: Report,
        settings: AlertSettings,
        previous: Mapping[str, Previous],
        resend: bool,
        now: datetime,
    ) -> list[_Pending]:
        out = []
        for s in report.sources:
            for o in s.outcomes:
                current = state_of(str(o.status))
                uid = o.test_unique_id or ""
                severity = report.severity.get(uid, "ERROR")
                routes = [
                    r
                    for r in settings.routes
                    if r.matches(report.tags.get(uid, ()), severity, s.data_source.unique_id, s.data_source.name)
                ]
                if current is None or not routes:
                    continue
                where = f"{s.data_source.label} rule '{o.rule_name}'"
                declared = next(  # the per-rule override, the test's, the data source's
                    (
                        v
                        for v in (
                            rule_alert_setting(s.data_source.settings, o.rule_name, "alert_suppression_interval"),
                            report.alert_intervals.get(uid),
                            s.data_source.settings.get("alert_suppression_interval"),
                        )
                        if v is not None
                    ),
                    None,
                )
                try:
                    interval = parse_interval(declared, where)
                except ValueError as exc:
                    report.action_errors.append(f"alerts: {exc}")
                    continue
                decision = decide(
                    current, previous.get(alert_key(s.data_source.unique_id, o.rule_name)), interval, resend, now
                )
                if decision is not None:
                    out.append(_Pending(s, o, decision, routes))
        return out

    def _items(
        self, ctx: OutputContext, report: Report, settings: AlertSettings, to_send: Sequence[_Pending]
    ) -> dict[str, AlertItem]:
        samples = _samples(ctx, report, [p for p in to_send if p.decision.event != RECOVERED])
        items = {}
        for p in to_send:
            s, o = p.source, p.outcome
            uid = o.test_unique_id or ""
            try:
                names = rule_owners(
                    s.data_source.settings, s.data_source.owners, report.owners.get(uid, ()), o.rule_name
                )
            except ValueError as exc:  # a malformed per-rule owner: the alert goes out without it
                report.action_errors.append(f"alerts: {s.data_source.label}: {exc}")
                names = ()
            items[p.key] = AlertItem(
                event=str(p.decision.event),
                data_source=s.data_source.label,
                data_source_id=s.data_source.unique_id,
                rule_name=o.rule_name,
                status=str(o.status),
                column=o.column,
                dimension=o.dimension,
                severity=report.severity.get(uid, "ERROR"),
                tags=tuple(report.tags.get(uid, ())),
                summary=rule_summary(o),
                failing_since=p.decision.changed_at if p.decision.event != RECOVERED else None,
                owners=tuple(settings.owner(n) for n in names),
                sample=samples.get((s.data_source.unique_id, o.rule_name)),
                failing_rows_query=o.metrics.failing_rows_query if (o.metrics and o.is_row_level) else None,
            )
        return items

    def _post(
        self,
        ctx: OutputContext,
        route: AlertRoute,
        chosen: list[tuple[_Pending, AlertItem]],
        *,
        deadline: Deadline,
        now: datetime,
    ) -> None:
        pending = [p for p, _ in chosen]
        items = [i for _, i in chosen]
        alert = Alert(route.name, ctx.report.invocation_id, ctx.project, ctx.target, iso(now), tuple(items))
        try:
            if route.format == "email":
                smtp = SmtpSettings.from_env(ctx.env)
                to = email_alert.recipients(alert, route.to)
                if not to:
                    raise ValueError("no recipient: no owner of its rules has an email in dataplex_dq_owners, no `to`")
                send_email(smtp, email_alert.compose(alert, smtp.sender, to), to, deadline)
            else:
                payload = formats()[route.format].payload(alert)
                webhook.post(
                    str(route.url), payload, deadline=deadline, allow_http=route.allow_http, resolver=self.resolver
                )
        except (OSError, ValueError, http.client.HTTPException, smtplib.SMTPException, DeadlinePassed) as exc:
            reason = f"{route.name}: {first_line(exc)}"
            ctx.report.action_errors.append(f"alerts: route {reason}")
            for p in pending:
                p.failures.append(reason)

    def _record(self, ctx: OutputContext, report: Report, pending: Sequence[_Pending], now: datetime) -> None:
        rows = []
        decisions = []
        for p in pending:
            d = p.decision
            sent = d.event is not None and not p.failures
            if d.event is None:
                reason = f"not sent: {d.reason}"
            elif p.failures:
                reason = f"not sent ({'; '.join(p.failures)}): tried again on the next run"
            else:
                reason = f"sent to {', '.join(r.name for r in p.routes)}: {d.reason}"
            label = f"{p.source.data_source.label} rule '{p.outcome.rule_name}'"
            report.alert_lines.append(("green" if sent else "red" if p.failures else "dim", f"{label}: alert {reason}"))
            decisions.append(
                {
                    "data_source": p.source.data_source.unique_id,
                    "rule": p.outcome.rule_name,
                    "status": str(p.outcome.status),
                    "state": d.state,
                    "event": d.event,
                    "sent": sent,
                    "routes": [r.name for r in p.routes],
                    "reason": reason,
                }
            )
            if sent:
                rows.append(
                    {
                        "alert_key": p.key,
                        "data_source": p.source.data_source.unique_id,
                        "rule_name": p.outcome.rule_name,
                        "state": d.state,
                        "changed_at": d.changed_at,
                        "alerted_at": iso(now),
                        "invocation_id": report.invocation_id,
                        "recorded_at": iso(now),
                        "reason": reason,
                    }
                )
        if rows:
            try:
                ctx.wh.macro("alert_state_write", results_relation=report.default_relation, rows=rows)
            except DataplexDqError as exc:
                report.action_errors.append(f"alerts: the alert state could not be written: {first_line(exc)}")
        _write_decisions(ctx.target_path, report.invocation_id, decisions)


def _samples(ctx: OutputContext, report: Report, failing: Sequence[_Pending]) -> dict[tuple[str, str], AlertSample]:
    """Failing rows of the failing rules alerted on (the HTML report's sampling, outputs/html_data.py)."""
    if not failing:
        return {}
    from dataplex_dq.outputs.html_data import fetch_samples

    wanted: dict[str, list[RuleOutcome]] = {}
    for p in failing:
        wanted.setdefault(p.source.data_source.unique_id, []).append(p.outcome)
    only = Report(
        report.invocation_id,
        sources=[
            replace(s, outcomes=wanted[s.data_source.unique_id])
            for s in report.sources
            if s.data_source.unique_id in wanted
        ],
        severity=report.severity,
        tags=report.tags,
    )
    only.default_relation = report.default_relation
    try:
        found, _ = fetch_samples(ctx.wh, only)
    except DataplexDqError as exc:
        return {
            (p.source.data_source.unique_id, p.outcome.rule_name): AlertSample((), (), error=first_line(exc))
            for p in failing
        }
    return {
        key: AlertSample(tuple(s.columns), tuple(tuple(r) for r in s.rows), s.truncated, s.error)
        for key, s in found.items()
    }


def _write_decisions(target_path: Path, invocation_id: str, decisions: list[dict[str, Any]]) -> None:
    path = Path(target_path) / "dataplex_dq" / RESULT_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"invocation_id": invocation_id, "alerts": decisions}, indent=2).encode())
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
