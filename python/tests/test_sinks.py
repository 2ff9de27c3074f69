"""Every output sink escapes for itself (issue 30 item 3): the one corpus of hostile data (payloads.py) through the
console (a Rich console as the CLI makes it), the diff's Markdown (parsed back with markdown-it-py), the Slack
payload, Teams text, the HTML report and the email's HTML part, and the email's headers."""

from __future__ import annotations

import email
import html
import io
import json
import re
from datetime import datetime
from email import policy
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from payloads import PAYLOADS
from scorecards import score_rules

from dataplex_dq.cli import console as console_module
from dataplex_dq.errors import ArtifactsError
from dataplex_dq.outputs.escape import (
    WORD_JOINER,
    ZERO_WIDTH_SPACE,
    markdown_code,
    markdown_text,
    one_line,
    slack_mrkdwn,
    teams_text,
)
from dataplex_dq.outputs.html_report import render_html
from dataplex_dq.outputs.notifications import job_summary
from dataplex_dq.outputs.notify import (
    FailedRule,
    JobSummary,
    NotificationOutcome,
    NotificationSpec,
    compose_email,
    html_body,
    subject_of,
    text_body,
    webhook_payload,
)
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.run.jobs import JobContext
from dataplex_dq.run.metrics import RuleMetrics
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleIdentity, RuleOutcome, RuleStatus
from dataplex_dq.spec.diff import RuleState, SourceState, base_label, compare, print_diff, to_markdown

IDS = list(PAYLOADS)
INVISIBLE = {ord(WORD_JOINER): None, ord(ZERO_WIDTH_SPACE): None}


def failed_outcome(name: str, column: str | None = "amount", dimension: str | None = "VALIDITY") -> RuleOutcome:
    spec: dict[str, Any] = {"name": name, "range_expectation": {"max_value": "10"}}
    if column:
        spec["column"] = column
    if dimension:
        spec["dimension"] = dimension
    return RuleOutcome.from_metrics(
        RuleMetrics.from_row(
            {
                "dq_invocation_id": "inv-1",
                "dq_test_unique_id": "test.shop.t",
                "dq_data_source": "model.shop.orders",
                "rule_name": name,
                "rule_type": "range_expectation",
                "rule_column": column,
                "rule_dimension": dimension,
                "rule_status": "FAILED",
                "passed": False,
                "row_count": 3,
                "evaluated_count": 3,
                "passed_count": 2,
                "null_count": 0,
                "pass_ratio": 2 / 3,
                "failing_rows_query": "select 1",
                "rule_spec": json.dumps(spec),
            }
        )
    )


def hostile_report(payload: str) -> Report:
    """A run whose every piece of data is the payload: data source, rule, column, dimension, an error's message,
    a warning, a failed action naming a recipient, the notification's message."""
    ds = DataSource("model.shop.orders", payload, "model", None, "db", "main", "orders")
    failed = failed_outcome(payload, column=payload, dimension=payload)
    errored = RuleOutcome.not_evaluated(
        RuleIdentity.of_metrics(failed.metrics), RuleStatus.ERROR, f"Conversion Error: Could not convert {payload}"
    )
    outcomes = [failed, errored]
    source = SourceReport(ds, outcomes, score_rules(outcomes), Path("x.json"), Path("x.pb"))
    source.notification = NotificationOutcome("FAILED", f"email to {payload} not sent")
    report = Report("inv-1", sources=[source])
    report.warnings.append(payload)
    report.action_errors.append(f"{payload}: notification failed")
    return report


# ------------------------------------------------------------------ console


def cli_console() -> tuple[Any, io.StringIO]:
    """The console the CLI prints with (not a terminal under pytest: plain text, lines never cut)."""
    console = console_module._console()
    buffer = io.StringIO()
    console.file = buffer
    return console, buffer


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_console_prints_data_as_it_is(payload):
    console, out = cli_console()
    console_module.print_summary(hostile_report(payload), console)  # a MarkupError (exit 2) before
    text = out.getvalue()
    payload = payload.replace("\r", "")  # Rich drops carriage returns: a line is not overwritten either
    assert f"warning: {payload}\n" in text
    assert f"post-scan action failed: {payload}: notification failed\n" in text
    assert f"notification failed: email to {payload} not sent\n" in text
    flat = " ".join(x.strip() for x in payload.strip().splitlines()[:3])[:499]
    assert f"error: model '{payload}' rule '{payload}': Conversion Error: Could not convert {flat}" in text or (
        len(payload) > 400
    )
    if "\n" not in payload and len(payload) < 200:
        assert f"model '{payload}'" in text.split("Rules:")[0]  # the table's cell


