"""Issue 34's "Done when", on the demo (docs/SEMANTICS.md §11 "Alerts", §17 "OpenLineage"): with the owners the demo
declares (demo/models/schema.yml: the group shop_data owned by data-eng, fct_orders' `meta.owner: analytics`, a
test's own `meta.owner` finance / crm-team; demo/dbt_project.yml: `dataplex_dq_owners`), on DuckDB, PostgreSQL and
the BigQuery emulator, one sequence of three `dataplex-dq build` runs per target on a copy of demo/
(dbt_harness.copy_demo) whose dbt_project.yml gets three routes to one receiver on 127.0.0.1 (their URLs in
`url_env` variables) and whose report sends OpenLineage events there too (OPENLINEAGE_URL):

  run 1  the demo as it is: its failing rules (EXPECTED.md) alert once each; the rule followed here is
         order-date-not-in-future (3 orders dated after the snapshot day; owner analytics, fct_orders' meta.owner):
         it is in the one Slack message (route severity: error), the one Teams message (data_sources: fct_orders)
         and the one JSON message (no filter) of the run, each mentioning analytics; every OpenLineage event
         validates against the OpenLineage JSON schemas and carries one assertion per rule of its data source;
  run 2  nothing changed: nothing is sent, alerts.json and the console say why;
  run 3  the three future order dates in seeds/orders.csv set to the snapshot day: one recovery per route, that
         rule only (the other failing rules stay failing and are not sent again).

The demo's models and rules run unchanged on all three warehouses; only the seeds' column types are BigQuery's
names there (string, numeric, int64 instead of varchar, decimal(12,2), integer). The profile is
integration_tests/profiles.yml under the demo's profile name (a fresh DuckDB file / schema / dataset per target)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from test_openlineage import validate_event as validate_openlineage_event

from conftest import drop_target_schemas, require_target
from dbt_harness import INTEGRATION_DIR, REPO_ROOT, TARGETS, DbtProject, JsonReceiver, copy_demo, target_env

RULE = "order-date-not-in-future"
OWNER_SLACK = "<!subteam^S0ANALYTICS>"  # analytics is a Slack user group in demo/dbt_project.yml
OWNER_TEAMS = "<at>Analytics team</at>"
LINEAGE = "api/v1/lineage"
ALERT_SCHEMA = json.loads((REPO_ROOT / "schemas" / "alert.schema.json").read_text())
TEAMS_SCHEMA = json.loads((REPO_ROOT / "python" / "tests" / "data" / "teams_alert_message.schema.json").read_text())

ROUTES = """\
  dataplex_dq_alert_routes:
    - {name: demo-slack, format: slack, url_env: DQ_DEMO_SLACK_URL, severity: error}
    - {name: demo-teams, format: teams, url_env: DQ_DEMO_TEAMS_URL, data_sources: [fct_orders]}
    - {name: demo-json, format: json, url_env: DQ_DEMO_JSON_URL}
