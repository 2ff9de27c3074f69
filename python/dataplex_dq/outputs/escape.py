"""User data (rule, column and data source names, values, messages, recipients) made inert for each place it is
written: one function per sink format. Every output escapes for itself with these; python/tests/test_sinks.py runs
one corpus of payloads (python/tests/payloads.py) through every sink."""

from __future__ import annotations

import html
import re

from rich.markup import escape as _rich_escape
from rich.text import Text

WORD_JOINER = "\u2060"  # invisible, keeps "@here" from being a mention
ZERO_WIDTH_SPACE = "\u200b"  # invisible, keeps "```" from opening or closing a code block

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_MENTION = re.compile(r"@(?=\w)")
_BROADCAST = re.compile(r"@(?=(?:here|channel|everyone)\b)", re.IGNORECASE)
# CommonMark: a backslash makes any ASCII punctuation literal. These are the ones that open inline syntax
# (code, emphasis, links and images, autolinks and HTML, entities, strikethrough) or end a table cell or heading.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>|&#~])")
# `_` between two letters or digits can neither open nor close emphasis: left as it is (stg_customers)
_LONE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_TEAMS_SPECIAL = re.compile(r"([\\`*_\[\]()#~|])")


def one_line(text: object) -> str:
    """Any line break (LF, CR, CRLF, U+2028, ...) and control character as one space."""
    return _CONTROL.sub(" ", " ".join(str(text).splitlines()))


# ------------------------------------------------------------------ the console (Rich)


def console_markup(text: object) -> str:
    """Data inside a Rich markup string: `[x]`, `[/bogus]` are printed as they are, never read as tags."""
    return _rich_escape(str(text))


def console_text(text: object, style: str = "") -> Text:
    """Data as a Rich ``Text``: printed as it is (no markup, no emoji codes), optionally styled."""
    return Text(str(text), style=style)


# ------------------------------------------------------------------ Markdown (the diff's pull-request comment)


def markdown_text(text: object) -> str:
    """Data as literal Markdown text on one line, safe in a GFM table cell, a heading or a list item: no code,
    emphasis, link, image, HTML, entity or heading syntax, no table cell break, no @mention."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text))
    escaped = _LONE_UNDERSCORE.sub(r"\\_", escaped)
    return _MENTION.sub("@" + WORD_JOINER, escaped)


def markdown_code(text: object, *, table_cell: bool = False) -> str:
    """Data as one Markdown code span showing exactly the text (on one line): a fence longer than any run of
    backticks inside; in a GFM table cell, `|` escaped (GFM removes that backslash inside code spans too)."""
    content = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    if not content.strip(" ") or "`" in (content[:1] + content[-1:]) or (content[:1] == content[-1:] == " "):
        content = f" {content} "  # CommonMark strips one space on each side
    if table_cell:
        content = content.replace("|", "\\|")
    return f"{fence}{content}{fence}"


# ------------------------------------------------------------------ chat messages


def slack_mrkdwn(text: object) -> str:
    """Data in Slack `mrkdwn` (or a message's `text`): `&`, `<`, `>` as Slack's entities (so no `<!here>`,
    `<@U123>` or `<url|link>`), no `@here` / `@channel` broadcast, no code fence ending a code block."""
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _BROADCAST.sub("@" + WORD_JOINER, escaped)
    return no_code_fence(escaped)


def slack_code_block(text: object) -> str:
    """Data as one Slack `mrkdwn` code block."""
    return "```" + slack_mrkdwn(text) + "```"


def teams_text(text: object) -> str:
    """Data in a Microsoft Teams message's text (Markdown with some HTML): `&`, `<`, `>` as HTML entities (so
    no `<at>` mention or tag), Markdown punctuation backslash-escaped, no code fence, no @mention."""
    escaped = html.escape(str(text), quote=False)
    escaped = _TEAMS_SPECIAL.sub(r"\\\1", escaped)
    escaped = _MENTION.sub("@" + WORD_JOINER, escaped)
    return no_code_fence(escaped)


def no_code_fence(text: str) -> str:
    """No two backticks in a row (an invisible space between them): no ``` fence."""
    return re.sub(r"`(?=`)", "`" + ZERO_WIDTH_SPACE, text)


# ------------------------------------------------------------------ HTML and email


def html_text(text: object) -> str:
    """Data as HTML text or an attribute value."""
    return html.escape(str(text), quote=True)


def email_header(text: object) -> str:
    """Data in an email header (the subject): one line, so no header can be added after it."""
    return one_line(text)
