"""One run, recorded once, read once (issue 29), tried as a user would on DuckDB: a fresh project whose
dbt_project.yml has no hook line, `dbt build`, then `dataplex-dq report` / `build` / `report
--from-results-table`, together:

- a *skipped* anomaly_detection test (its model was skipped) is recorded and reported as SKIPPED, every data
  source is reported, nothing aborts, and the exit code follows dbt's severities;
- a plain `dbt build` and `dataplex-dq build` leave the same rows (the package's hook is the one writer);
- reporting an invocation twice sends its webhook once (`--resend` sends it again) and removes the
  previous HTML report when none is asked for;
- with the hook switched off (`dataplex_dq_on_run_end: false`) the report records the run itself, through the
  same macro, with the rows the hook would have written;
- a project that still lists `on_run_end(results)` itself records each run once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from dbt_harness import Db, DbtProject, write_project
from test_post_scan_actions import _Webhook

SCHEMA = """\
version: 2
seeds:
  - name: orders
    config:
      meta:
        dataplex_dq:
          post_scan_actions:
            notification_report:
              job_failure_trigger: {}
              job_end_trigger: {}
              webhook: {url: "WEBHOOK_URL"}
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation: {name: amount-present}
          - dataplex_dq.range_expectation:
              name: amount-small
              arguments:
                max_value: 10
                dimension: VALIDITY
                debug_queries: [{description: largest, sql_statement: "select max(amount) as biggest from ${data()}"}]
