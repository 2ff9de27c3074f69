"""Notifications (docs/SEMANTICS.md §11): `post_scan_actions.notification_report` emails a job's result through SMTP,
and (our extension) `notification_report.webhook.url` posts it as a Slack-compatible JSON message.

One message per job and data source (per channel) when at least one trigger fires:
  score_threshold_trigger  the job's score is below `score_threshold`;
  job_failure_trigger      a rule errored or was skipped, or the job could not complete (its export failed);
  job_end_trigger          always.
The SMTP server comes from the environment: DATAPLEX_DQ_SMTP_HOST, _PORT (587 with STARTTLS, else 25),
_USER, _PASSWORD, _SENDER (default: the user, else dataplex-dq@localhost), _STARTTLS (true/false;
default true on port 587). Composing is pure: every piece of data is escaped for its format (outputs/escape.py);
sending is two small functions bounded by the actions' deadline (outputs/deadline.py), the webhook going only where
it was told (outputs/webhook.py)."""

from __future__ import annotations

import http.client
import smtplib
import socket
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email.errors import HeaderDefect
from email.headerregistry import Address
from email.message import EmailMessage
from typing import Any

from dataplex_dq.errors import first_line
from dataplex_dq.field_names import spec_field
from dataplex_dq.outputs import webhook
from dataplex_dq.outputs.deadline import Deadline, DeadlinePassed, Watch
from dataplex_dq.outputs.escape import email_header, html_text, one_line, slack_code_block, slack_mrkdwn


@dataclass(frozen=True)
class NotificationSpec:
    """`notification_report` of a data source's post_scan_actions."""

    emails: tuple[str, ...] = ()
    score_threshold: float | None = None
    job_failure: bool = False
    job_end: bool = False
    webhook_url: str | None = None
    webhook_allow_http: bool = False  # webhook.allow_http: http:// to a host other than loopback

    @classmethod
    def from_actions(cls, actions: Mapping[str, Any] | None) -> NotificationSpec | None:
        """From post_scan_actions (either casing); None when no notification_report is set.
        Raises ValueError naming the field when it is malformed."""
        report = spec_field(actions, "notification_report")
        if report is None:
            return None
        if not isinstance(report, Mapping):
            raise ValueError(f"post_scan_actions.notification_report must be a mapping, got {report!r}")
        recipients = spec_field(report, "recipients") or {}
        emails = spec_field(recipients, "emails") if isinstance(recipients, Mapping) else None
        if emails is None:
            emails = []
        if isinstance(emails, str) or not isinstance(emails, list) or not all(is_address(e) for e in emails):
            raise ValueError(
                "post_scan_actions.notification_report.recipients.emails must be a list of email addresses, got "
                f"{emails!r}"
            )
        threshold = None
        trigger = spec_field(report, "score_threshold_trigger")
        if trigger is not None:
            value = spec_field(trigger, "score_threshold") if isinstance(trigger, Mapping) else None
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
                raise ValueError(
                    "post_scan_actions.notification_report.score_threshold_trigger.score_threshold must be a number "
                    f"in [0, 100], got {value!r}"
                )
            threshold = float(value)
        webhook = spec_field(report, "webhook")
        url = spec_field(webhook, "url") if isinstance(webhook, Mapping) else None
        if webhook is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
            raise ValueError(f"post_scan_actions.notification_report.webhook.url must be an http(s) URL, got {url!r}")
        allow_http = spec_field(webhook, "allow_http") if isinstance(webhook, Mapping) else None
        if allow_http is not None and not isinstance(allow_http, bool):
            raise ValueError(
                f"post_scan_actions.notification_report.webhook.allow_http must be true or false, got {allow_http!r}"
            )
        if not emails and not url:
            raise ValueError("post_scan_actions.notification_report has neither recipients.emails nor webhook.url")
        return cls(
            emails=tuple(emails),
            score_threshold=threshold,
            job_failure=spec_field(report, "job_failure_trigger") is not None,
            job_end=spec_field(report, "job_end_trigger") is not None,
            webhook_url=url,
            webhook_allow_http=bool(allow_http),
        )


def is_address(value: object) -> bool:
    """One email address (``user@host``), nothing more: no display name, second address or line break."""
    if not isinstance(value, str) or value != value.strip() or one_line(value) != value or "@" not in value:
        return False
    try:
        Address(addr_spec=value)
    except (ValueError, IndexError, HeaderDefect):
        return False
    return True


