"""THE shared corpus of hostile user data: rule, column and data source names, values, messages, recipients.
python/tests/test_sinks.py runs every payload through every sink (console, the diff's Markdown, Slack, Teams,
HTML, email); a new sink gets a test there over PAYLOADS."""

from __future__ import annotations

PAYLOADS: dict[str, str] = {
    "rich_close_tag": "value [/bogus] here",
    "rich_tag": "[x]",
    "rich_bold": "[bold]loud[/bold]",
    "rich_model": "src[/bogus]",
    "rich_emoji": ":thumbs_up: :x:",
    "backtick": "col`name",
    "backticks_run": "a``b```c",
    "code_fence": "```\nrm -rf /\n```",
    "pipe": "a|b",
    "escaped_pipe": "a\\|b",
    "newline": "first\nsecond",
    "crlf": "first\r\nBcc: evil@example.com",
    "heading": "\n# Injected heading",
    "mentions": "@here @channel @everyone @octocat",
    "slack_mention": "<!here> <!channel> <@U123>",
    "html": "<b>bold</b><script>alert(1)</script>",
    "link": "x](javascript:alert(1))",
    "image": "![i](https://example.com/x.png)",
    "entities": "& &amp; < > &lt;",
    "emphasis": "*star* _under_ ~~strike~~",
    "unicode": "größe — ünïcödé ✓",
    "long": "long-" + "x" * 5000,
    "jinja": "{{ var('x') }} {% if true %}",
    "quotes": "'single' \"double\"; drop table t; --",
    "backslash_end": "ends with a backslash\\",
    "unicode_lines": "line\u2028separator\u2029paragraph\x85next",
}