models:
  - name: broken
    config:
      meta:
        dataplex_dq:
          anomaly_detection: {volume: {}, min_training_buckets: 3}
    data_tests:
      - dataplex_dq.anomaly_detection
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation: {name: broken-amount-present, config: {severity: warn}}
"""

FILES = {
    "seeds/orders.csv": "id,amount\n1,5\n2,\n3,50\n",
    "models/broken.sql": "select amount from {{ ref('orders') }} where no_such_column = 1\n",
    "models/schema.yml": SCHEMA,
}


@dataclass
class Project:
    project: DbtProject
    webhook: _Webhook

    @property
    def env(self) -> dict[str, str]:
        return self.project.env

    def rows(self, invocation: str | None = None) -> list[dict]:
        with Db("duckdb", self.env) as db:
            where = f" where dbt_invocation_id = '{invocation}'" if invocation else ""
            return db.query(f"select * from main.dataplex_dq_results{where} order by dbt_node_unique_id, rule_name")

    def invocation(self) -> str:
        return json.loads((self.project.target_path / "run_results.json").read_text())["metadata"]["invocation_id"]

    def cli(self, command: str, *args: str) -> tuple[int, str]:
        res = self.project.dataplex_dq(command, *args)
        return res.returncode, res.stdout + res.stderr


def _project(tmp: Path, name: str, project_config: str = "") -> Project:
    webhook = _Webhook()
    files = {**FILES, "models/schema.yml": SCHEMA.replace("WEBHOOK_URL", webhook.url)}
    project = write_project(
        tmp, name, files, env={"DBT_DUCKDB_PATH": str(tmp / f"{name}.duckdb")}, project_config=project_config
    )
    return Project(project, webhook)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    p = _project(tmp_path_factory.mktemp("one_run"), "one_run")
    yield p
    p.webhook.stop()


def _comparable(rows: list[dict]) -> list[dict]:
    """Rows without what differs between two runs (ids, times, the queries' timings and costs)."""
    drop = {
        "dbt_invocation_id",
        "data_quality_job_id",
        "job_start_time",
        "job_end_time",
        "created_on",
        "last_updated",
        "dbt_test_cost",
        "rule_execution_seconds",
        "job_execution_seconds",
        "job_notification_result",
    }
    return [{k: v for k, v in r.items() if k not in drop} for r in rows]


def test_a_skipped_anomaly_test_is_reported_not_fatal(plain):
    p = plain
    build = p.project.run("build")
    statuses = {r["unique_id"].split(".")[2]: r["status"] for r in build.run_results["results"]}
    assert statuses["broken"] == "skipped"  # after the seed's failing tests, as dbt build does
    assert [s for n, s in statuses.items() if n.startswith("dataplex_dq_anomaly_detection")] == ["skipped"]
    rows = {r["rule_name"]: r for r in p.rows(p.invocation())}
    anomaly = next(r for n, r in rows.items() if n.startswith("anomaly-detection-"))
    assert anomaly["rule_status"] == "SKIPPED" and anomaly["rule_type"] == "Table condition"
    assert json.loads(anomaly["rule_attributes"]) == {"anomaly_check": "anomaly_detection"}
    assert rows["amount-small"]["rule_status"] == "FAILED"
    queries = rows["amount-small"]["debug_queries"]
    assert [[(v["name"], v["value"]) for v in q["debug_query_results"]] for q in queries] == [[("biggest", "50")]]

    code, out = p.cli("report", "--html")
    # a rule was skipped (its model errored): exit 2, as dbt's; every data source reported
    assert code == 2, out
    assert "Traceback" not in out and "no rule type" not in out
    assert "model 'broken'" in out and "seed 'orders'" in out
    assert f"skipped: model 'broken' rule '{anomaly['rule_name']}'" in out
    files = sorted(f.name for f in (p.project.target_path / "dataplex_dq").iterdir())
    assert files == [
        "index.html",
        "model.one_run.broken.json",
        "model.one_run.broken.pb",
        "seed.one_run.orders.json",
        "seed.one_run.orders.pb",
    ]
    result = json.loads((p.project.target_path / "dataplex_dq" / "seed.one_run.orders.json").read_text())
    assert result["score"] == 0 and not result.get("passed")  # both rules failed: 0 of 2
    code, out = p.cli("report", "--from-results-table")
    assert code == 2 and "Traceback" not in out, out
    assert f"skipped: model 'broken' rule '{anomaly['rule_name']}'" in out


def test_a_job_is_notified_once_and_resent_on_request(plain):
    p = plain
    p.project.run("build")  # a new invocation: its jobs not notified yet
    p.webhook.posts.clear()
    before = p.rows(p.invocation())
    p.cli("report")
    assert len(p.webhook.posts) == 1  # orders only (broken has no notification)
    recorded = {
        r["job_notification_result"] for r in p.rows(p.invocation()) if r["dbt_node_unique_id"].endswith("orders")
    }
    assert len(recorded) == 1
    outcome = json.loads(recorded.pop())
    assert outcome["state"] == "SUCCEEDED" and outcome["webhook"] is True
    _, out = p.cli("report")
    assert len(p.webhook.posts) == 1, "a second report of the same invocation sent the webhook again"
    assert "already sent; not sent again" in out
    assert not (p.project.target_path / "dataplex_dq" / "index.html").exists()  # no --html: no stale page
    p.cli("report", "--resend")
    assert len(p.webhook.posts) == 2
    # the report wrote nothing but the notification outcome
    assert _comparable(p.rows(p.invocation())) == _comparable(before)


def test_dataplex_dq_build_and_dbt_build_record_the_same_rows(plain):
    p = plain
    p.project.run("build")
    by_dbt = _comparable(p.rows(p.invocation()))
    res = p.project.dataplex_dq("build")
    assert res.returncode == 2, res.stdout + res.stderr
    assert _comparable(p.rows(p.invocation())) == by_dbt


def test_with_the_hook_off_the_report_records_the_run(tmp_path):
    on = _project(tmp_path / "on", "hook_on")
    off = _project(tmp_path / "off", "hook_off", "vars: {dataplex_dq_on_run_end: false}\n")
    try:
        on.project.run("build")
        off.project.run("build")
        assert off.rows() == []  # nothing recorded by dbt
        code, out = off.cli("report")
        assert code == 2 and "Traceback" not in out, out
        recorded = _comparable(off.rows(off.invocation()))
        assert len(recorded) == 4
        expected = _comparable(on.rows(on.invocation()))

        def same(rows: list[dict]) -> list[dict]:
            # the project name differs: hook_on / hook_off in ids, labels and display names, and in the hash of
            # a derived rule name (of the test's unique_id)
            text = json.dumps(rows, default=str).replace("hook_on", "P").replace("hook_off", "P")
            return json.loads(re.sub(r"anomaly-detection-[0-9a-f]{6}", "anomaly-detection-H", text))

        assert same(recorded) == same(expected)
        assert (off.project.target_path / "run_results.json").exists()  # the run's own artifacts left as they were
        assert json.loads((off.project.target_path / "run_results.json").read_text())["args"]["which"] == "build"
    finally:
        on.webhook.stop()
        off.webhook.stop()


def test_a_project_listing_the_hook_itself_records_once(tmp_path):
    p = _project(tmp_path, "listed", 'on-run-end: "{{ dataplex_dq.on_run_end(results) }}"\n')
    try:
        build = p.project.run("build")
        wrote = [line for line in build.output.splitlines() if "dataplex_dq: wrote the results of" in line]
        assert len(wrote) == 1, wrote
        assert len(p.rows()) == 4
        again = p.project.run("build", "--vars", yaml.safe_dump({"dataplex_dq_on_run_end": False}))
        wrote = [line for line in again.output.splitlines() if "dataplex_dq: wrote the results of" in line]
        assert len(wrote) == 1, wrote  # the project's own line records when the package's is off
    finally:
        p.webhook.stop()


ERRORED_SCHEMA = """\
version: 2
seeds:
  - name: events
    config:
      meta:
        dataplex_dq:
          anomaly_detection: {timestamp_column: no_such_column, volume: {}, min_training_buckets: 3}
    data_tests:
      - dataplex_dq.anomaly_detection
    columns:
      - name: id
        data_tests:
          - dataplex_dq.non_null_expectation: {name: id-present}
  - name: orders
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation: {name: amount-present}
"""


def test_an_errored_anomaly_test_is_reported_not_fatal(tmp_path):
    """Issue 30 item 11: an anomaly_detection test that errors at run time (its timestamp column does not
    exist) is recorded and reported as one ERROR check; every data source is reported by report, build and
    --from-results-table, which exit 2 (an errored rule) without a traceback."""
    files = {
        "seeds/events.csv": "id,at\n1,2026-01-01\n2,2026-01-02\n",
        "seeds/orders.csv": "id,amount\n1,5\n2,6\n",
        "models/schema.yml": ERRORED_SCHEMA,
    }
    project = write_project(tmp_path, "errored", files, env={"DBT_DUCKDB_PATH": str(tmp_path / "errored.duckdb")})
    p = Project(project, _Webhook())
    try:
        build = project.run("build")
        statuses = {r["unique_id"].split(".")[2]: r["status"] for r in build.run_results["results"]}
        assert [s for n, s in statuses.items() if n.startswith("dataplex_dq_anomaly_detection")] == ["error"]
        rows = {r["rule_name"]: r for r in p.rows(p.invocation())}
        anomaly = next(r for n, r in rows.items() if n.startswith("anomaly-detection-"))
        assert anomaly["rule_status"] == "ERROR" and anomaly["rule_type"] == "Table condition"
        assert json.loads(anomaly["rule_attributes"]) == {"anomaly_check": "anomaly_detection"}
        assert (rows["id-present"]["rule_status"], rows["amount-present"]["rule_status"]) == ("PASSED", "PASSED")
        for command, args in (("report", ()), ("report", ("--from-results-table",)), ("build", ())):
            code, out = p.cli(command, *args)
            assert code == 2 and "Traceback" not in out, out
            assert "seed 'events'" in out and "seed 'orders'" in out, out
            assert "error: seed 'events' rule 'anomaly-detection-" in out, out
            assert "field 'anomaly_detection.timestamp_column'" in out, out
        files_written = sorted(f.name for f in (project.target_path / "dataplex_dq").iterdir())
        assert files_written == [
            "seed.errored.events.json",
            "seed.errored.events.pb",
            "seed.errored.orders.json",
            "seed.errored.orders.pb",
        ]
        orders = json.loads((project.target_path / "dataplex_dq" / "seed.errored.orders.json").read_text())
        assert orders["passed"] is True and orders["score"] == 100
    finally:
        p.webhook.stop()
