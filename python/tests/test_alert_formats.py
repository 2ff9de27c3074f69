"""Alerts (issue 34 items 1-3): owners from dbt's manifest, the vars' owners and routes, the alert-once decisions,
and the three payloads (Slack Block Kit, Teams Adaptive Card, the JSON schema) with their limits and escaping."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from payloads import PAYLOADS
from slack_sdk.models.blocks import Block

from dataplex_dq.outputs.alert_formats import NEW_FAILURE, RECOVERED, STILL_FAILING, Alert, AlertItem, AlertSample
from dataplex_dq.outputs.alert_formats.json_alert import JsonAlert
from dataplex_dq.outputs.alert_formats.slack import MAX_BLOCKS, MAX_SECTION, SlackAlert
from dataplex_dq.outputs.alert_formats.teams import MAX_BYTES, TeamsAlert, size
from dataplex_dq.outputs.alert_state import FAILING, PASSING, Previous, decide, state_of
from dataplex_dq.outputs.owners import AlertSettings, Owner, parse_interval, rule_owners
from dataplex_dq.record.artifacts import manifest_rules, owners_of

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "alert.schema.json").read_text())
# the Workflows webhook's message and the Adaptive Card 1.5 elements the Teams format uses (python/tests/data/)
TEAMS_SHAPE = json.loads((Path(__file__).parent / "data" / "teams_alert_message.schema.json").read_text())
ALICE = Owner("alice", slack="U0ALICE", teams_id="alice@example.com", teams_name="Alice A", email="alice@example.com")
TEAM = Owner("data", slack="S0DATA")


def item(name: str = "orders-amount-range", event: str = NEW_FAILURE, **kw: Any) -> AlertItem:
    base: dict[str, Any] = {
        "event": event,
        "data_source": "seed 'orders'",
        "data_source_id": "seed.p.orders",
        "rule_name": name,
        "status": "PASSED" if event == RECOVERED else "FAILED",
        "column": "amount",
        "summary": "2 of 3 rows passed, 0 null",
        "owners": (ALICE,),
        "sample": AlertSample(("id", "amount"), (("2", "500"),)),
    }
    return AlertItem(**{**base, **kw})


def alert(*items: AlertItem) -> Alert:
    return Alert("r", "inv-1", "proj", "dev", "2026-12-03T10:00:00", tuple(items))


# ------------------------------------------------------------------ owners (item 1)


def test_owner_from_meta_then_group_owner():
    groups = {"group.p.crm": {"name": "crm", "owner": {"name": "bob", "email": "bob@example.com"}}}
    assert owners_of({"config": {"meta": {"owner": "alice"}, "group": "crm"}}, groups) == ("alice",)
    assert owners_of({"meta": {"owner": ["alice", "carol"]}}) == ("alice", "carol")
    assert owners_of({"config": {"group": "crm"}}, groups) == ("bob",)
    assert owners_of({"config": {"group": "crm"}}, {"g": {"name": "crm", "owner": {"email": "x@y.z"}}}) == ("x@y.z",)
    assert owners_of({"config": {}}, groups) == ()


def test_manifest_gives_test_and_source_owners_and_interval():
    manifest = {
        "groups": {"group.p.crm": {"name": "crm", "owner": {"name": "bob"}}},
        "nodes": {
            "test.p.t1": {
                "resource_type": "test",
                "name": "t1",
                "attached_node": "seed.p.orders",
                "test_metadata": {"namespace": "dataplex_dq", "name": "non_null_expectation", "kwargs": {}},
                "config": {"meta": {"owner": "carol", "dataplex_dq": {"alert_suppression_interval": "12h"}}},
            },
            "seed.p.orders": {
                "unique_id": "seed.p.orders",
                "resource_type": "seed",
                "name": "orders",
                "config": {"group": "crm"},
            },
        },
    }
    tests, sources = manifest_rules(manifest)
    assert tests["test.p.t1"].owners == ("carol",)
    assert tests["test.p.t1"].alert_suppression_interval == "12h"
    assert sources["seed.p.orders"].owners == ("bob",)


def test_rule_owner_precedence():
    settings = {"rule_alerts": {"r1": {"owner": "dave"}}}
    assert rule_owners(settings, ("bob",), ("carol",), "r1") == ("dave",)  # the per-rule override
    assert rule_owners(settings, ("bob",), ("carol",), "r2") == ("carol",)  # the test's meta.owner
    assert rule_owners({}, ("bob",), (), "r2") == ("bob",)  # the data source's (or its group's)
    with pytest.raises(ValueError, match=r"meta.dataplex_dq.rule_alerts.r1.owner must be a name or a list of names"):
        rule_owners({"rule_alerts": {"r1": {"owner": {"x": 1}}}}, (), (), "r1")


def test_vars_owners_and_routes():
    s = AlertSettings.from_vars(
        {
            "owners": {"alice": {"slack": "U0ALICE", "teams": {"id": "alice@example.com", "name": "Alice A"}}},
            "routes": [
                {"name": "a", "format": "teams", "url": "https://x.example/h", "tags": ["finance"]},
                {"name": "b", "url": "https://y.example/h", "severity": ["warn"], "data_sources": ["orders"]},
            ],
        }
    )
    assert s.owner("alice").teams_name == "Alice A" and s.owner("nobody") == Owner("nobody")
    a, b = s.routes
    assert (a.format, b.format) == ("teams", "slack")
    assert a.matches(["finance", "x"], "ERROR", "seed.p.orders", "orders")
    assert not a.matches(["crm"], "ERROR", "seed.p.orders", "orders")
    assert b.matches([], "WARN", "seed.p.orders", "orders") and not b.matches([], "ERROR", "seed.p.orders", "orders")
    assert not b.matches([], "WARN", "seed.p.customers", "customers")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"owners": {"a": {"slack": "<!here>"}}}, "dataplex_dq_owners.a.slack must be a Slack user id"),
        ({"routes": [{"name": "x", "format": "discord", "url": "https://h"}]}, "alert route 'x': format must be"),
        ({"routes": [{"name": "x", "url": "ftp://h"}]}, "alert route 'x': url must be an http(s) URL"),
        ({"routes": [{"name": "x", "url": "https://h", "severity": "fatal"}]}, "severity must be error and/or warn"),
        ({"routes": [{"name": "x", "format": "email", "url": "https://h"}]}, "an email route has no url"),
        ({"routes": [{"name": "x", "format": "email", "to": ["a@b.c\nBcc: e@f.g"]}]}, "to must be email addresses"),
    ],
)
def test_malformed_vars_are_one_line_naming_the_entry(value, message):
    with pytest.raises(ValueError) as exc:
        AlertSettings.from_vars(value)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_route_url_from_the_environment():
    route = {"name": "x", "format": "teams", "url_env": "DQ_TEAMS"}
    [r] = AlertSettings.from_vars({"routes": [route]}, {"DQ_TEAMS": "https://teams.example/hook"}).routes
    assert r.url == "https://teams.example/hook"
    with pytest.raises(ValueError, match="alert route 'x': the environment variable DQ_TEAMS \\(url_env\\) is not set"):
        AlertSettings.from_vars({"routes": [route]}, {})
    with pytest.raises(ValueError, match="url is not rendered in vars; name its environment variable in url_env"):
        AlertSettings.from_vars({"routes": [{"name": "x", "url": "{{ env_var('A') }}"}]})


def test_interval():
    assert parse_interval("12h", "w") == timedelta(hours=12)
    assert parse_interval("30m", "w") == timedelta(minutes=30)
    assert parse_interval(None, "w") is None and parse_interval("none", "w") is None
    with pytest.raises(ValueError, match="seed 'orders' rule 'r': alert_suppression_interval must be like"):
        parse_interval("soon", "seed 'orders' rule 'r'")


# ------------------------------------------------------------------ alert once (item 3)

NOW = datetime(2026, 12, 3, 12, 0, 0)


def test_alert_on_new_failure_and_recovery_not_while_failing():
    first = decide(FAILING, None, None, False, NOW)
    assert first is not None and (first.event, first.state, first.changed_at) == (NEW_FAILURE, FAILING, NOW.isoformat())
    failing = Previous(FAILING, "2026-12-03T09:00:00", "2026-12-03T09:00:00")
    again = decide(FAILING, failing, None, False, NOW)
    assert again is not None and again.event is None
    assert "still failing since 2026-12-03T09:00:00" in again.reason and "until it recovers" in again.reason
    back = decide(PASSING, failing, None, False, NOW)
    assert back is not None and back.event == RECOVERED and back.state == PASSING
    assert decide(PASSING, Previous(PASSING, None, None), None, False, NOW) is None
    assert decide(PASSING, None, None, False, NOW) is None
    assert decide(FAILING, Previous(PASSING, "x", "y"), None, False, NOW).event == NEW_FAILURE  # type: ignore[union-attr]


def test_suppression_interval_and_resend():
    failing = Previous(FAILING, "2026-12-03T09:00:00", "2026-12-03T09:00:00")
    early = decide(FAILING, failing, timedelta(hours=4), False, NOW)
    assert early is not None and early.event is None and "until 2026-12-03T13:00:00" in early.reason
    late = decide(FAILING, failing, timedelta(hours=2), False, NOW)
    assert late is not None and late.event == STILL_FAILING and "alert_suppression_interval 2h passed" in late.reason
    assert late.changed_at == "2026-12-03T09:00:00"  # still failing since then
    forced = decide(FAILING, failing, None, True, NOW)
    assert forced is not None and forced.event == STILL_FAILING and "--resend" in forced.reason


def test_statuses_as_states():
    assert [state_of(s) for s in ("FAILED", "ERROR", "PASSED", "SKIPPED", "SUSPENDED", "TRAINING")] == [
        FAILING,
        FAILING,
        PASSING,
        None,
        None,
        None,
    ]


# ------------------------------------------------------------------ the payloads (item 2)


def test_json_payload_validates_against_the_published_schema():
    body = JsonAlert().payload(alert(item(), item("r2", RECOVERED, sample=None, owners=())))
    jsonschema.validate(body, SCHEMA)
    assert body["alerts"][0]["owners"][0] == {
        "name": "alice",
        "slack": "U0ALICE",
        "teams": "alice@example.com",
        "email": "alice@example.com",
    }
    assert body["alerts"][0]["sample"] == {
        "columns": ["id", "amount"],
        "rows": [["2", "500"]],
        "truncated": False,
        "error": None,
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**body, "alerts": [{**body["alerts"][0], "event": "MAYBE"}]}, SCHEMA)


def test_slack_mentions_and_keeps_block_kit_limits():
    body = SlackAlert().payload(alert(item(owners=(ALICE, TEAM)), item("r2", RECOVERED)))
    sections = [b["text"]["text"] for b in body["blocks"] if b["type"] == "section"]
    assert "<@U0ALICE>" in sections[0] and "<!subteam^S0DATA>" in sections[0]
    assert "```" in sections[0] and "500" in sections[0]  # the failing rows
    assert "```" not in sections[1] and "*recovered*" in sections[1]
    for b in body["blocks"]:  # slack-sdk's models check Slack's limits of every block
        Block.parse(b).validate_json()  # type: ignore[union-attr]

    many = SlackAlert().payload(alert(*(item(f"rule-{i}") for i in range(80))))
    assert len(many["blocks"]) == MAX_BLOCKS
    assert "33 more rules not shown (Slack's limit of 50 blocks" in many["blocks"][-2]["text"]["text"]

    wide = AlertSample(tuple(f"c{i}" for i in range(20)), tuple(tuple("x" * 30 for _ in range(20)) for _ in range(10)))
    long_text = SlackAlert().payload(alert(item(sample=wide, summary="y" * 4000)))
    text = long_text["blocks"][1]["text"]["text"]
    assert len(text) <= MAX_SECTION and "truncated: Slack's 3000-character section limit" in text


def test_teams_adaptive_card_mentions_and_size_limit():
    body = TeamsAlert().payload(alert(item(), item("r2", owners=(Owner("nobody"),))))
    jsonschema.validate(body, TEAMS_SHAPE)
    wrong = json.loads(json.dumps(body))
    wrong["attachments"][0]["content"]["body"][0]["color"] = "Loud"  # not a TextBlock color
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, TEAMS_SHAPE)
    attachment = body["attachments"][0]
    assert body["type"] == "message" and attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert (card["type"], card["version"]) == ("AdaptiveCard", "1.5")
    entities = card["msteams"]["entities"]
    assert entities == [
        {"type": "mention", "text": "<at>Alice A</at>", "mentioned": {"id": "alice@example.com", "name": "Alice A"}}
    ]
    texts = [b["text"] for b in card["body"] if b["type"] == "TextBlock"]
    assert any("<at>Alice A</at>" in t for t in texts)  # every entity's text is in the card
    assert any("Owner: nobody" in t for t in texts)  # no Teams id: the name, no mention
    assert [b["type"] for b in card["body"]].count("Table") == 2

    big = AlertSample(tuple(f"c{i}" for i in range(20)), tuple(tuple("v" * 150 for _ in range(20)) for _ in range(10)))
    many = TeamsAlert().payload(alert(*(item(f"rule-{i}", sample=big) for i in range(200))))
    assert size(many) <= MAX_BYTES
    jsonschema.validate(many, TEAMS_SHAPE)
    last = many["attachments"][0]["content"]["body"][-2]["text"]
    assert "more rules not shown (Teams' message limit of about 28 KB)" in last
    texts = [b.get("text", "") for b in many["attachments"][0]["content"]["body"]]
    assert "failing rows left out (Teams' message limit of about 28 KB)" in texts  # a rule shown without its rows
    shown = sum(1 for t in texts if t.startswith("**rule-"))
    assert 2 <= shown < 200 and f"… and {200 - shown} more rules not shown" in last


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=list(PAYLOADS))
def test_hostile_names_are_escaped_in_every_format(payload):
    hostile = item(
        name=payload,
        data_source=payload,
        summary=payload,
        owners=(Owner(payload),),
        sample=AlertSample(("id",), ((payload,),)),
    )
    slack = SlackAlert().payload(alert(hostile))
    dumped = json.dumps(slack)
    assert "<!here>" not in dumped and "<!channel>" not in dumped and "<@U" not in dumped
    for b in slack["blocks"]:
        if b["type"] == "section":
            assert b["text"]["text"].count("```") <= 2  # the sample's own fence, no other
    teams = TeamsAlert().payload(alert(hostile))
    jsonschema.validate(teams, TEAMS_SHAPE)
    card = teams["attachments"][0]["content"]
    assert card["msteams"]["entities"] == []
    assert "<at>" not in json.dumps(card["body"])  # no mention from data
    jsonschema.validate(JsonAlert().payload(alert(hostile)), SCHEMA)