def test_console_keeps_brackets_and_markup_like_text():
    console, out = cli_console()
    console_module.print_summary(hostile_report("[x] [bold]b[/bold] src[/bogus] :x:"), console)
    assert "warning: [x] [bold]b[/bold] src[/bogus] :x:" in out.getvalue()  # "[x]" vanished, ":x:" became ❌


def test_report_failure_line_prints_the_error_as_it_is(monkeypatch):
    from dataplex_dq.cli.report import _run_report
    from dataplex_dq.record import paths

    def refuse(*_: Any) -> Any:
        raise ArtifactsError("model src[/bogus] [x]: not found")

    monkeypatch.setattr(paths, "resolve_paths", refuse)
    console, out = cli_console()
    code = _run_report(
        project_dir=None,
        profiles_dir=None,
        target=None,
        target_path=None,
        export=False,
        fail_on_rule_failure=True,
        console=console,
    )
    assert code == 2
    assert out.getvalue() == "dataplex-dq report failed: model src[/bogus] [x]: not found\n"


# ------------------------------------------------------------------ the diff's Markdown


MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def diff_markdown(name: str) -> str:
    """A data source named ``name`` whose rule ``name`` (column and dimension ``name``) newly fails and whose rule
    ``name!`` is new, compared with a base directory named ``name``."""
    key = f"model.shop.{name}"
    base_rule, now_failing, added = (
        RuleState(name, True, name, name),
        RuleState(name, False, name, name),
        RuleState(f"{name}!", False),
    )
    base = {key: SourceState(key, 100.0, 10, {name: 100.0}, {name: 100.0}, {name: base_rule})}
    current = {key: SourceState(key, 0.0, 12, {name: 0.0}, {name: 0.0}, {name: now_failing, f"{name}!": added})}
    return to_markdown(compare(base, current, base_label=base_label(Path(name))))


def shape(tokens: list[Any]) -> list[Any]:
    """The structure of parsed Markdown: block tokens, and the inline tokens' kinds (runs of text as one)."""
    out: list[Any] = []
    for t in tokens:
        kinds: list[str] = []
        for c in t.children or []:
            kind = "text" if c.type in ("text", "text_special") else c.type
            if not (kinds and kind == "text" == kinds[-1]):
                kinds.append(kind)
        out.append((t.type, t.tag, tuple(kinds)))
    return out


def texts(tokens: list[Any], kind: str) -> list[str]:
    return [c.content for t in tokens for c in t.children or [] if c.type == kind]


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_diff_markdown_keeps_its_structure(payload):
    tokens = MD.parse(diff_markdown(payload))
    # the same headings, table (8 cells a row), lists, code spans and emphasis as a plain name gives
    assert shape(tokens) == shape(MD.parse(diff_markdown("plain")))
    bad = {"link_open", "image", "html_inline", "html_block", "softbreak", "hardbreak"}
    assert not bad & ({c.type for t in tokens for c in t.children or []} | {t.type for t in tokens})
    # every code span shows exactly the name; the text around shows it too, with no @mention left
    names = {one_line(payload), one_line(payload) + "!", one_line(Path(payload))}  # the base is a path
    assert set(texts(tokens, "code_inline")) == names
    inline_text = "".join(texts(tokens, "text"))
    assert not re.search(r"@\w", inline_text)
    assert one_line(payload) in inline_text.translate(INVISIBLE)


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_diff_console_prints_data_as_it_is(payload):
    from rich.console import Console

    key = f"model.shop.{payload}"
    base = {key: SourceState(key, 100.0, 10, {}, {}, {payload: RuleState(payload, True)})}
    current = {key: SourceState(key, 0.0, 10, {}, {}, {payload: RuleState(payload, False)})}
    out = io.StringIO()
    console = Console(file=out, width=10_000, highlight=False, soft_wrap=True, emoji=False)
    print_diff(compare(base, current, base_label=payload), console)  # the base in the title: a MarkupError before
    text = out.getvalue()
    assert f"Data quality diff against {payload.replace(chr(13), '')}" in text


def test_markdown_escapers_keep_the_text():
    for payload in PAYLOADS.values():
        [paragraph] = [t for t in MD.parse(markdown_text(payload)) if t.type == "inline"] or [None]
        if paragraph is not None:
            shown = "".join(c.content for c in paragraph.children or []).translate(INVISIBLE)
            assert shown == one_line(payload).strip()
    assert markdown_code("a`b") == "``a`b``" and markdown_code("`x") == "`` `x ``"
    assert markdown_code("a|b", table_cell=True) == "`a\\|b`" and markdown_code("stg_orders") == "`stg_orders`"
    assert markdown_text("stg_customers") == "stg_customers"  # intraword _ stays as it is


# ------------------------------------------------------------------ Slack and Teams


