"""Microsoft Teams: the message a Teams Workflows webhook ("Post to a channel when a webhook request is received")
takes, one Adaptive Card (1.5) attachment: a title, per rule a text block (owners mentioned with `<at>` and the
card's `msteams.entities`) and its failing rows as a Table, a footer. Teams refuses a message over ~28 KB: the
rules that do not fit are left out and counted in a last text block."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from dataplex_dq.outputs.alert_formats import EVENT_TEXT, RECOVERED, Alert, AlertItem, truncated
from dataplex_dq.outputs.escape import one_line, teams_text
from dataplex_dq.outputs.owners import Owner

CARD_VERSION = "1.5"
CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
MAX_BYTES = 28_000  # Teams' message limit is ~28 KB
MAX_TEXT = 2_000  # one text block
SAMPLE_LEFT_OUT = "failing rows left out (Teams' message limit of about 28 KB)"


def mention_text(owner: Owner) -> str:
    """The `<at>...</at>` text of an owner's mention (the same in the text and in its entity)."""
    return f"<at>{html.escape(one_line(owner.teams_name or owner.name), quote=False)}</at>"


def _entity(owner: Owner) -> dict[str, Any]:
    return {
        "type": "mention",
        "text": mention_text(owner),
        "mentioned": {"id": owner.teams_id, "name": one_line(owner.teams_name or owner.name)},
    }


def _text(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextBlock", "text": text, "wrap": True, **style}


def item_elements(item: AlertItem) -> list[dict[str, Any]]:
    where = ", ".join(x for x in (f"column {item.column}" if item.column else "", item.dimension or "") if x)
    lines = [
        f"**{teams_text(one_line(item.rule_name))}** on {teams_text(one_line(item.data_source))}: "
        f"**{EVENT_TEXT[item.event]}**" + (f" ({teams_text(one_line(where))})" if where else "")
    ]
    if item.summary and item.event != RECOVERED:
        lines.append(teams_text(one_line(item.summary)))
    text = truncated("\n\n".join(lines), MAX_TEXT, "Teams text block limit")
    if item.owners:
        text += "\n\nOwner: " + ", ".join(
            mention_text(o) if o.teams_id else teams_text(one_line(o.name)) for o in item.owners
        )
    elements = [_text(text, separator=True)]
    sample = item.sample
    if sample is not None and item.event != RECOVERED:
        if sample.error:
            elements.append(
                _text(teams_text(one_line(f"failing rows could not be read: {sample.error}")), isSubtle=True)
            )
        elif sample.columns:
            rows = [sample.columns, *sample.rows]
            elements.append(
                {
                    "type": "Table",
                    "firstRowAsHeader": True,
                    "gridStyle": "accent",
                    "columns": [{"width": 1} for _ in sample.columns],
                    "rows": [
                        {
                            "type": "TableRow",
                            "cells": [
                                {"type": "TableCell", "items": [_text(teams_text(one_line(v)[:200]))]} for v in r
                            ],
                        }
                        for r in rows
                    ],
                }
            )
            if sample.truncated:
                elements.append(_text("… more failing rows", isSubtle=True))
    return elements


def _message(body: list[dict[str, Any]], owners: list[Owner]) -> dict[str, Any]:
    seen: dict[str, Owner] = {}
    for o in owners:
        if o.teams_id:
            seen.setdefault(mention_text(o), o)
    card = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": CARD_VERSION,
        "body": body,
        "msteams": {"width": "Full", "entities": [_entity(o) for o in seen.values()]},
    }
    return {"type": "message", "attachments": [{"contentType": CONTENT_TYPE, "contentUrl": None, "content": card}]}


def size(payload: Mapping[str, Any]) -> int:
    return len(json.dumps(payload).encode())


class TeamsAlert:
    name = "teams"

    def payload(self, alert: Alert) -> Mapping[str, Any]:
        title = _text(teams_text(one_line(alert.title)), size="Large", weight="Bolder")
        where = ", ".join(
            x for x in (alert.project and f"project {alert.project}", alert.target and f"target {alert.target}") if x
        )
        footer = _text(
            teams_text(
                one_line(
                    f"dbt invocation {alert.invocation_id}" + (f", {where}" if where else "") + f", {alert.sent_at} UTC"
                )
            ),
            isSubtle=True,
            size="Small",
        )
        items = alert.items

        def message(parts: list[list[dict[str, Any]]]) -> dict[str, Any]:
            body = [title, *(e for p in parts for e in p)]
            if len(parts) < len(items):
                body.append(
                    _text(f"… and {len(items) - len(parts)} more rules not shown (Teams' message limit of about 28 KB)")
                )
            body.append(footer)
            return _message(body, [o for i in items[: len(parts)] for o in i.owners])

        # the rules that fit, each element's size added once (", " between list items), the entity of an
        # owner mentioned the first time with it; then checked whole, one rule fewer while it does not fit
        parts: list[list[dict[str, Any]]] = []
        total = size(message([]))
        mentioned: set[str] = set()
        for i in items:
            mentions = sum(
                len(json.dumps(_entity(o)).encode()) + 2
                for o in i.owners
                if o.teams_id and mention_text(o) not in mentioned
            )
            elements = item_elements(i)
            grow = mentions + sum(len(json.dumps(e).encode()) + 2 for e in elements)
            if total + grow > MAX_BYTES and i.sample is not None:  # the rule without its failing rows
                elements = [*item_elements(replace(i, sample=None)), _text(SAMPLE_LEFT_OUT, isSubtle=True)]
                grow = mentions + sum(len(json.dumps(e).encode()) + 2 for e in elements)
            if total + grow > MAX_BYTES:
                break
            parts.append(elements)
            total += grow
            mentioned.update(mention_text(o) for o in i.owners if o.teams_id)
        result = message(parts)
        while parts and size(result) > MAX_BYTES:
            parts.pop()
            result = message(parts)
        return result
