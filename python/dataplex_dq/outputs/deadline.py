"""One deadline for all of a run's post-scan actions that talk to a server (SMTP, webhooks): a server that answers
one byte at a time holds the report no longer than the deadline, however many data sources notify.

Each socket gets a timeout of min(15 s, the time left) per operation, and while an action talks to its server a
watch shuts its sockets down when the deadline passes (a timeout per read alone never ends a trickle); the action
then fails with :class:`DeadlinePassed`. Actions that have not started by then fail at once with the same reason."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

DEFAULT_SECONDS = 60.0
READ_TIMEOUT_SECONDS = 15.0  # one socket operation, at most
ENV_VAR = "DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS"


class DeadlinePassed(Exception):
    """The actions' deadline passed before this action was done."""


class Watch:
    """The sockets of one action: shut down (from the watch's timer thread) when the deadline passes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.expired = False

    def track(self, sock: socket.socket) -> None:
        """Watch ``sock``. A duplicate of it is kept: shutting that down ends the connection even after ``sock``
        was wrapped in TLS (which detaches the original object)."""
        dup = sock.dup()
        with self._lock:
            self._sockets.append(dup)
            if self.expired:
                _shutdown(dup)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for s in self._sockets:
                _shutdown(s)

    def close(self) -> None:
        with self._lock:
            for s in self._sockets:
                s.close()
            self._sockets.clear()


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by its action
        sock.shutdown(socket.SHUT_RDWR)


@dataclass
class Deadline:
    """``seconds`` from its creation (``clock`` is injectable for tests)."""

    seconds: float = DEFAULT_SECONDS
    clock: Callable[[], float] = time.monotonic
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Deadline:
        """From DATAPLEX_DQ_ACTIONS_DEADLINE_SECONDS (default 60). Raises ValueError naming it when malformed."""
        text = env.get(ENV_VAR, "").strip()
        if not text:
            return cls(DEFAULT_SECONDS)
        try:
            seconds = float(text)
        except ValueError:
            seconds = float("nan")
        if not 0 < seconds < float("inf"):
            raise ValueError(f"{ENV_VAR} must be a positive number of seconds, got {text!r}")
        return cls(seconds)

    def remaining(self) -> float:
        return self.seconds - (self.clock() - self.started)

    def passed(self) -> DeadlinePassed:
        return DeadlinePassed(f"the actions' deadline of {self.seconds:g} s passed ({ENV_VAR})")

    def timeout(self, cap: float = READ_TIMEOUT_SECONDS) -> float:
        """The timeout of one socket operation: min(cap, the time left). Raises DeadlinePassed when none is left."""
        left = self.remaining()
        if left <= 0:
            raise self.passed()
        return min(cap, left)

    @contextmanager
    def watch(self) -> Iterator[Watch]:
        """A block that talks to a server: the sockets it tracks are shut down when the deadline passes, and the
        block then raises DeadlinePassed (whatever error the shutdown caused inside it)."""
        left = self.timeout(cap=float("inf"))
        w = Watch()
        timer = threading.Timer(left, w.expire)
        timer.daemon = True
        timer.start()
        try:
            yield w
        except Exception as exc:
            if w.expired or self.remaining() <= 0:
                raise self.passed() from exc
            raise
        finally:
            timer.cancel()
            w.close()
