"""The `Alerts` output (outputs/alerts.py) on a stub warehouse (its macros answered in Python) and receivers on
127.0.0.1: a route whose post fails leaves the rule unrecorded (tried again next run) and exits 2, a route that
matches no rule gets nothing, and the state rows written say what was sent."""

from __future__ import annotations

import email
import json
import socket
import threading
from email import policy
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

from scorecards import score_rules
from test_notification_text import statistic_rule

from dataplex_dq.outputs.alerts import Alerts
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.run.model import Report, SourceReport


class StubWarehouse:
    def __init__(self, settings: dict[str, Any], state: list[dict[str, Any]]) -> None:
        self.settings, self.state, self.written = settings, state, []

    def macro(self, name: str, **kwargs: Any) -> Any:
        if name == "alert_settings":
            return self.settings
        if name == "alert_state_read":
            return self.state
        if name == "alert_state_write":
            self.written.extend(kwargs["rows"])
            return ""
        raise AssertionError(name)


def _receiver() -> tuple[HTTPServer, list[Any]]:
    posts: list[Any] = []

    class H(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            posts.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *a: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, posts


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ctx(wh: StubWarehouse, tmp_path: Path, report: Report) -> OutputContext:
    return OutputContext(wh, report, True, False, "p", "dev", tmp_path, None, {}, lambda t: t)  # type: ignore[arg-type]


def _report() -> Report:
    rule = statistic_rule("amount-mean", {"statistic": "MEAN", "max_value": "10"}, 12.5, "12.5")
    ds = DataSource("model.p.orders", "orders", "model", None, "db", "main", "orders", owners=("alice",))
    source = SourceReport(ds, [rule], score_rules([rule]), Path("x.json"), Path("x.pb"))
    report = Report("inv-1", sources=[source])
    report.default_relation = "results"
    return report


def test_a_failed_post_is_not_recorded_and_the_other_route_is(tmp_path):
    server, posts = _receiver()
    url = f"http://127.0.0.1:{server.server_address[1]}/x"
    wh = StubWarehouse(
        {
            "owners": {"alice": {"slack": "U0ALICE"}},
            "routes": [
                {"name": "ok", "format": "json", "url": url},
                {"name": "down", "format": "slack", "url": f"http://127.0.0.1:{_closed_port()}/x"},
                {"name": "other", "format": "teams", "url": url, "data_sources": ["customers"]},
            ],
        },
        [],
    )
    report = _report()
    try:
        Alerts().write(_ctx(wh, tmp_path, report))
    finally:
        server.shutdown()
    assert len(posts) == 1 and posts[0]["route"] == "ok"  # "other" matched no rule
    assert posts[0]["alerts"][0]["summary"] == "MEAN 12.5, expected <= 10"
    assert posts[0]["alerts"][0]["owners"][0]["slack"] == "U0ALICE"
    assert wh.written == []  # not recorded: tried again on the next run
    assert any(e.startswith("alerts: route down: ") for e in report.action_errors), report.action_errors
    decision = json.loads((tmp_path / "dataplex_dq" / "alerts.json").read_text())["alerts"][0]
    assert decision["sent"] is False and "tried again on the next run" in decision["reason"]
    assert report.alert_lines[0][0] == "red"


def test_sent_alert_is_recorded_and_a_suppressed_one_says_why(tmp_path):
    server, posts = _receiver()
    url = f"http://127.0.0.1:{server.server_address[1]}/x"
    settings = {"routes": [{"name": "ok", "format": "json", "url": url}]}
    wh = StubWarehouse(settings, [])
    try:
        Alerts().write(_ctx(wh, tmp_path, _report()))
        assert len(posts) == 1
        [row] = wh.written
        assert (row["alert_key"], row["state"], row["invocation_id"]) == (
            "model.p.orders/amount-mean",
            "FAILING",
            "inv-1",
        )
        assert row["alerted_at"] == row["changed_at"] and row["reason"].startswith("sent to ok: new failure")
        again = StubWarehouse(settings, [row])
        report = _report()
        Alerts().write(_ctx(again, tmp_path, report))
    finally:
        server.shutdown()
    assert len(posts) == 1 and again.written == []
    assert "alert not sent: still failing since" in report.alert_lines[0][1]
    assert report.action_errors == []


def test_email_route_goes_to_the_owners_addresses(tmp_path):
    from aiosmtpd.controller import Controller

    received: list[tuple[list[str], str]] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            received.append((list(envelope.rcpt_tos), envelope.original_content.decode()))
            return "250 OK"

    port = _closed_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    wh = StubWarehouse(
        {
            "owners": {"alice": {"email": "alice@example.com"}},
            "routes": [{"name": "mail", "format": "email", "to": ["dq@example.com"]}],
        },
        [],
    )
    env = {
        "DATAPLEX_DQ_SMTP_HOST": "127.0.0.1",
        "DATAPLEX_DQ_SMTP_PORT": str(port),
        "DATAPLEX_DQ_SMTP_STARTTLS": "false",
    }
    report = _report()
    ctx = OutputContext(wh, report, True, False, "p", "dev", tmp_path, None, env, lambda t: t)  # type: ignore[arg-type]
    try:
        Alerts().write(ctx)
    finally:
        controller.stop()
    assert report.action_errors == []
    [(to, text)] = received
    assert to == ["dq@example.com", "alice@example.com"]
    msg = email.message_from_string(text, policy=policy.default)
    assert msg["Subject"] == "[dataplex-dq] 1 rule failing (p, dev)"
    body = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert (
        "- amount-mean on model 'orders': failing (MEAN 12.5, expected <= 10); owner: alice <alice@example.com>" in body
    )
    assert "owner: alice &lt;alice@example.com&gt;" in msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert len(wh.written) == 1


def test_resend_sends_a_still_failing_rule_again(tmp_path):
    server, posts = _receiver()
    url = f"http://127.0.0.1:{server.server_address[1]}/x"
    earlier = {
        "alert_key": "model.p.orders/amount-mean",
        "state": "FAILING",
        "changed_at": "2026-12-01T00:00:00",
        "alerted_at": "2026-12-01T00:00:00",
    }
    wh = StubWarehouse({"routes": [{"name": "ok", "format": "json", "url": url}]}, [earlier])
    report = _report()
    ctx = OutputContext(wh, report, True, True, "p", "dev", tmp_path, None, {}, lambda t: t)  # type: ignore[arg-type]
    try:
        Alerts().write(ctx)
    finally:
        server.shutdown()
    assert [a["event"] for a in posts[0]["alerts"]] == ["STILL_FAILING"]
    assert posts[0]["alerts"][0]["failing_since"] == "2026-12-01T00:00:00"
    [row] = wh.written
    assert row["changed_at"] == "2026-12-01T00:00:00" and row["alerted_at"] != row["changed_at"]
    assert "sent again (--resend)" in report.alert_lines[0][1]


def test_the_data_sources_interval_realerts_and_a_per_rule_override_wins(tmp_path):
    server, posts = _receiver()
    url = f"http://127.0.0.1:{server.server_address[1]}/x"
    earlier = {
        "alert_key": "model.p.orders/amount-mean",
        "state": "FAILING",
        "changed_at": "2020-01-01T00:00:00",
        "alerted_at": "2020-01-01T00:00:00",
    }
    settings = {"routes": [{"name": "ok", "format": "json", "url": url}]}
    try:
        report = _report()
        report.sources[0].data_source.settings["alert_suppression_interval"] = "1h"
        Alerts().write(_ctx(StubWarehouse(settings, [earlier]), tmp_path, report))
        assert [a["event"] for a in posts[0]["alerts"]] == ["STILL_FAILING"]
        assert "alert_suppression_interval 1h passed" in report.alert_lines[0][1]
        report = _report()
        report.sources[0].data_source.settings.update(
            {"alert_suppression_interval": "1h", "rule_alerts": {"amount-mean": {"alert_suppression_interval": "none"}}}
        )
        Alerts().write(_ctx(StubWarehouse(settings, [earlier]), tmp_path, report))
    finally:
        server.shutdown()
    assert len(posts) == 1 and "suppressed until it recovers" in report.alert_lines[0][1]
