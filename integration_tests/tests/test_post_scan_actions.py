"""Post-scan actions (docs/SEMANTICS.md §11, §14) end to end on DuckDB and PostgreSQL: notifications through a real SMTP
server (aiosmtpd) and a Slack-compatible webhook (http.server), both on 127.0.0.1 and started by the
test; the extra export to `bigquery_export.results_table`; `post_scan_actions_result`; catalog
publishing in the table comment next to dbt's persist_docs text; and failures of the SMTP server
(unreachable, rejected login) that never lose results.

Data sources (seeds, plus one view):
  orders     1 of 2 rules fails (score 50): score_threshold_trigger 80 fires -> one email and one
             webhook post; bigquery_export to dq_extra_results; catalog publishing on a table whose
             comment dbt wrote (persist_docs);
  customers  all pass: job_end_trigger fires -> one email;
  payments   a rule errors in the warehouse: job_failure_trigger fires -> one email;
  quiet      all pass, score_threshold_trigger 10 -> no trigger fires, no message;
  orders_v   a view with catalog publishing -> SKIPPED with the reason.
BigQuery: the emulator keeps no table labels, so the BigQuery publishing statement is rendered and
checked against a golden file and parsed with sqlglot (test_bigquery_catalog_sql_golden)."""

from __future__ import annotations

import email
import json
import re
import socket
import textwrap
import threading
from email import policy
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from conftest import drop_target_schemas, require_target, target_env
from dbt_harness import INTEGRATION_DIR, Db, DbtProject, parse_bigquery, rendered, run_dataplex_dq
from test_bigquery_sql import _check_golden

