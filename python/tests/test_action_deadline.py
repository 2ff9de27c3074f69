"""Actions have a deadline (issue 30 item 10): one for all of a run's notifications, SMTP and webhooks across data
sources (DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS, default 60 s). A server on 127.0.0.1 that trickles one byte every
0.5 s never trips a per-read timeout; with a 2 s deadline the action is FAILED with the reason soon after 2 s.
Here the time bound IS the feature: the servers would take 20 s or more to answer."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scorecards import score_rules

from dataplex_dq.errors import OutputError
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.outputs.deadline import Deadline
from dataplex_dq.outputs.notifications import Notifications
from dataplex_dq.outputs.notify import JobSummary, NotificationSpec, notify
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.run.jobs import JobContext
from dataplex_dq.run.model import Report, SourceReport

DEADLINE = 2.0
BOUND = 6.0  # well above the deadline, far below what the servers take (>= 20 s) or per-read timeouts allow


class Trickle:
    """A TCP server on 127.0.0.1 answering every connection with ``reply``, one byte every ``interval`` seconds."""

    def __init__(self, reply: bytes, interval: float = 0.5, read_first: bool = True) -> None:
        self.reply, self.interval, self.read_first = reply, interval, read_first
        self.stop = threading.Event()
        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                if self.read_first:
                    conn.settimeout(5)
                    conn.recv(65536)  # the request (its headers at least)
                for byte in self.reply:
                    if self.stop.wait(self.interval):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return  # the client gave up

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def slow_http() -> Iterator[Trickle]:
    server = Trickle(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")  # 38 bytes: 19 s
    yield server
    server.close()


@pytest.fixture
def slow_smtp() -> Iterator[Trickle]:
    server = Trickle(b"220 slow.example.com ESMTP at one byte a time\r\n", read_first=False)  # 47 bytes: 23 s
    yield server
    server.close()


def job(label: str = "model 'orders'") -> JobSummary:
    return JobSummary(label, "model.p.orders", "j-1", "inv-1", None, None, 100.0, True)


ENV = {"DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS": str(DEADLINE)}
REASON = "the actions' deadline of 2 s passed (DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS)"


def test_a_trickling_webhook_fails_at_the_deadline(slow_http):
    spec = NotificationSpec(webhook_url=f"http://127.0.0.1:{slow_http.port}/hook", job_end=True)
    started = time.monotonic()
    outcome = notify(spec, job(), ENV)
    took = time.monotonic() - started
    assert (outcome.state, outcome.webhook, outcome.message) == ("FAILED", False, f"webhook not posted: {REASON}")
    assert DEADLINE - 0.1 <= took < BOUND


def test_a_trickling_smtp_server_fails_at_the_deadline(slow_smtp):
    spec = NotificationSpec(emails=("owner@example.com",), job_end=True)
    env = {**ENV, "DATAPLEX_DQ_SMTP_HOST": "127.0.0.1", "DATAPLEX_DQ_SMTP_PORT": str(slow_smtp.port)}
    started = time.monotonic()
    outcome = notify(spec, job(), env)
    took = time.monotonic() - started
    assert (outcome.state, outcome.emails) == ("FAILED", [])
    assert outcome.message == f"email to owner@example.com not sent: {REASON}"
    assert DEADLINE - 0.1 <= took < BOUND


def source(name: str, actions: dict[str, Any]) -> SourceReport:
    ds = DataSource(f"model.p.{name}", name, "model", None, "db", "main", name, {"post_scan_actions": actions})
    s = SourceReport(ds, [], score_rules([]), Path("x.json"), Path("x.pb"))
    s.job = JobContext("inv-1", ds.unique_id, name, "model", "db", "main", name, "duckdb", None, None, 1)
    return s


def context(report: Report, env: dict[str, str]) -> OutputContext:
    return OutputContext(
        wh=None,  # type: ignore[arg-type]  # no results table to record the outcome in
        report=report,
        export=True,
        resend=False,
        project=None,
        target=None,
        target_path=Path("."),
        html=None,
        env=env,
        relation_of=lambda name: name,
    )


def test_one_deadline_for_all_the_data_sources(slow_http, slow_smtp):
    """Three data sources notify through the trickling servers: the run's actions end soon after one deadline
    (not one per data source); each is FAILED with the reason and the report records the failures (exit 2)."""
    hook = {"webhook": {"url": f"http://127.0.0.1:{slow_http.port}/hook"}, "job_end_trigger": {}}
    mail = {"recipients": {"emails": ["a@example.com"]}, "job_end_trigger": {}}
    report = Report("inv-1")
    report.sources = [source(n, {"notification_report": r}) for n, r in (("a", hook), ("b", mail), ("c", hook))]
    env = {**ENV, "DATAPLEX_DQ_SMTP_HOST": "127.0.0.1", "DATAPLEX_DQ_SMTP_PORT": str(slow_smtp.port)}
    started = time.monotonic()
    Notifications().write(context(report, env))
    took = time.monotonic() - started
    assert DEADLINE - 0.1 <= took < BOUND
    assert [(s.notification.state, s.notification.message) for s in report.sources] == [
        ("FAILED", f"webhook not posted: {REASON}"),
        ("FAILED", f"email to a@example.com not sent: {REASON}"),
        ("FAILED", f"webhook not posted: {REASON}"),
    ]
    assert slow_http.connections == 1 and slow_smtp.connections == 0  # nothing started after the deadline
    assert report.action_errors == [
        f"model '{s.data_source.name}': notification failed: {s.notification.message}" for s in report.sources
    ]
    assert report.has_errors


def test_the_deadline_setting():
    assert Deadline.from_env({}).seconds == 60.0
    assert Deadline.from_env({"DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS": " 2.5 "}).seconds == 2.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(
            ValueError, match=f"DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS must be a positive number of seconds, got '{bad}'"
        ):
            Deadline.from_env({"DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS": bad})
    report = Report("inv-1")
    with pytest.raises(OutputError, match="DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS must be a positive number"):
        Notifications().write(context(report, {"DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS": "soon"}))


def test_each_socket_operation_gets_at_most_the_time_left():
    now = [100.0]
    deadline = Deadline(60.0, clock=lambda: now[0])
    assert deadline.timeout() == 15.0  # a read never waits longer than 15 s
    now[0] = 150.0
    assert deadline.timeout() == 10.0
    now[0] = 160.0
    with pytest.raises(Exception, match="deadline of 60 s passed"):
        deadline.timeout()
