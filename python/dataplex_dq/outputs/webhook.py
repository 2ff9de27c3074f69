"""A webhook POST that goes only where it was told (docs/SEMANTICS.md §11):

- no redirect is followed (a 3xx fails, naming its location);
- the host is resolved once and every address checked: link-local (169.254.0.0/16, fe80::/10) and cloud
  metadata addresses and names (fd00:ec2::254, metadata.google.internal, ...) are refused; the connection goes
  to the address that was checked (TLS still verifies the URL's host name);
- http:// only to loopback unless the webhook's `allow_http: true`;
- within the actions' deadline (outputs/deadline.py)."""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from dataplex_dq import __version__
from dataplex_dq.outputs.deadline import Deadline, Watch
from dataplex_dq.outputs.escape import one_line

Resolver = Callable[[str, int], Sequence[str]]  # (host, port) -> its addresses

METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data"})
METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IMDS over IPv6
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
    }
)
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class WebhookRefused(ValueError):
    """The URL is not one a webhook may be posted to; nothing was sent."""


class WebhookFailed(OSError):
    """The server did not accept the message (an HTTP status of 300 or more)."""


def system_resolver(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def _refused_address(ip: IPAddress) -> bool:
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return any(a.is_link_local or a in METADATA_ADDRESSES for a in (ip, mapped) if a is not None)


def _is_loopback(ip: IPAddress) -> bool:
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


@dataclass(frozen=True)
class Target:
    """Where a webhook goes: the URL's parts and the checked address the connection is made to."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def checked_target(url: str, *, allow_http: bool = False, resolver: Resolver = system_resolver) -> Target:
    """The URL's target after the checks above; raises WebhookRefused with the reason (OSError when the host
    cannot be resolved)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise WebhookRefused(f"{url!r} is not an http(s) URL")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise WebhookRefused(f"{url!r} has no host")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise WebhookRefused(f"{url!r} has no valid port") from None
    if host in METADATA_NAMES:
        raise WebhookRefused(f"{host} is a cloud metadata server: refused")
    addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in resolver(host, port)]
    if not addresses:
        raise WebhookRefused(f"{host} resolves to no address")
    for ip in addresses:
        if _refused_address(ip):
            raise WebhookRefused(f"{host} resolves to {ip}, a link-local or cloud metadata address: refused")
    if scheme == "http" and not allow_http and not all(_is_loopback(ip) for ip in addresses):
        raise WebhookRefused(
            f"http:// goes only to loopback and {host} is not: use https, or set webhook.allow_http: true"
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, host, port, path, str(addresses[0]))


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to the checked address (the Host header stays the URL's host)."""

    def __init__(self, target: Target, watch: Watch, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._dq_target, self._dq_watch = target, watch

    def _open(self) -> socket.socket:
        sock = socket.create_connection((self._dq_target.address, self._dq_target.port), self.timeout)
        self._dq_watch.track(sock)
        return sock

    def connect(self) -> None:
        self.sock = self._open()


class _PinnedHTTPS(_PinnedHTTP):
    """As _PinnedHTTP, in TLS verified against the URL's host name."""

    def __init__(self, target: Target, watch: Watch, timeout: float) -> None:
        super().__init__(target, watch, timeout)
        self._dq_tls = ssl.create_default_context()

    def connect(self) -> None:
        self.sock = self._dq_tls.wrap_socket(self._open(), server_hostname=self._dq_target.host)


def post(
    url: str,
    payload: Mapping[str, Any],
    *,
    deadline: Deadline,
    allow_http: bool = False,
    resolver: Resolver = system_resolver,
) -> None:
    """POST ``payload`` as JSON. Raises WebhookRefused (nothing sent), WebhookFailed (an HTTP status of 300 or
    more: a redirect names its location), DeadlinePassed, OSError or http.client.HTTPException."""
    target = checked_target(url, allow_http=allow_http, resolver=resolver)
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "User-Agent": f"dataplex-dq/{__version__}"}
    with deadline.watch() as watch:
        kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
        conn = kind(target, watch, deadline.timeout())
        try:
            conn.request("POST", target.path, body=body, headers=headers)
            response = conn.getresponse()
            status, reason, location = response.status, response.reason, response.getheader("Location")
        finally:
            conn.close()
    if 300 <= status < 400:
        where = one_line(location)[:300] if location else "(no Location header)"
        raise WebhookFailed(f"HTTP {status}: redirected to {where}, not followed")
    if status >= 300:
        raise WebhookFailed(f"HTTP {status} {one_line(reason)[:200]}")
