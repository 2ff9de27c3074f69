"""Webhooks go only where they were told (issue 30 item 4): no redirect followed, link-local and cloud-metadata
addresses and names refused (checked with a stub resolver: these tests never connect to them), http:// only to
loopback unless `webhook.allow_http: true`, the connection made to the address that was checked. The servers here
listen on 127.0.0.1 only."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from dataplex_dq.outputs import webhook
from dataplex_dq.outputs.deadline import Deadline
from dataplex_dq.outputs.notify import JobSummary, NotificationSpec, notify
from dataplex_dq.outputs.webhook import Target, WebhookRefused, checked_target

PUBLIC = "93.184.216.34"


def resolver_of(*addresses: str, seen: list[str] | None = None) -> webhook.Resolver:
    def resolve(host: str, port: int) -> list[str]:
        if seen is not None:
            seen.append(host)
        return list(addresses)

    return resolve


def never(host: str, port: int) -> list[str]:
    raise AssertionError(f"{host} was resolved")


@pytest.fixture
def no_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> socket.socket:
        raise AssertionError(f"a connection was attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize(
    "url,addresses,reason",
    [
        ("http://169.254.169.254/latest/meta-data/", ["169.254.169.254"], "169.254.169.254, a link-local"),
        ("https://hooks.example.com/x", ["169.254.10.1"], "resolves to 169.254.10.1, a link-local or cloud metadata"),
        ("https://hooks.example.com/x", ["fd00:ec2::254"], "resolves to fd00:ec2::254"),
        ("https://hooks.example.com/x", ["fe80::1%eth0"], "resolves to fe80::1"),
        ("https://hooks.example.com/x", ["::ffff:169.254.169.254"], "a link-local or cloud metadata address"),
        ("https://[fd00:ec2::254]/x", ["fd00:ec2::254"], "fd00:ec2::254"),
        # every address is checked, not only the first
        ("https://hooks.example.com/x", [PUBLIC, "169.254.169.254"], "resolves to 169.254.169.254"),
        ("https://hooks.example.com/x", [], "resolves to no address"),
        ("http://hooks.example.com/x", [PUBLIC], "http:// goes only to loopback and hooks.example.com is not"),
        ("http://hooks.example.com/x", ["127.0.0.1", PUBLIC], "http:// goes only to loopback"),
    ],
)
def test_refused_addresses(url, addresses, reason, no_connection):
    with pytest.raises(WebhookRefused) as exc:
        checked_target(url, resolver=resolver_of(*addresses))
    assert reason in str(exc.value)


@pytest.mark.parametrize(
    "url", ["http://metadata.google.internal/computeMetadata/v1/", "https://METADATA./x", "http://metadata/x"]
)
def test_metadata_names_are_refused_before_resolving(url, no_connection):
    with pytest.raises(WebhookRefused, match="is a cloud metadata server: refused"):
        checked_target(url, resolver=never)


def test_allowed_targets_connect_to_the_checked_address():
    seen: list[str] = []
    assert checked_target("https://hooks.example.com/services/T/B?x=1", resolver=resolver_of(PUBLIC, seen=seen)) == (
        Target("https", "hooks.example.com", 443, "/services/T/B?x=1", PUBLIC)
    )
    assert seen == ["hooks.example.com"]
    local = checked_target("http://localhost:8080/hook", resolver=resolver_of("127.0.0.1", "::1"))
    assert (local.scheme, local.port, local.address) == ("http", 8080, "127.0.0.1")
    opted_in = checked_target("http://hooks.example.com/x", allow_http=True, resolver=resolver_of(PUBLIC))
    assert opted_in.address == PUBLIC
    # allow_http does not allow a metadata address
    with pytest.raises(WebhookRefused, match=r"169\.254\.169\.254"):
        checked_target("http://hooks.example.com/x", allow_http=True, resolver=resolver_of("169.254.169.254"))


def test_allow_http_is_a_validated_setting():
    def spec(webhook_settings: dict[str, Any]) -> NotificationSpec | None:
        return NotificationSpec.from_actions({"notification_report": {"webhook": webhook_settings}})

    assert spec({"url": "http://h.example.com/x", "allow_http": True}) == NotificationSpec(
        webhook_url="http://h.example.com/x", webhook_allow_http=True
    )
    assert spec({"url": "https://h.example.com/x"}).webhook_allow_http is False  # type: ignore[union-attr]
    with pytest.raises(ValueError, match=r"webhook\.allow_http must be true or false, got 'yes'"):
        spec({"url": "http://h.example.com/x", "allowHttp": "yes"})


def job() -> JobSummary:
    return JobSummary("model 'orders'", "model.p.orders", "j-1", "inv-1", None, None, 100.0, True)


def test_a_refused_webhook_is_a_failed_notification(no_connection):
    spec = NotificationSpec(webhook_url="https://hooks.example.com/x", job_end=True)
    outcome = notify(spec, job(), {}, Deadline(5), resolver=resolver_of("169.254.169.254"))
    assert (outcome.state, outcome.webhook) == ("FAILED", False)
    assert outcome.message == (
        "webhook not posted: hooks.example.com resolves to 169.254.169.254, a link-local or cloud metadata "
        "address: refused"
    )
    http_spec = NotificationSpec(webhook_url="http://hooks.example.com/x", job_end=True)
    outcome = notify(http_spec, job(), {}, Deadline(5), resolver=resolver_of(PUBLIC))
    assert outcome.message == (
        "webhook not posted: http:// goes only to loopback and hooks.example.com is not: use https, or set "
        "webhook.allow_http: true"
    )


class _Server:
    """An HTTP server on 127.0.0.1 recording each request (method, path, Host header); POST /hook answers 302."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                outer.requests.append((self.command, self.path, self.headers.get("Host")))

            def do_POST(self) -> None:
                self._record()
                if self.path == "/hook":
                    self.send_response(302)
                    self.send_header("Location", f"http://127.0.0.1:{outer.port}/elsewhere")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                self._record()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[_Server]:
    s = _Server()
    yield s
    s.stop()


def test_a_redirect_is_not_followed(server):
    spec = NotificationSpec(webhook_url=f"http://127.0.0.1:{server.port}/hook", job_end=True)
    outcome = notify(spec, job(), {})
    assert (outcome.state, outcome.webhook) == ("FAILED", False)
    assert outcome.message == (
        f"webhook not posted: HTTP 302: redirected to http://127.0.0.1:{server.port}/elsewhere, not followed"
    )
    assert server.requests == [("POST", "/hook", f"127.0.0.1:{server.port}")]  # no GET of the location


def test_the_connection_goes_to_the_checked_address(server):
    """`hooks.test` resolves (by the stub) to 127.0.0.1 only: the post reaches the local server with the URL's
    Host header, so the address checked is the one connected to (no second resolution)."""
    spec = NotificationSpec(webhook_url=f"http://hooks.test:{server.port}/ok?a=1", job_end=True)
    outcome = notify(spec, job(), {}, resolver=resolver_of("127.0.0.1"))
    assert (outcome.state, outcome.webhook) == ("SUCCEEDED", True), outcome.message
    assert server.requests == [("POST", "/ok?a=1", f"hooks.test:{server.port}")]