@dataclass(frozen=True)
class FailedRule:
    name: str
    column: str | None
    dimension: str | None
    status: str  # FAILED, ERROR or SKIPPED
    evaluated: int | None = None
    passed: int | None = None
    nulls: int | None = None
    assertion_rows: int | None = None
    failing_rows_query: str | None = None
    message: str | None = None
    measured: str | None = None  # statistic_range_expectation: what was measured, e.g. "MEAN 12.5"
    expected: str | None = None  # and the range it had to be in, e.g. ">= 0 and <= 10"


@dataclass(frozen=True)
class JobSummary:
    """What a notification says about one job of one data source."""

    data_source: str  # label, e.g. "seed 'orders'"
    data_source_id: str
    job_id: str
    invocation_id: str
    project: str | None
    target: str | None
    score: float | None
    passed: bool
    dimensions: tuple[tuple[str, float, bool], ...] = ()
    rules_evaluated: int = 0
    rules_passed: int = 0
    rows_scanned: int | None = None
    failed_rules: tuple[FailedRule, ...] = ()
    incomplete: str | None = None  # why the job could not complete (its export failed)
    window: tuple[str, str | None, str | None] | None = None  # (field, start, end) of an incremental job

    @property
    def failed(self) -> bool:
        """Dataplex's job failure: a rule could not be evaluated or the job did not complete."""
        return self.incomplete is not None or any(r.status in ("ERROR", "SKIPPED") for r in self.failed_rules)


def triggers_fired(spec: NotificationSpec, job: JobSummary) -> list[str]:
    """The triggers of `spec` that fire for `job`, in the proto's order."""
    fired = []
    if spec.score_threshold is not None and job.score is not None and job.score < spec.score_threshold:
        fired.append("score_threshold_trigger")
    if spec.job_failure and job.failed:
        fired.append("job_failure_trigger")
    if spec.job_end:
        fired.append("job_end_trigger")
    return fired


def _score_text(score: float | None) -> str:
    return "no rules evaluated" if score is None else f"{score:.2f}"


def subject_of(job: JobSummary) -> str:
    state = "FAILED" if job.failed else ("PASSED" if job.passed else "data quality below 100%")
    return email_header(f"[dataplex-dq] {job.data_source}: score {_score_text(job.score)} ({state})")


def _rule_line(r: FailedRule) -> str:
    where = ", ".join(x for x in (f"column {r.column}" if r.column else "", r.dimension or "") if x)
    head = f"- {r.name} ({where})" if where else f"- {r.name}"
    if r.status != "FAILED":
        first = (r.message or "").strip().splitlines()
        return f"{head}: {r.status.lower()}: {first[0] if first else ''}".rstrip()
    if r.evaluated is not None:
        counts = f"{r.passed} of {r.evaluated} rows passed, {r.nulls or 0} null"
    elif r.assertion_rows is not None:
        counts = f"{r.assertion_rows} rows returned by the assertion"
    elif r.measured is not None:
        counts = r.measured + (f", expected {r.expected}" if r.expected else "")
    else:
        counts = "aggregate check failed"
    return f"{head}: {counts}"


def text_body(job: JobSummary, triggers: Sequence[str]) -> str:
    lines = [
        f"Data source: {job.data_source} ({job.data_source_id})",
        f"Score: {_score_text(job.score)}  passed: {'yes' if job.passed else 'no'}  rules passed: "
        f"{job.rules_passed}/{job.rules_evaluated}",
    ]
    if job.rows_scanned is not None:
        lines.append(f"Rows scanned: {job.rows_scanned}")
    if job.window is not None:
        lines.append(
            f"Incremental window: {job.window[1] or '(first job)'} < {job.window[0]} <= {job.window[2] or '(no value)'}"
        )
    if job.dimensions:
        lines.append("Dimension scores: " + ", ".join(f"{n} {s:.2f}" for n, s, _ in job.dimensions))
    if job.incomplete:
        lines.append(f"The job could not complete: {job.incomplete}")
    if job.failed_rules:
        lines.append("")
        lines.append("Failed rules:")
        for r in job.failed_rules:
            lines.append(_rule_line(r))
            if r.failing_rows_query:
                lines.append(f"  failing rows: {r.failing_rows_query}")
    lines += [
        "",
        f"Triggered by: {', '.join(triggers)}",
        f"Job {job.job_id}, dbt invocation {job.invocation_id}"
        + (f", project {job.project}" if job.project else "")
        + (f", target {job.target}" if job.target else ""),
    ]
    return "\n".join(lines) + "\n"


