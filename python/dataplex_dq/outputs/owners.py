"""Who owns a rule, how to mention them, and where its alert goes (docs/SEMANTICS.md §11, "Alerts").

A rule's owners, first found wins: the data source's `meta.dataplex_dq.rule_alerts.<rule name>.owner` (the
per-rule override, for the rules of a data_quality_scan), the test's `meta.owner`, the data source's
`meta.owner`, the owner of the data source's dbt `group`. The var `dataplex_dq_owners` maps an owner's name to
its Slack user or group id, Teams mention and email; the var `dataplex_dq_alert_routes` lists the channels, each
with a `format` (slack, teams, json: a URL; email: to the owners' addresses and `to`) and optional filters (tags,
severity, data_sources)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from dataplex_dq.outputs.escape import one_line
from dataplex_dq.outputs.notify import is_address

FORMATS = ("slack", "teams", "json", "email")
SEVERITIES = ("error", "warn")
_SLACK_ID = re.compile(r"^[UWS][A-Z0-9]{2,}$")
_INTERVAL = re.compile(r"^\s*(\d+)\s*([smhd])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


@dataclass(frozen=True)
class Owner:
    """An owner as named in dbt (`meta.owner`) and, from `dataplex_dq_owners`, how each channel reaches them."""

    name: str
    slack: str | None = None  # a user id (U..., W...) or a user group id (S...)
    teams_id: str | None = None  # the Teams user's id or UPN (its email)
    teams_name: str | None = None  # the name shown in the mention
    email: str | None = None


@dataclass(frozen=True)
class AlertRoute:
    """One channel alerts go to: every alert whose rule matches all its filters (an empty filter matches all)."""

    name: str
    format: str
    url: str | None  # None for format email
    allow_http: bool = False
    to: tuple[str, ...] = ()  # format email: recipients besides the rules' owners
    tags: tuple[str, ...] = ()
    severities: tuple[str, ...] = ()
    data_sources: tuple[str, ...] = ()  # unique ids or names

    def matches(self, tags: Sequence[str], severity: str, data_source_id: str, data_source_name: str) -> bool:
        if self.tags and not set(self.tags) & set(tags):
            return False
        if self.severities and severity.lower() not in self.severities:
            return False
        return not self.data_sources or bool({data_source_id, data_source_name} & set(self.data_sources))


@dataclass(frozen=True)
class AlertSettings:
    owners: Mapping[str, Owner]
    routes: tuple[AlertRoute, ...]

    @classmethod
    def from_vars(cls, value: Any, env: Mapping[str, str] | None = None) -> AlertSettings:
        """From the macro alert_settings' {owners, routes}; a route's `url_env` read from ``env``. ValueError
        naming the var and entry when malformed."""
        value = value if isinstance(value, Mapping) else {}
        return cls(_owners(value.get("owners") or {}), _routes(value.get("routes") or [], env or {}))

    def owner(self, name: str) -> Owner:
        return self.owners.get(name) or Owner(name)


def _text(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise ValueError(f"{where} is required")
        return None
    if not isinstance(value, str | int) or isinstance(value, bool) or one_line(value) != str(value):
        raise ValueError(f"{where} must be one line of text, got {value!r}")
    return str(value).strip()


def _owners(value: Any) -> dict[str, Owner]:
    if not isinstance(value, Mapping):
        raise ValueError(
            f"var dataplex_dq_owners must be a mapping of owner name to slack / teams / email, got {value!r}"
        )
    out = {}
    for name, entry in value.items():
        where = f"var dataplex_dq_owners.{name}"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where} must be a mapping (slack, teams, email), got {entry!r}")
        unknown = sorted(set(entry) - {"slack", "teams", "email"})
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r} (slack, teams, email)")
        slack = _text(entry.get("slack"), f"{where}.slack")
        if slack is not None and not _SLACK_ID.match(slack):
            raise ValueError(
                f"{where}.slack must be a Slack user id (U..., W...) or user group id (S...), got {slack!r}"
            )
        teams = entry.get("teams")
        if isinstance(teams, Mapping):
            teams_id = _text(teams.get("id"), f"{where}.teams.id", required=True)
            teams_name = _text(teams.get("name"), f"{where}.teams.name")
        else:
            teams_id, teams_name = _text(teams, f"{where}.teams"), None
        email = _text(entry.get("email"), f"{where}.email")
        if email is not None and not is_address(email):
            raise ValueError(f"{where}.email must be an email address, got {email!r}")
        out[str(name)] = Owner(str(name), slack, teams_id, teams_name or (str(name) if teams_id else None), email)
    return out


def _names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise ValueError(f"{where} must be a name or a list of names, got {value!r}")
    return tuple(items)


def _routes(value: Any, env: Mapping[str, str]) -> tuple[AlertRoute, ...]:
    if not isinstance(value, list):
        raise ValueError(f"var dataplex_dq_alert_routes must be a list of routes, got {value!r}")
    routes = []
    for i, entry in enumerate(value):
        where = f"var dataplex_dq_alert_routes[{i}]"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where} must be a mapping (name, format, url, tags, severity, data_sources)")
        name = _text(entry.get("name"), f"{where}.name") or f"route {i + 1}"
        where = f"alert route {name!r}"
        fmt = str(entry.get("format") or "slack").lower()
        if fmt not in FORMATS:
            raise ValueError(f"{where}: format must be one of {', '.join(FORMATS)}, got {entry.get('format')!r}")
        url = _url(entry, where, env, required=fmt != "email")
        if fmt == "email" and url is not None:
            raise ValueError(f"{where}: an email route has no url (SMTP: the DATAPLEX_DQ_SMTP_* variables)")
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError(f"{where}: url must be an http(s) URL, got {url!r}")
        to = _names(entry.get("to"), f"{where}: to")
        if to and fmt != "email":
            raise ValueError(f"{where}: `to` is for format email only")
        bad = [a for a in to if not is_address(a)]
        if bad:
            raise ValueError(f"{where}: to must be email addresses, got {bad[0]!r}")
        allow_http = entry.get("allow_http", False)
        if not isinstance(allow_http, bool):
            raise ValueError(f"{where}: allow_http must be true or false, got {allow_http!r}")
        severities = tuple(s.lower() for s in _names(entry.get("severity"), f"{where}: severity"))
        if set(severities) - set(SEVERITIES):
            raise ValueError(f"{where}: severity must be error and/or warn, got {entry.get('severity')!r}")
        routes.append(
            AlertRoute(
                name=name,
                format=fmt,
                url=url,
                allow_http=allow_http,
                to=to,
                tags=_names(entry.get("tags"), f"{where}: tags"),
                severities=severities,
                data_sources=_names(entry.get("data_sources"), f"{where}: data_sources"),
            )
        )
    return tuple(routes)


def _url(entry: Mapping[str, Any], where: str, env: Mapping[str, str], *, required: bool) -> str | None:
    """A route's `url`, or the environment variable `url_env` names (a webhook URL is a secret; the report reads
    the project's vars as written: a `{{ env_var(...) }}` in them is not rendered)."""
    name = _text(entry.get("url_env"), f"{where}: url_env")
    if name is not None:
        if entry.get("url") is not None:
            raise ValueError(f"{where}: give url or url_env, not both")
        value = env.get(name, "").strip()
        if not value:
            raise ValueError(f"{where}: the environment variable {name} (url_env) is not set")
        return value
    url = _text(entry.get("url"), f"{where}: url", required=required and name is None)
    if url is not None and "{{" in url:
        raise ValueError(f"{where}: url is not rendered in vars; name its environment variable in url_env")
    return url


