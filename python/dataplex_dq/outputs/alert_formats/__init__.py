"""The alert message formats (docs/SEMANTICS.md §11, "Alerts"): one formatter per channel behind one interface,
:class:`AlertFormat` (``payload(alert) -> JSON``): Slack Block Kit (slack.py), Microsoft Teams' Workflows webhook
Adaptive Card (teams.py), and a documented JSON for anything else (json_alert.py, schemas/alert.schema.json).
Each formatter escapes user data for its sink (outputs/escape.py) and keeps its channel's limits, saying what it
left out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dataplex_dq.outputs.owners import Owner

NEW_FAILURE = "NEW_FAILURE"
STILL_FAILING = "STILL_FAILING"  # sent again: the suppression interval passed, or --resend
RECOVERED = "RECOVERED"
EVENT_TEXT = {NEW_FAILURE: "failing", STILL_FAILING: "still failing", RECOVERED: "recovered"}


@dataclass(frozen=True)
class AlertSample:
    """Up to N failing rows of the rule, as text (outputs/html_data.py fetch_samples)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    truncated: bool = False  # more failing rows than those shown
    error: str | None = None


@dataclass(frozen=True)
class AlertItem:
    """One rule's alert: a new failure, a repeat, or a recovery."""

    event: str  # NEW_FAILURE, STILL_FAILING, RECOVERED
    data_source: str  # label, e.g. "seed 'orders'"
    data_source_id: str
    rule_name: str
    status: str  # the rule's status in this run
    column: str | None = None
    dimension: str | None = None
    severity: str = "ERROR"
    tags: tuple[str, ...] = ()
    summary: str = ""  # e.g. "2 of 3 rows passed, 0 null"
    failing_since: str | None = None  # ISO 8601 UTC
    owners: tuple[Owner, ...] = ()
    sample: AlertSample | None = None
    failing_rows_query: str | None = None


@dataclass(frozen=True)
class Alert:
    """One message: the alerts of one run for one route."""

    route: str
    invocation_id: str
    project: str | None
    target: str | None
    sent_at: str  # ISO 8601 UTC
    items: tuple[AlertItem, ...]

    @property
    def title(self) -> str:
        failing = sum(1 for i in self.items if i.event != RECOVERED)
        recovered = len(self.items) - failing
        parts = [f"{failing} rule{'s' if failing != 1 else ''} failing"] if failing else []
        if recovered:
            parts.append(f"{recovered} recovered")
        where = ", ".join(x for x in (self.project, self.target) if x)
        return f"[dataplex-dq] {' and '.join(parts)}" + (f" ({where})" if where else "")


class AlertFormat(Protocol):
    """A channel's message format: ``payload`` is the JSON body posted to its webhook."""

    name: str

    def payload(self, alert: Alert) -> Mapping[str, Any]: ...


def truncated(text: str, limit: int, what: str = "") -> str:
    """``text`` cut to at most ``limit`` characters, saying so at its end."""
    if len(text) <= limit:
        return text
    note = f"… (truncated{': ' + what if what else ''})"
    return text[: max(0, limit - len(note))] + note