def html_body(job: JobSummary, triggers: Sequence[str]) -> str:
    e = html_text
    rows = "".join(
        f"<tr><td>{e(r.name)}</td><td>{e(r.column or '')}</td><td>{e(r.dimension or '')}</td><td>{e(r.status)}</td>"
        f"<td>{'' if r.evaluated is None else r.evaluated}</td><td>{'' if r.passed is None else r.passed}</td>"
        f"<td>{'' if r.nulls is None else r.nulls}</td><td>{'' if r.assertion_rows is None else r.assertion_rows}</td>"
        f"<td>{e(r.measured or '')}{e(', expected ' + r.expected) if r.expected else ''}</td>"
        f"<td><code>{e(r.failing_rows_query or (r.message or ''))}</code></td></tr>"
        for r in job.failed_rules
    )
    dims = "".join(f"<li>{e(n)}: {s:.2f}</li>" for n, s, _ in job.dimensions)
    parts = [
        "<html><body>",
        f"<h2>{e(job.data_source)}: score {e(_score_text(job.score))}</h2>",
        f"<p>Data source <code>{e(job.data_source_id)}</code>; passed: {'yes' if job.passed else 'no'}; "
        f"rules passed: {job.rules_passed}/{job.rules_evaluated}"
        + (f"; rows scanned: {job.rows_scanned}" if job.rows_scanned is not None else "")
        + "</p>",
    ]
    if job.window is not None:
        parts.append(
            f"<p>Incremental window: {e(job.window[1] or '(first job)')} &lt; {e(job.window[0])} &le; "
            f"{e(job.window[2] or '(no value)')}</p>"
        )
    if dims:
        parts.append(f"<h3>Dimension scores</h3><ul>{dims}</ul>")
    if job.incomplete:
        parts.append(f"<p><b>The job could not complete:</b> {e(job.incomplete)}</p>")
    if rows:
        parts.append(
            '<h3>Failed rules</h3><table border="1" cellpadding="4"><tr><th>rule</th><th>column</th><th>dimension</th>'
            "<th>status</th><th>evaluated</th><th>passed</th><th>null</th><th>assertion rows</th><th>value</th>"
            "<th>failing rows query</th></tr>"
            f"{rows}</table>"
        )
    parts.append(
        f"<p>Triggered by: {e(', '.join(triggers))}<br>Job {e(job.job_id)}, dbt invocation {e(job.invocation_id)}"
        + (f", project {e(job.project)}" if job.project else "")
        + (f", target {e(job.target)}" if job.target else "")
        + "</p>"
    )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def compose_email(job: JobSummary, triggers: Sequence[str], sender: str, recipients: Sequence[str]) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = subject_of(job)
    msg["From"] = sender
    msg["To"] = ", ".join(recipients)
    msg["X-Dataplex-DQ-Job"] = job.job_id
    msg.set_content(text_body(job, triggers))
    msg.add_alternative(html_body(job, triggers), subtype="html")
    return msg


def webhook_payload(job: JobSummary, triggers: Sequence[str]) -> dict[str, Any]:
    """A Slack incoming-webhook message (`text` for any client, `blocks` for Slack's layout). `text` and the
    section are Slack `mrkdwn`, escaped (outputs/escape.py); the header is plain text, shown as it is."""
    text = text_body(job, triggers)
    return {
        "text": slack_mrkdwn(f"{subject_of(job)}\n{text}"),
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": subject_of(job)[:150]}},
            {"type": "section", "text": {"type": "mrkdwn", "text": slack_code_block(text[:2900])}},
        ],
    }


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    user: str | None
    password: str | None
    sender: str
    starttls: bool

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> SmtpSettings:
        """Raises ValueError with a one-line reason when the settings are missing or malformed."""
        host = env.get("DATAPLEX_DQ_SMTP_HOST", "").strip()
        if not host:
            raise ValueError("DATAPLEX_DQ_SMTP_HOST is not set: no SMTP server to send the notification email through")
        tls_text = env.get("DATAPLEX_DQ_SMTP_STARTTLS", "").strip().lower()
        if tls_text not in ("", "true", "false", "1", "0", "yes", "no"):
            raise ValueError(f"DATAPLEX_DQ_SMTP_STARTTLS must be true or false, got {tls_text!r}")
        port_text = env.get("DATAPLEX_DQ_SMTP_PORT", "").strip()
        try:
            port = int(port_text) if port_text else (587 if tls_text in ("true", "1", "yes") else 25)
        except ValueError:
            raise ValueError(f"DATAPLEX_DQ_SMTP_PORT must be a port number, got {port_text!r}") from None
        starttls = tls_text in ("true", "1", "yes") if tls_text else port == 587
        user = env.get("DATAPLEX_DQ_SMTP_USER") or None
        sender = env.get("DATAPLEX_DQ_SMTP_SENDER") or user or "dataplex-dq@localhost"
        return cls(host, port, user, env.get("DATAPLEX_DQ_SMTP_PASSWORD") or None, sender, starttls)


