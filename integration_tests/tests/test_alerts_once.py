"""Alerts (issue 34 items 1-3, docs/SEMANTICS.md §11 "Alerts"): owners from dbt's conventions, routes by tag,
severity and data source, Slack / Teams / JSON payloads, and "alert once" with its state in the warehouse, on
DuckDB, PostgreSQL and the BigQuery emulator, on the example project integration_tests/alerts_example/ (its webhook
URLs from the environment, pointed at 127.0.0.1). One build sequence per target, three `dataplex-dq build` runs:

  run 1  orders-amount-range fails (owner alice, model meta.owner; tag finance, severity error)
         customers-id-present fails (severity warn; owner bob, the owner of the customers seed's dbt group)
         -> slack (severity error): 1 message, orders only, mentioning <@U0ALICE>;
            teams (tag finance): 1 message, orders only, mentioning alice by her Teams id;
            json (no filter): 1 message, both rules, owners alice and bob, with failing rows;
  run 2  the same failures -> nothing sent (suppressed, the reason in the console and alerts.json);
  run 3  orders fixed -> one recovery to each of the three; customers still failing -> nothing for it.
The receivers are one HTTP server on 127.0.0.1 started by the test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from conftest import drop_target_schemas, require_target
from dbt_harness import REPO_ROOT, TARGETS, JsonReceiver, target_env, write_project

EXAMPLE = REPO_ROOT / "integration_tests" / "alerts_example"  # the example project of docs/SEMANTICS.md §11


def _example_files() -> dict[str, str]:
    """The example project's files, its profile replaced by the integration tests' one."""
    files = {
        str(p.relative_to(EXAMPLE)): p.read_text()
        for p in [EXAMPLE / "dbt_project.yml", *EXAMPLE.glob("models/*.yml"), *EXAMPLE.glob("seeds/*.csv")]
    }
    files["dbt_project.yml"] = files["dbt_project.yml"].replace(
        "profile: alerts_example", "profile: dataplex_dq_integration_tests"
    )
    return files


@pytest.fixture(scope="module", params=TARGETS)
def runs(request, tmp_path_factory) -> Iterator[dict[str, Any]]:
    target = request.param
    require_target(target)
    tmp = tmp_path_factory.mktemp(f"alerts_{target}")
    receiver = JsonReceiver()
    env = {
        **target_env(target, tmp, "alerts"),
        "DQ_SLACK_WEBHOOK_URL": f"{receiver.base}/slack",
        "DQ_TEAMS_WEBHOOK_URL": f"{receiver.base}/teams",
        "DQ_JSON_WEBHOOK_URL": f"{receiver.base}/json",
    }
    p = write_project(tmp, "alerts_example", _example_files(), env=env, target=None if target == "duckdb" else target)
    args = ["--target", target] if target != "duckdb" else []
    out: dict[str, Any] = {"target": target, "project": p}
    try:
        for run in (1, 2, 3):
            if run == 3:
                (p.project_dir / "seeds" / "orders.csv").write_text("id,amount\n1,10\n2,50\n3,20\n")
            proc = p.dataplex_dq("build", *args)
            alerts_file = p.target_path / "dataplex_dq" / "alerts.json"
            out[run] = {
                "proc": proc,
                "posts": receiver.take(),
                "decisions": json.loads(alerts_file.read_text()) if alerts_file.exists() else None,
            }
        with p.db() as db:
            out["state"] = db.query(
                f"select alert_key, state, changed_at, alerted_at from {p.relation('dataplex_dq_alert_state')}"
            )
        yield out
    finally:
        receiver.stop()
        drop_target_schemas(target, env)


def _text(proc: Any) -> str:
    return proc.stdout + proc.stderr


def test_first_failure_one_message_per_route_mentioning_the_owner(runs):
    first = runs[1]
    assert "Traceback" not in _text(first["proc"]), _text(first["proc"])
    posts = first["posts"]
    assert sorted(posts) == ["json", "slack", "teams"], (posts, _text(first["proc"]))
    assert [len(v) for v in posts.values()] == [1, 1, 1]

    slack = posts["slack"][0]
    sections = [b["text"]["text"] for b in slack["blocks"] if b["type"] == "section"]
    assert len(sections) == 1  # the warn rule is not routed to slack (severity: error)
    assert "*orders-amount-range*" in sections[0] and "<@U0ALICE>" in sections[0]
    assert "2 of 3 rows passed" in sections[0]
    assert "500" in sections[0]  # the failing row, in the section's code block
    assert slack["blocks"][0]["type"] == "header" and "1 rule failing" in slack["blocks"][0]["text"]["text"]

    teams = posts["teams"][0]
    jsonschema.validate(
        teams, json.loads((REPO_ROOT / "python" / "tests" / "data" / "teams_alert_message.schema.json").read_text())
    )
    card = teams["attachments"][0]["content"]
    assert teams["type"] == "message"
    assert teams["attachments"][0]["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.5"
    assert card["msteams"]["entities"] == [
        {"type": "mention", "text": "<at>Alice A</at>", "mentioned": {"id": "alice@example.com", "name": "Alice A"}}
    ]
    texts = json.dumps(card["body"])
    assert "<at>Alice A</at>" in texts and "customers" not in texts

    body = posts["json"][0]
    schema = json.loads((REPO_ROOT / "schemas" / "alert.schema.json").read_text())
    jsonschema.validate(body, schema)
    by_rule = {a["rule"]["name"]: a for a in body["alerts"]}
    assert sorted(by_rule) == ["customers-id-present", "orders-amount-range"]
    orders, customers = by_rule["orders-amount-range"], by_rule["customers-id-present"]
    assert orders["event"] == "NEW_FAILURE" and orders["severity"] == "ERROR" and orders["tags"] == ["finance"]
    assert [o["name"] for o in orders["owners"]] == ["alice"] and orders["owners"][0]["slack"] == "U0ALICE"
    assert [o["name"] for o in customers["owners"]] == ["bob"]  # the group's owner
    assert customers["severity"] == "WARN"
    assert orders["sample"]["rows"] and any("500" in row for row in orders["sample"]["rows"])


def test_still_failing_sends_nothing_and_says_why(runs):
    second = runs[2]
    assert second["posts"] == {}, second["posts"]
    decisions = {d["rule"]: d for d in second["decisions"]["alerts"]}
    assert {d["sent"] for d in decisions.values()} == {False}
    assert "still failing since" in decisions["orders-amount-range"]["reason"]
    assert "suppressed until it recovers" in decisions["orders-amount-range"]["reason"]
    out = " ".join(_text(second["proc"]).split())
    assert "rule 'orders-amount-range': alert not sent: still failing since" in out, out


def test_recovery_is_sent_once_to_each_route(runs):
    third = runs[3]
    posts = third["posts"]
    assert sorted(posts) == ["json", "slack", "teams"], (posts, _text(third["proc"]))
    body = posts["json"][0]
    jsonschema.validate(body, json.loads((REPO_ROOT / "schemas" / "alert.schema.json").read_text()))
    assert [(a["rule"]["name"], a["event"], a["rule"]["status"]) for a in body["alerts"]] == [
        ("orders-amount-range", "RECOVERED", "PASSED")
    ]
    assert "recovered" in json.dumps(posts["slack"][0]["blocks"])
    decisions = {d["rule"]: d for d in third["decisions"]["alerts"]}
    assert decisions["orders-amount-range"]["sent"] is True and decisions["customers-id-present"]["sent"] is False


def test_state_is_kept_in_the_warehouse(runs):
    latest: dict[str, dict[str, Any]] = {}
    for row in sorted(runs["state"], key=lambda r: (r["alert_key"], r["alerted_at"])):
        latest[row["alert_key"]] = row
    # run 1 wrote one row per rule, run 2 none, run 3 the recovery
    assert len(runs["state"]) == 3, runs["state"]
    assert latest["seed.alerts_example.orders/orders-amount-range"]["state"] == "PASSING"
    assert latest["seed.alerts_example.customers/customers-id-present"]["state"] == "FAILING"
