"""Slack: an incoming-webhook message in Block Kit (slack-sdk's block models, which check Slack's limits when the
message is built): a header, one section per rule (owners mentioned with `<@U...>` / `<!subteam^S...>`, its
failing rows as a code block), a context line. Slack's limits are kept: 50 blocks (the rules beyond are
counted in a last section), 3000 characters of section text, 150 of header, each cut saying so."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from slack_sdk.models.blocks import Block, ContextBlock, HeaderBlock, MarkdownTextObject, SectionBlock

from dataplex_dq.outputs.alert_formats import EVENT_TEXT, RECOVERED, Alert, AlertItem, AlertSample, truncated
from dataplex_dq.outputs.escape import one_line, slack_mrkdwn
from dataplex_dq.outputs.owners import Owner

MAX_BLOCKS = 50
MAX_SECTION = 3000
MAX_HEADER = 150
_PARTIAL_ENTITY = re.compile(r"&[a-z]{0,3}$")


def mention(owner: Owner) -> str:
    """A Slack mention of the owner (ids are checked when the var is read), else their name, escaped."""
    if owner.slack:
        return f"<!subteam^{owner.slack}>" if owner.slack.startswith("S") else f"<@{owner.slack}>"
    return slack_mrkdwn(one_line(owner.name))


def sample_text(sample: AlertSample) -> str:
    """The failing rows as an aligned text table (plain text: escaped by the caller)."""
    if sample.error:
        return f"failing rows could not be read: {sample.error}"
    rows = [sample.columns, *sample.rows]
    widths = [min(30, max(len(one_line(r[i])) for r in rows)) for i in range(len(sample.columns))]
    lines = [" | ".join(one_line(v)[:30].ljust(w) for v, w in zip(r, widths, strict=False)).rstrip() for r in rows]
    if sample.truncated:
        lines.append("… (more failing rows)")
    return "\n".join(lines)


def _cut(text: str, limit: int, what: str) -> str:
    """Escaped mrkdwn cut to ``limit``, never inside an entity."""
    if len(text) <= limit:
        return text
    note = f"… (truncated: {what})"
    return _PARTIAL_ENTITY.sub("", text[: limit - len(note)]) + note


def section_text(item: AlertItem) -> str:
    where = ", ".join(x for x in (f"column {item.column}" if item.column else "", item.dimension or "") if x)
    head = [
        f"*{slack_mrkdwn(one_line(item.rule_name))}* on {slack_mrkdwn(one_line(item.data_source))}: "
        f"*{EVENT_TEXT[item.event]}*" + (f" ({slack_mrkdwn(one_line(where))})" if where else ""),
    ]
    if item.summary and item.event != RECOVERED:
        head.append(slack_mrkdwn(one_line(item.summary)))
    if item.owners:
        head.append("Owner: " + ", ".join(mention(o) for o in item.owners))
    text = _cut("\n".join(head), MAX_SECTION, "Slack's 3000-character section limit")
    if item.sample is None or item.event == RECOVERED:
        return text
    room = MAX_SECTION - len(text) - 7  # newline and the two fences
    if room < 40:
        return text
    body = _cut(slack_mrkdwn(sample_text(item.sample)), room, "Slack's 3000-character section limit")
    return f"{text}\n```{body}```"


class SlackAlert:
    name = "slack"

    def payload(self, alert: Alert) -> Mapping[str, Any]:
        title = one_line(alert.title)
        blocks: list[Block] = [HeaderBlock(text=truncated(title, MAX_HEADER, "Slack's header limit"))]
        room = MAX_BLOCKS - 2  # the header and the context line
        shown = alert.items if len(alert.items) <= room else alert.items[: room - 1]
        blocks += [SectionBlock(text=MarkdownTextObject(text=section_text(i))) for i in shown]
        if len(shown) < len(alert.items):
            rest = len(alert.items) - len(shown)
            blocks.append(
                SectionBlock(
                    text=MarkdownTextObject(
                        text=f"… and {rest} more rules not shown (Slack's limit of {MAX_BLOCKS} blocks a message)"
                    )
                )
            )
        where = ", ".join(
            x for x in (alert.project and f"project {alert.project}", alert.target and f"target {alert.target}") if x
        )
        context = f"dbt invocation {alert.invocation_id}" + (f", {where}" if where else "") + f", {alert.sent_at} UTC"
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=slack_mrkdwn(one_line(context))[:MAX_SECTION])]))
        lines = [f"{slack_mrkdwn(title)}"] + [
            f"- {slack_mrkdwn(one_line(i.rule_name))} on {slack_mrkdwn(one_line(i.data_source))}: {EVENT_TEXT[i.event]}"
            + (" (" + ", ".join(mention(o) for o in i.owners) + ")" if i.owners else "")
            for i in alert.items[:20]
        ]
        if len(alert.items) > 20:
            lines.append(f"… and {len(alert.items) - 20} more")
        return {
            "text": _cut("\n".join(lines), MAX_SECTION, "Slack's text limit"),
            "blocks": [b.to_dict() for b in blocks],
        }
