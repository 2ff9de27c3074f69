"""Alert once (docs/SEMANTICS.md §11, "Alerts"): whether a rule's alert is sent in this run, from its state in the
warehouse table `dataplex_dq_alert_state` (macros/alerts/alert_state.sql) and its `alert_suppression_interval`.

By default a rule is alerted on when it starts failing and when it recovers, not on every run while it keeps
failing; with an interval, a rule still failing is alerted again once the interval since its last alert has
passed; `--resend` sends a failing rule's alert again now. Pure: the output (outputs/alerts.py) reads the state,
sends, and appends the new state of each rule whose alert was sent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dataplex_dq._compat import fromisoformat
from dataplex_dq.outputs.alert_formats import NEW_FAILURE, RECOVERED, STILL_FAILING

FAILING = "FAILING"
PASSING = "PASSING"
FAILING_STATUSES = ("FAILED", "ERROR")


def alert_key(data_source_id: str, rule_name: str) -> str:
    return f"{data_source_id}/{rule_name}"


def state_of(status: str) -> str | None:
    """A rule status as an alert state; None (no change) when it was not evaluated: skipped, suspended, training."""
    if status in FAILING_STATUSES:
        return FAILING
    return PASSING if status == "PASSED" else None


@dataclass(frozen=True)
class Previous:
    """A rule's latest row in the alert state table."""

    state: str
    changed_at: str | None  # when it entered that state (ISO 8601 UTC)
    alerted_at: str | None  # when its last alert was sent

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Previous:
        return cls(str(row.get("state") or PASSING), _text(row.get("changed_at")), _text(row.get("alerted_at")))


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


def iso(t: datetime) -> str:
    return t.replace(microsecond=0, tzinfo=None).isoformat()


@dataclass(frozen=True)
class Decision:
    event: str | None  # the alert to send: NEW_FAILURE, STILL_FAILING, RECOVERED; None: nothing sent
    state: str  # the rule's alert state after this run
    changed_at: str  # when it entered it
    reason: str  # why it is (not) sent, for the console and target/dataplex_dq/alerts.json


def decide(
    current: str, previous: Previous | None, interval: timedelta | None, resend: bool, now: datetime
) -> Decision | None:
    """What to do for a rule whose alert state is ``current`` now; None when there is nothing to say (it
    passes, as it did)."""
    now_text = iso(now)
    was = previous.state if previous is not None else PASSING
    if current == PASSING:
        if was != FAILING:
            return None
        since = previous.changed_at if previous else None
        return Decision(RECOVERED, PASSING, now_text, f"recovered (failing since {since or 'an earlier run'})")
    if was != FAILING or previous is None:
        return Decision(NEW_FAILURE, FAILING, now_text, "new failure")
    since = previous.changed_at or "an earlier run"
    if resend:
        return Decision(STILL_FAILING, FAILING, since, f"still failing since {since}; sent again (--resend)")
    last = _parse(previous.alerted_at)
    if interval is not None and (last is None or now - last >= interval):
        return Decision(
            STILL_FAILING,
            FAILING,
            since,
            f"still failing since {since}; last alert {previous.alerted_at or 'never'}, "
            f"alert_suppression_interval {_interval_text(interval)} passed",
        )
    until = (
        f"until {iso(last + interval)} (alert_suppression_interval {_interval_text(interval)})"
        if interval is not None and last is not None
        else "until it recovers (no alert_suppression_interval)"
    )
    return Decision(
        None,
        FAILING,
        since,
        f"still failing since {since}; alerted at {previous.alerted_at or 'an earlier run'}; suppressed {until} "
        "(`--resend` sends it again)",
    )


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        return None


def _interval_text(interval: timedelta) -> str:
    seconds = int(interval.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