SCHEMA = """\
version: 2
seeds:
  - name: orders
    description: Orders table.
    config:
      persist_docs: {relation: true}
      meta:
        dataplex_dq:
          catalog_publishing_enabled: true
          post_scan_actions:
            bigquery_export: {results_table: dq_extra_results}
            notification_report:
              recipients: {emails: [owner@example.com, team@example.com]}
              score_threshold_trigger: {score_threshold: 80}
              webhook: {url: "WEBHOOK_URL"}
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation: {name: orders-amount-not-null, config: {severity: warn}}
          - dataplex_dq.range_expectation:
              name: orders-amount-range
              arguments: {max_value: 100, dimension: VALIDITY}
              config: {severity: warn}
  - name: customers
    data_tests:
      - dataplex_dq.data_quality_scan:
          arguments:
            postScanActions:
              notificationReport:
                recipients: {emails: [crm@example.com]}
                jobEndTrigger: {}
            rules:
              - {name: customers-id-not-null, column: id, nonNullExpectation: {}}
  - name: payments
    config:
      meta:
        dataplex_dq:
          post_scan_actions:
            notification_report:
              recipients: {emails: [payments@example.com]}
              job_failure_trigger: {}
    data_tests:
      - dataplex_dq.sql_assertion:
          name: payments-broken
          arguments: {sql_statement: "select no_such_column from ${data()}"}
  - name: quiet
    config:
      meta:
        dataplex_dq:
          post_scan_actions:
            notification_report:
              recipients: {emails: [quiet@example.com]}
              score_threshold_trigger: {score_threshold: 10}
    data_tests:
      - dataplex_dq.table_condition_expectation: {name: quiet-has-rows, arguments: {sql_expression: "count(*) > 0"}}
models:
  - name: orders_v
    config:
      meta:
        dataplex_dq: {catalog_publishing_enabled: true}
    data_tests:
      - dataplex_dq.table_condition_expectation: {name: orders-v-has-rows, arguments: {sql_expression: "count(*) > 0"}}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Smtp:
    """An aiosmtpd server on 127.0.0.1 keeping every message it receives."""

    def __init__(self, reject_login: bool = False):
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult

        self.messages: list[tuple[str, list[str], email.message.EmailMessage]] = []
        outer = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                outer.messages.append(
                    (
                        envelope.mail_from,
                        list(envelope.rcpt_tos),
                        email.message_from_bytes(envelope.original_content, policy=policy.default),
                    )
                )
                return "250 OK"

        kwargs = {}
        if reject_login:
            # handled=False: aiosmtpd answers the refusal itself (535)
            kwargs = {"authenticator": lambda *a: AuthResult(success=False, handled=False), "auth_require_tls": False}
        self.port = _free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, **kwargs)
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


class _Webhook:
    def __init__(self):
        self.posts: list[dict] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.posts.append(json.loads(body))
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *a):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/dq"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _comment(db: Db, target: str, schema: str, table: str) -> str | None:
    if target == "duckdb":
        rows = db.query(
            f"select comment from duckdb_tables() where schema_name = '{schema}' and table_name = '{table}'"
        )
    else:
        rows = db.query(f"select obj_description('\"{schema}\".\"{table}\"'::regclass, 'pg_class') as comment")
    return rows[0]["comment"] if rows else None


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def actions_run(request, tmp_path_factory):
    target = request.param
    require_target(target)
    tmp = tmp_path_factory.mktemp(f"actions_{target}")
    proj = tmp / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    hook = _Webhook()
    smtp = _Smtp()
    (proj / "models" / "schema.yml").write_text(SCHEMA.replace("WEBHOOK_URL", hook.url))
    (proj / "models" / "orders_v.sql").write_text(
        "{{ config(materialized='view') }}\nselect * from {{ ref('orders') }}\n"
    )
    (proj / "seeds" / "orders.csv").write_text("id,amount\n1,10\n2,500\n3,20\n")
    (proj / "seeds" / "customers.csv").write_text("id,name\n1,a\n2,b\n")
    (proj / "seeds" / "payments.csv").write_text("id,amount\n1,5\n")
    (proj / "seeds" / "quiet.csv").write_text("id\n1\n")
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: actions
        version: "1.0"
        config-version: 2
        profile: dataplex_dq_integration_tests
        seeds:
          actions:
            +column_types: {id: integer, amount: integer}
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    env = target_env(target, tmp, "dq_actions")
    smtp_env = {
        "DATAPLEX_DQ_SMTP_HOST": "127.0.0.1",
        "DATAPLEX_DQ_SMTP_PORT": str(smtp.port),
        "DATAPLEX_DQ_SMTP_STARTTLS": "false",
        "DATAPLEX_DQ_SMTP_SENDER": "dq-bot@example.com",
    }
    project = DbtProject(proj, INTEGRATION_DIR, tmp / "target", env, target=target)
    assert project.run("deps").returncode == 0
    common = [
        "--project-dir",
        str(proj),
        "--profiles-dir",
        str(INTEGRATION_DIR),
        "--target",
        target,
        "--target-path",
        str(tmp / "target"),
    ]
    run_env = {**env, **smtp_env, "DBT_LOG_PATH": str(tmp / "logs")}
    try:
        build = run_dataplex_dq(
            "build", "--select", "package:actions", "dataplex_dq_results", *common, env=run_env, cwd=proj
        )
        invocation = json.loads((tmp / "target" / "run_results.json").read_text())["metadata"]["invocation_id"]
        state = {
            "target": target,
            "env": env,
            "tmp": tmp,
            "proj": proj,
            "common": common,
            "run_env": run_env,
            "build": build,
            "invocation": invocation,
            "messages": list(smtp.messages),
            "posts": list(hook.posts),
            "smtp": smtp,
            "hook": hook,
        }
        schema = {"duckdb": "main", "postgres": env.get("DBT_PG_SCHEMA")}[target]
        state["schema"] = schema
        with Db(target, env) as db:
            state["rows"] = db.query(
                f'select * from "{schema}"."dataplex_dq_results" where dbt_invocation_id = \'{invocation}\''
            )
            state["extra_rows"] = db.query(f'select * from "{schema}"."dq_extra_results"')
            state["comment"] = _comment(db, target, schema, "orders")
        state["protos"] = {
            p.stem.split(".")[-1]: json.loads(p.read_text()) for p in (tmp / "target" / "dataplex_dq").glob("*.json")
        }
        # a second report of the same invocation: the marked comment line is replaced, not added
        smtp.messages.clear()
        hook.posts.clear()
        state["rereport"] = run_dataplex_dq("report", *common, env=run_env, cwd=proj)
        with Db(target, env) as db:
            state["comment_again"] = _comment(db, target, schema, "orders")
        yield state
    finally:
        smtp.stop()
        hook.stop()
        drop_target_schemas(target, env)


def test_one_message_per_trigger_and_none_without(actions_run):
    s = actions_run
    assert s["build"].returncode == 2, s["build"].stdout[-3000:]  # payments-broken errored
    by_rcpt = {tuple(rcpts): (sender, msg) for sender, rcpts, msg in s["messages"]}
    assert sorted(by_rcpt) == [
        ("crm@example.com",),
        ("owner@example.com", "team@example.com"),
        ("payments@example.com",),
    ]
    assert len(s["messages"]) == 3  # none for `quiet`: its threshold (10) is below its score (100)
    sender, orders = by_rcpt[("owner@example.com", "team@example.com")]
    assert sender == "dq-bot@example.com"
    assert orders["Subject"] == "[dataplex-dq] seed 'orders': score 50.00 (data quality below 100%)"
    text = orders.get_body(("plain",)).get_content()
    html = orders.get_body(("html",)).get_content()
    assert "Data source: seed 'orders' (seed.actions.orders)" in text
    assert "Score: 50.00  passed: no  rules passed: 1/2" in text
    assert "Dimension scores: VALIDITY 0.00" in text
    assert "- orders-amount-range (column amount, VALIDITY): 2 of 3 rows passed, 0 null" in text
    assert "  failing rows: select * from" in text and "amount" in text
    assert "Triggered by: score_threshold_trigger" in text
    assert f"dbt invocation {s['invocation']}" in text and "project actions, target " + s["target"] in text
    assert "<h2>seed &#x27;orders&#x27;: score 50.00</h2>" in html and "orders-amount-range" in html
    _, customers = by_rcpt[("crm@example.com",)]
    assert "Triggered by: job_end_trigger" in customers.get_body(("plain",)).get_content()
    assert customers["Subject"] == "[dataplex-dq] seed 'customers': score 100.00 (PASSED)"
    _, payments = by_rcpt[("payments@example.com",)]
    body = payments.get_body(("plain",)).get_content()
    assert payments["Subject"].startswith("[dataplex-dq] seed 'payments': score no rules evaluated (FAILED)")
    assert "Triggered by: job_failure_trigger" in body and "- payments-broken: error:" in body
    # the webhook: one Slack-compatible post, for orders only
    assert len(s["posts"]) == 1
    post = s["posts"][0]
    assert post["text"].startswith("[dataplex-dq] seed 'orders': score 50.00")
    assert post["blocks"][0]["type"] == "header" and "orders-amount-range" in post["blocks"][1]["text"]["text"]
    assert (
        "seed 'orders': notification succeeded: sent (score_threshold_trigger): email to owner@example.com, "
        "team@example.com and webhook" in s["build"].stdout
    )


def test_notification_outcome_in_results_table(actions_run):
    rows = {r["rule_name"]: r for r in actions_run["rows"]}
    orders = _json(rows["orders-amount-range"]["job_notification_result"])
    assert orders == {
        "state": "SUCCEEDED",
        "message": "sent (score_threshold_trigger): email to owner@example.com, team@example.com and webhook",
        "triggers": ["score_threshold_trigger"],
        "emails": ["owner@example.com", "team@example.com"],
        "webhook": True,
    }
    assert _json(rows["quiet-has-rows"]["job_notification_result"])["state"] == "SKIPPED"
    assert _json(rows["quiet-has-rows"]["job_notification_result"])["message"] == "no trigger fired"
    assert rows["orders-v-has-rows"]["job_notification_result"] is None  # no notification_report
    assert len(actions_run["rows"]) == 6  # written again with the outcome, never twice


def test_extra_export_and_post_scan_actions_result(actions_run):
    s = actions_run
    extra = s["extra_rows"]
    assert sorted(r["rule_name"] for r in extra) == ["orders-amount-not-null", "orders-amount-range"]
    assert all(r["dbt_invocation_id"] == s["invocation"] for r in extra)
    out = s["build"].stdout
    assert "Read 6 recorded rows of" in out and "dataplex_dq_results" in out
    assert re.search(r'Exported 2 rows to \S*dq_extra_results"? \(bigquery_export\)\.', out), out[-2000:]
    orders = s["protos"]["orders"]["postScanActionsResult"]["bigqueryExportResult"]
    assert (
        orders["state"] == "SUCCEEDED"
        and orders["message"].startswith("exported 2 rows to ")
        and "dq_extra_results" in orders["message"]
    )
    customers = s["protos"]["customers"]["postScanActionsResult"]["bigqueryExportResult"]
    assert customers == {"state": "SKIPPED", "message": "no post_scan_actions.bigquery_export.results_table is set"}


def test_catalog_publishing_keeps_persist_docs_text(actions_run):
    s = actions_run
    rows = {r["rule_name"]: r for r in s["rows"]}
    job = rows["orders-amount-range"]["data_quality_job_id"]
    lines = s["comment"].splitlines()
    assert lines[0] == "Orders table."  # dbt's persist_docs text survives
    assert len(lines) == 2 and lines[1].startswith(f"[dataplex-dq] data quality score 50.00, passed false, job {job}, ")
    assert s["protos"]["orders"]["catalogPublishingStatus"] == {"state": "SUCCEEDED"}
    # reported again: the marked line is replaced, the rest kept
    again = s["comment_again"].splitlines()
    assert (
        again[0] == "Orders table."
        and len(again) == 2
        and again[1].startswith("[dataplex-dq] data quality score 50.00")
    )
    # a view cannot carry it: SKIPPED with the reason
    assert s["protos"]["orders_v"]["catalogPublishingStatus"] == {"state": "SKIPPED"}
    assert "model 'orders_v': catalog publishing skipped:" in s["build"].stdout and "is a view" in s["build"].stdout
    assert "catalogPublishingStatus" not in s["protos"]["customers"]


@pytest.mark.parametrize("case", ["unreachable", "rejected_login"])
def test_smtp_failure_keeps_results_and_exits_2(actions_run, case):
    s = actions_run
    # a build of orders alone, rule failures not counted: a clean report exits 0, a failed action 2
    env = dict(s["run_env"])
    server = None
    if case == "unreachable":
        env["DATAPLEX_DQ_SMTP_PORT"] = str(_free_port())
    else:
        server = _Smtp(reject_login=True)
        env.update(
            {
                "DATAPLEX_DQ_SMTP_PORT": str(server.port),
                "DATAPLEX_DQ_SMTP_USER": "dq",
                "DATAPLEX_DQ_SMTP_PASSWORD": "wrong",
            }
        )
    try:
        if "orders_build" not in s:
            s["orders_build"] = run_dataplex_dq(
                "build",
                "--no-fail-on-rule-failure",
                "--select",
                "orders",
                *s["common"],
                env=s["run_env"],
                cwd=s["proj"],
            )
            assert s["orders_build"].returncode == 0, s["orders_build"].stdout[-3000:]
        res = run_dataplex_dq(
            "report", "--resend", "--no-fail-on-rule-failure", *s["common"], env=env, cwd=s["proj"]
        )  # the build sent it once; --resend sends it again
    finally:
        if server is not None:
            assert server.messages == []
            server.stop()
    assert res.returncode == 2, res.stdout[-3000:]
    reason = "ConnectionRefusedError" if case == "unreachable" else "the SMTP server rejected the login (535"
    assert (
        "post-scan action failed: seed 'orders': notification failed: email to owner@example.com, team@example.com "
        "not sent: " in res.stdout
    )
    assert reason in res.stdout
    invocation = json.loads((s["tmp"] / "target" / "run_results.json").read_text())["metadata"]["invocation_id"]
    with Db(s["target"], s["env"]) as db:
        rows = db.query(
            f'select * from "{s["schema"]}"."dataplex_dq_results" where dbt_invocation_id = \'{invocation}\''
        )
    # the export happened, and the failed notification is kept with its reason
    assert sorted(r["rule_name"] for r in rows) == ["orders-amount-not-null", "orders-amount-range"]
    outcome = _json(rows[0]["job_notification_result"])
    assert outcome["state"] == "FAILED" and reason in outcome["message"]
    assert outcome["webhook"] is True  # the webhook still got its message


def test_bigquery_catalog_sql_golden(tmp_path):
    """The emulator keeps no table labels or descriptions set by ALTER TABLE SET OPTIONS, so the BigQuery
    publishing statement is rendered by the package's macro for a BigQuery target and checked: it parses
    as BigQuery SQL (sqlglot) and matches the golden file."""
    require_target("bigquery")
    env = target_env("bigquery", tmp_path, "dq_catalog")
    project = DbtProject(INTEGRATION_DIR, INTEGRATION_DIR, tmp_path / "target", env, target="bigquery")
    assert project.run("deps").returncode == 0
    args = {
        "comment": (
            "Orders table.\n[dataplex-dq] data quality score 66.67, passed false, "
            "job 7c9e6679-7425-40de-944b-e07fc1f90ae7, 2026-01-02 03:04:05 UTC"
        ),
        "labels": {
            "team": "sales",
            "dataplex-dq-score": "66_67",
            "dataplex-dq-passed": "false",
            "dataplex-dq-job": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        },
    }
    res = project.run(
        "run-operation", "render_catalog_sql", "--args", json.dumps(args), "--log-format", "json", check=False
    )
    out = rendered(res.output)
    assert out is not None, res.output[-3000:]
    sql = out["sql"]
    sql = sql.replace(env["DBT_BQ_DATASET"], "dq_it")
    parse_bigquery(sql, "catalog publishing")
    assert sql.startswith("alter table `dq-local`.`dq_it`.`orders` set options (description = ")
    _check_golden(
        "catalog_publish.sql",
        "-- catalog publishing (docs/SEMANTICS.md §14): the labels and the marked description line of a table\n"
        + sql.rstrip()
        + "\n",
    )