class _WatchedSMTP(smtplib.SMTP):
    """smtplib's client, its socket watched by the actions' deadline from the moment it connects."""

    def __init__(self, watch: Watch, timeout: float) -> None:
        self._dq_watch = watch
        super().__init__(timeout=timeout)

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = socket.create_connection((host, port), timeout)
        self._dq_watch.track(sock)
        return sock


def send_email(settings: SmtpSettings, msg: EmailMessage, recipients: Sequence[str], deadline: Deadline) -> None:
    with deadline.watch() as watch, _WatchedSMTP(watch, deadline.timeout()) as smtp:
        smtp.connect(settings.host, settings.port)
        if settings.starttls:
            smtp.starttls(context=ssl.create_default_context())
        if settings.user:
            smtp.login(settings.user, settings.password or "")
        smtp.send_message(msg, from_addr=settings.sender, to_addrs=list(recipients))


def post_webhook(
    url: str,
    payload: Mapping[str, Any],
    deadline: Deadline,
    *,
    allow_http: bool = False,
    resolver: webhook.Resolver = webhook.system_resolver,
) -> None:
    webhook.post(url, payload, deadline=deadline, allow_http=allow_http, resolver=resolver)


@dataclass
class NotificationOutcome:
    """What happened to one job's notification; kept in the results table (job_notification_result)."""

    state: str  # SUCCEEDED, FAILED, SKIPPED
    message: str
    triggers: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    webhook: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "message": self.message,
            "triggers": self.triggers,
            "emails": self.emails,
            "webhook": self.webhook,
        }


def _reason(exc: BaseException) -> str:
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        error = exc.smtp_error.decode(errors="replace") if isinstance(exc.smtp_error, bytes) else exc.smtp_error
        return f"the SMTP server rejected the login ({exc.smtp_code} {error})"
    if isinstance(exc, DeadlinePassed | webhook.WebhookRefused | webhook.WebhookFailed):
        return str(exc)
    text = first_line(exc)
    return f"{type(exc).__name__}: {text}"


def notify(
    spec: NotificationSpec,
    job: JobSummary,
    env: Mapping[str, str],
    deadline: Deadline | None = None,
    resolver: webhook.Resolver = webhook.system_resolver,
) -> NotificationOutcome:
    """Send the job's email and webhook message when a trigger fires, within ``deadline`` (the run's actions'
    deadline; a new one of DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS when None). Never raises: a failure is returned as
    a FAILED outcome with its reason."""
    if deadline is None:
        deadline = Deadline.from_env(env)
    triggers = triggers_fired(spec, job)
    if not triggers:
        return NotificationOutcome("SKIPPED", "no trigger fired")
    failures: list[str] = []
    sent_to: list[str] = []
    posted = False
    if spec.emails:
        try:
            settings = SmtpSettings.from_env(env)
            send_email(settings, compose_email(job, triggers, settings.sender, spec.emails), spec.emails, deadline)
            sent_to = list(spec.emails)
        except (ValueError, OSError, smtplib.SMTPException, DeadlinePassed) as exc:
            failures.append(
                f"email to {', '.join(spec.emails)} not sent: {exc if isinstance(exc, ValueError) else _reason(exc)}"
            )
    if spec.webhook_url:
        try:
            post_webhook(
                spec.webhook_url,
                webhook_payload(job, triggers),
                deadline,
                allow_http=spec.webhook_allow_http,
                resolver=resolver,
            )
            posted = True
        except (OSError, ValueError, http.client.HTTPException, DeadlinePassed) as exc:
            failures.append(f"webhook not posted: {_reason(exc)}")
    if failures:
        return NotificationOutcome("FAILED", "; ".join(failures), triggers, sent_to, posted)
    what = [f"email to {', '.join(sent_to)}"] if sent_to else []
    if posted:
        what.append("webhook")
    return NotificationOutcome(
        "SUCCEEDED", f"sent ({', '.join(triggers)}): {' and '.join(what)}", triggers, sent_to, posted
    )
