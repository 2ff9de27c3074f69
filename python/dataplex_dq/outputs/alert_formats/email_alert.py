"""Email: an alert as one message (text and HTML) to the owners' addresses of its rules and the route's `to`,
through the SMTP server of the DATAPLEX_DQ_SMTP_* variables (outputs/notify.py). Every value is escaped for
its part: the subject is one line, the HTML is escaped text."""

from __future__ import annotations

from collections.abc import Sequence
from email.message import EmailMessage

from dataplex_dq.outputs.alert_formats import EVENT_TEXT, RECOVERED, Alert, AlertItem
from dataplex_dq.outputs.escape import email_header, html_text, one_line


def recipients(alert: Alert, to: Sequence[str]) -> list[str]:
    """The route's `to`, then each owner's email (from dataplex_dq_owners), each once."""
    out: list[str] = []
    for address in [*to, *(o.email for i in alert.items for o in i.owners if o.email)]:
        if address and address not in out:
            out.append(address)
    return out


def _line(i: AlertItem) -> str:
    owners = ", ".join(f"{o.name} <{o.email}>" if o.email else o.name for o in i.owners)
    text = f"- {i.rule_name} on {i.data_source}: {EVENT_TEXT[i.event]}"
    if i.summary and i.event != RECOVERED:
        text += f" ({i.summary})"
    return one_line(text + (f"; owner: {owners}" if owners else ""))


def text_body(alert: Alert) -> str:
    lines = [alert.title, ""]
    for i in alert.items:
        lines.append(_line(i))
        if i.sample is not None and i.sample.columns and i.event != RECOVERED:
            lines += ["    " + " | ".join(one_line(v) for v in row) for row in (i.sample.columns, *i.sample.rows)]
    lines += ["", f"dbt invocation {alert.invocation_id}, sent {alert.sent_at} UTC"]
    return "\n".join(lines) + "\n"


def html_body(alert: Alert) -> str:
    e = html_text
    parts = [f"<html><body><h2>{e(alert.title)}</h2><ul>"]
    for i in alert.items:
        parts.append(f"<li>{e(_line(i)[2:])}")
        if i.sample is not None and i.sample.columns and i.event != RECOVERED:
            head = "".join(f"<th>{e(c)}</th>" for c in i.sample.columns)
            rows = "".join("<tr>" + "".join(f"<td>{e(v)}</td>" for v in r) + "</tr>" for r in i.sample.rows)
            parts.append(f'<table border="1" cellpadding="3"><tr>{head}</tr>{rows}</table>')
        parts.append("</li>")
    parts.append(f"</ul><p>dbt invocation {e(alert.invocation_id)}, sent {e(alert.sent_at)} UTC</p></body></html>")
    return "\n".join(parts) + "\n"


def compose(alert: Alert, sender: str, to: Sequence[str]) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = email_header(alert.title)
    msg["From"] = sender
    msg["To"] = ", ".join(to)
    msg["X-Dataplex-DQ-Invocation"] = email_header(alert.invocation_id)
    msg.set_content(text_body(alert))
    msg.add_alternative(html_body(alert), subtype="html")
    return msg