def job_of(payload: str) -> JobSummary:
    return JobSummary(
        data_source=payload,
        data_source_id=payload,
        job_id="j-1",
        invocation_id="inv-1",
        project=payload,
        target="dev",
        score=50.0,
        passed=False,
        dimensions=((payload, 0.0, False),),
        rules_evaluated=2,
        rules_passed=1,
        failed_rules=(FailedRule(payload, payload, payload, "FAILED", 3, 2, 0, None, payload),),
    )


def slack_unescape(text: str) -> str:
    return text.translate(INVISIBLE).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_slack_payload(payload):
    job = job_of(payload)
    message = json.loads(json.dumps(webhook_payload(job, ["job_end_trigger"])))
    section = message["blocks"][1]["text"]
    assert section["type"] == "mrkdwn" and message["blocks"][0]["text"]["type"] == "plain_text"
    for mrkdwn in (message["text"], section["text"]):
        # Slack's control characters: & < > only as &amp; &lt; &gt; (api.slack.com/reference/surfaces/formatting)
        assert "<" not in mrkdwn and ">" not in mrkdwn
        assert not re.search(r"&(?!amp;|lt;|gt;)", mrkdwn)
        assert not re.search(r"@(here|channel|everyone)\b", mrkdwn)
    body = section["text"]
    assert body.startswith("```") and body.endswith("```") and "``" not in body[3:-3]  # one code block
    assert slack_unescape(body[3:-3]) == text_body(job, ["job_end_trigger"])[:2900]
    assert slack_unescape(message["text"]).startswith(one_line(f"[dataplex-dq] {payload}")[:100])
    assert "\n" not in message["blocks"][0]["text"]["text"]


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_teams_text(payload):
    text = teams_text(payload)
    assert "<" not in text and ">" not in text and not re.search(r"&(?!amp;|lt;|gt;)", text)
    assert "``" not in text and not re.search(r"@\w", text)
    assert not re.search(r"(?<!\\)[*_\[\]()#~|]", re.sub(r"\\\\", "", text))  # Markdown punctuation escaped
    assert html.unescape(re.sub(r"\\(.)", r"\1", text.translate(INVISIBLE), flags=re.S)) == payload


def test_slack_mrkdwn_by_slack_docs():
    assert slack_mrkdwn("a & b <!here> > c") == "a &amp; b &lt;!here&gt; &gt; c"


# ------------------------------------------------------------------ HTML


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.data.append(data)


def parsed(page: str) -> Tags:
    p = Tags()
    p.feed(page)
    return p


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_html_report_and_email_html(payload):
    now = datetime(2026, 1, 2, 3, 4, 5)
    page, plain = (parsed(render_html(hostile_report(x), generated_at=now)) for x in (payload, "plain"))
    assert page.tags == plain.tags
    assert any(payload in d for d in page.data) or "\n" in payload or "\r" in payload
    mail, plain_mail = (parsed(html_body(job_of(x), ["job_end_trigger"])) for x in (payload, "plain"))
    assert mail.tags == plain_mail.tags
    assert payload in "".join(mail.data)


# ------------------------------------------------------------------ email headers


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=IDS)
def test_email_headers(payload):
    msg = compose_email(job_of(payload), ["job_end_trigger"], "bot@example.com", ["a@example.com"])
    back = email.message_from_bytes(msg.as_bytes(), policy=policy.default)
    assert sorted(back.keys()) == sorted(["Subject", "From", "To", "X-Dataplex-DQ-Job", "Content-Type", "MIME-Version"])
    assert back["To"] == "a@example.com" and "Bcc" not in back
    assert (
        back["Subject"].strip()  # the email package may fold a subject right after "Subject:"
        == subject_of(job_of(payload))
        == f"[dataplex-dq] {one_line(payload)}: score 50.00 (data quality below 100%)"
    )


@pytest.mark.parametrize(
    "recipient",
    ["a@example.com\r\nBcc: evil@example.com", "a@example.com, evil@example.com", "Eve <e@example.com>", " a@x.io"],
)
def test_a_recipient_is_one_address(recipient):
    with pytest.raises(ValueError, match=r"recipients\.emails must be a list of email addresses"):
        NotificationSpec.from_actions({"notification_report": {"recipients": {"emails": [recipient]}}})


def test_notification_job_summary_keeps_the_data():
    report = hostile_report("[x]")
    job = JobContext("inv-1", "model.shop.orders", "[x]", "model", "db", "main", "orders", "duckdb", None, None, 3)
    report.sources[0].job = job
    summary = job_summary(report.sources[0], report, None, None)
    assert summary.data_source == "model '[x]'" and summary.failed_rules[0].name == "[x]"