def parse_interval(value: Any, where: str) -> timedelta | None:
    """`alert_suppression_interval`: "30m", "12h", "7d" (also s), or None / "none": never re-alert while a rule
    keeps failing. ValueError naming ``where`` otherwise."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    match = _INTERVAL.match(str(value)) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"{where}: alert_suppression_interval must be like 30m, 12h or 7d (or none), got {value!r}")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def rule_alert_setting(source_settings: Mapping[str, Any], rule_name: str, key: str) -> Any:
    """The per-rule override `meta.dataplex_dq.rule_alerts.<rule name>.<key>` of a data source."""
    per_rule = source_settings.get("rule_alerts")
    entry = per_rule.get(rule_name) if isinstance(per_rule, Mapping) else None
    return entry.get(key) if isinstance(entry, Mapping) else None


def rule_owners(
    source_settings: Mapping[str, Any], source_owners: Sequence[str], test_owners: Sequence[str], rule_name: str
) -> tuple[str, ...]:
    """A rule's owner names: the per-rule override, else the test's, else the data source's (or its group's)."""
    override = rule_alert_setting(source_settings, rule_name, "owner")
    if override:
        return _names(override, f"meta.dataplex_dq.rule_alerts.{rule_name}.owner")
    return tuple(test_owners) or tuple(source_owners)