"""


def _demo_copy(tmp: Any, target: str, env: dict[str, str]) -> DbtProject:
    demo = copy_demo(tmp)
    profiles = (INTEGRATION_DIR / "profiles.yml").read_text()
    (demo / "profiles.yml").write_text(profiles.replace("dataplex_dq_integration_tests:", "dataplex_dq_demo:", 1))
    config = demo / "dbt_project.yml"
    text = config.read_text()
    assert text.count("\nvars:\n") == 1 and "dataplex_dq_owners:" in text  # the owners the demo declares
    text = text.replace("\nvars:\n", "\nvars:\n" + ROUTES, 1)
    if target == "bigquery":
        text = re.sub(r"\bvarchar\b", "string", text).replace("decimal(12,2)", "numeric")
        text = re.sub(r": integer\b", ": int64", text)
    config.write_text(text)
    project = DbtProject(demo, demo, tmp / "target", env, target=None if target == "duckdb" else target)
    deps = project.run("deps")
    assert deps.success, deps.output[-3000:]
    return project


def _fix_order_dates(project: DbtProject) -> int:
    """Sets the order dates after the snapshot day (2025-06-30) to that day; returns how many rows changed."""
    path = project.project_dir / "seeds" / "orders.csv"
    lines = path.read_text().splitlines(keepends=True)
    changed = 0
    for i, line in enumerate(lines[1:], start=1):
        cells = line.split(",")
        if cells[2] > "2025-06-30":
            cells[2] = "2025-06-30"
            lines[i] = ",".join(cells)
            changed += 1
    path.write_text("".join(lines))
    return changed


@pytest.fixture(scope="module", params=TARGETS)
def runs(request, tmp_path_factory) -> Iterator[dict[str, Any]]:
    target = request.param
    require_target(target)
    tmp = tmp_path_factory.mktemp(f"demo_alerts_{target}")
    receiver = JsonReceiver()
    env = {
        **target_env(target, tmp, "demo_alerts"),
        "DQ_DEMO_SLACK_URL": f"{receiver.base}/slack",
        "DQ_DEMO_TEAMS_URL": f"{receiver.base}/teams",
        "DQ_DEMO_JSON_URL": f"{receiver.base}/json",
        "OPENLINEAGE_URL": receiver.base,
        "OPENLINEAGE_NAMESPACE": "demo",
    }
    args = ["--target", target] if target != "duckdb" else []
    out: dict[str, Any] = {"target": target}
    try:
        project = _demo_copy(tmp, target, env)
        out["project"] = project
        for run in (1, 2, 3):
            if run == 3:
                out["fixed_rows"] = _fix_order_dates(project)
            proc = project.dataplex_dq("build", *args)
            alerts_file = project.target_path / "dataplex_dq" / "alerts.json"
            out[run] = {
                "proc": proc,
                "posts": receiver.take(),
                "decisions": json.loads(alerts_file.read_text()) if alerts_file.exists() else None,
                "manifest": json.loads((project.target_path / "manifest.json").read_text()),
            }
        yield out
    finally:
        receiver.stop()
        drop_target_schemas(target, env)


def _text(proc: Any) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


def _alerts(posts: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {k: v for k, v in posts.items() if k != LINEAGE}


def _demo_rules(manifest: dict[str, Any]) -> dict[str, set[str]]:
    """The rule names of every data source of the demo, from its manifest."""
    rules: dict[str, set[str]] = {}
    for node in manifest["nodes"].values():
        meta = node.get("test_metadata") or {}
        if node["resource_type"] == "test" and meta.get("namespace") == "dataplex_dq":
            source = manifest["nodes"][node["attached_node"]]
            rules.setdefault(source["alias"], set()).add(node["name"])
    return rules


def _slack_sections(message: dict[str, Any]) -> list[str]:
    return [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]


def test_the_demo_fails_as_expected_and_reports(runs):
    first = runs[1]["proc"]
    assert "Traceback" not in _text(first), _text(first)[-3000:]
    assert first.returncode == 1, _text(first)[-3000:]  # the demo's failing rules, as in EXPECTED.md
    assert "Rules: 19 passed, 3 failed, 2 warned, 0 errored, 0 skipped, 1 suspended." in _text(first), _text(first)


def test_first_failure_one_message_per_route_mentioning_the_owner(runs):
    posts = _alerts(runs[1]["posts"])
    assert sorted(posts) == ["json", "slack", "teams"], (posts, _text(runs[1]["proc"])[-3000:])
    assert [len(v) for v in posts.values()] == [1, 1, 1]

    # Slack (severity: error): the three failing error rules of fct_orders, each with its owner
    slack = posts["slack"][0]
    sections = {s.split("*")[1]: s for s in _slack_sections(slack) if s.startswith("*")}
    assert sorted(sections) == ["order-amount-max", "order-date-not-in-future", "order-paid-in-full"], slack
    assert OWNER_SLACK in sections[RULE] and "2997 of 3000 rows passed" in sections[RULE], sections[RULE]
    assert "<@U0FINANCE>" in sections["order-paid-in-full"]  # the test's meta.owner wins over the model's
    assert OWNER_SLACK not in sections["order-paid-in-full"]
    assert "2205-06-14" in sections[RULE]  # a failing row of the sample

    # Teams (data_sources: fct_orders): an Adaptive Card mentioning analytics and finance
    teams = posts["teams"][0]
    jsonschema.validate(teams, TEAMS_SCHEMA)
    card = teams["attachments"][0]["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.5"
    mentions = {e["mentioned"]["id"]: e["text"] for e in card["msteams"]["entities"]}
    assert mentions == {"analytics@example.com": OWNER_TEAMS, "finance@example.com": "<at>Finance</at>"}
    body = json.dumps(card["body"])
    assert RULE in body and OWNER_TEAMS in body and "stg_customers" not in body

    # JSON (no filter): every failing rule of the demo, its owners by every way dbt declares them
    message = posts["json"][0]
    jsonschema.validate(message, ALERT_SCHEMA)
    by_rule = {a["rule"]["name"]: a for a in message["alerts"]}
    assert sorted(by_rule) == [
        "customer-email-unique",
        "order-amount-max",
        "order-date-not-in-future",
        "order-paid-in-full",
        "orders-have-customers",
    ]
    assert {k: [o["name"] for o in a["owners"]] for k, a in by_rule.items()} == {
        "customer-email-unique": ["crm-team"],  # the test's meta.owner, not in dataplex_dq_owners
        "order-amount-max": ["analytics"],  # fct_orders' meta.owner
        "order-date-not-in-future": ["analytics"],
        "order-paid-in-full": ["finance"],  # the test's meta.owner
        "orders-have-customers": ["data-eng"],  # the owner of stg_orders' group shop_data
    }
    alert = by_rule[RULE]
    assert alert["event"] == "NEW_FAILURE" and alert["severity"] == "ERROR" and alert["rule"]["status"] == "FAILED"
    assert alert["owners"][0]["slack"] == "S0ANALYTICS" and alert["owners"][0]["email"] == "analytics@example.com"
    assert len(alert["sample"]["rows"]) == 3 and any("2205-06-14" in json.dumps(r) for r in alert["sample"]["rows"])
    assert by_rule["customer-email-unique"]["severity"] == "WARN"
    out = _text(runs[1]["proc"])
    assert f"rule '{RULE}': alert sent to demo-slack, demo-teams, demo-json: new failure" in out, out[-3000:]


def test_openlineage_events_validate_with_one_assertion_per_rule(runs):
    events = runs[1]["posts"].get(LINEAGE, [])
    rules = _demo_rules(runs[1]["manifest"])
    assert sorted(rules) == ["fct_orders", "stg_customers", "stg_orders", "stg_payments"]
    by_source = {}
    for event in events:
        validate_openlineage_event(event)
        (dataset,) = event["inputs"]
        by_source[dataset["name"].rsplit(".", 1)[-1]] = event
    assert sorted(by_source) == sorted(rules) and len(events) == len(rules), [e["inputs"] for e in events]
    for name, event in by_source.items():
        assertions = event["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]
        assert sorted(a["assertion"] for a in assertions) == sorted(rules[name]), name  # one per rule, no other
    fct = {
        a["assertion"]: a
        for a in by_source["fct_orders"]["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]
    }
    assert fct[RULE]["success"] is False and fct[RULE]["column"] == "order_date" and fct[RULE]["severity"] == "error"
    assert fct["fct-order-id-unique"]["success"] is True
    assert by_source["fct_orders"]["eventType"] == "FAIL" and by_source["stg_payments"]["eventType"] == "COMPLETE"
    assert by_source["fct_orders"]["inputs"][0]["facets"]["dataQualityMetrics"]["rowCount"] == 3000


def test_still_failing_sends_nothing_and_says_why(runs):
    second = runs[2]
    assert _alerts(second["posts"]) == {}, second["posts"]
    decisions = {d["rule"]: d for d in second["decisions"]["alerts"]}
    assert len(decisions) == 5 and {d["sent"] for d in decisions.values()} == {False}
    assert "still failing since" in decisions[RULE]["reason"], decisions[RULE]
    out = _text(second["proc"])
    assert f"rule '{RULE}': alert not sent: still failing since" in out, out[-3000:]
    assert "suppressed until it recovers" in out


def test_recovery_is_sent_once_to_each_route(runs):
    assert runs["fixed_rows"] == 3
    posts = _alerts(runs[3]["posts"])
    assert sorted(posts) == ["json", "slack", "teams"], (posts, _text(runs[3]["proc"])[-3000:])
    assert [len(v) for v in posts.values()] == [1, 1, 1]
    message = posts["json"][0]
    jsonschema.validate(message, ALERT_SCHEMA)
    assert [(a["rule"]["name"], a["event"], a["rule"]["status"]) for a in message["alerts"]] == [
        (RULE, "RECOVERED", "PASSED")
    ]
    assert [o["name"] for o in message["alerts"][0]["owners"]] == ["analytics"]
    (section,) = [s for s in _slack_sections(posts["slack"][0]) if s.startswith("*")]
    assert RULE in section and "recovered" in json.dumps(posts["slack"][0]["blocks"])
    jsonschema.validate(posts["teams"][0], TEAMS_SCHEMA)
    card = json.dumps(posts["teams"][0]["attachments"][0]["content"]["body"])
    assert RULE in card and "order-amount-max" not in card
    decisions = {d["rule"]: d for d in runs[3]["decisions"]["alerts"]}
    assert decisions[RULE]["sent"] is True
    assert [r for r, d in decisions.items() if d["sent"]] == [RULE]  # the rules still failing: not again
    lineage = [e for e in runs[3]["posts"].get(LINEAGE, []) if e["inputs"][0]["name"].endswith(".fct_orders")]
    (event,) = lineage
    validate_openlineage_event(event)
    assertions = {a["assertion"]: a for a in event["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]}
    assert assertions[RULE]["success"] is True and assertions["order-amount-max"]["success"] is False
