"""A failed statistic rule's alert shows its value (issue 30 item 14) on every warehouse: the value is the one the
warehouse recorded (`statistic_value_text`, PostgreSQL's `avg` with its trailing zeros), read back by the report and
posted to a webhook on 127.0.0.1."""

from __future__ import annotations

import pytest

from conftest import drop_target_schemas, require_target
from dbt_harness import TARGETS, JsonReceiver, run_dataplex_dq, target_env, write_project

SCHEMA = """\
version: 2
seeds:
  - name: amounts
    config:
      meta:
        dataplex_dq:
          post_scan_actions:
            notification_report:
              webhook: {url: "WEBHOOK_URL"}
              job_end_trigger: {}
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.statistic_range_expectation:
              name: amount-mean-small
              arguments: {statistic: MEAN, max_value: 2}
          - dataplex_dq.statistic_range_expectation:
              name: amount-max-above
              arguments: {statistic: MAX, min_value: 10, strict_min_enabled: true}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_a_failed_statistic_rule_alert_shows_its_value(target, tmp_path):
    require_target(target)
    hook = JsonReceiver()
    env = target_env(target, tmp_path, "alert_values")
    try:
        project = write_project(
            tmp_path,
            "alert_values",
            {
                "seeds/amounts.csv": "id,amount\n1,1\n2,2\n3,3\n4,4\n",
                "seeds/schema.yml": SCHEMA.replace("WEBHOOK_URL", hook.base + "/hook"),
            },
            env=env,
            target=target,
            project_config="seeds:\n  alert_values:\n    +column_types: {id: integer, amount: integer}\n"
            if target != "bigquery"
            else "seeds:\n  alert_values:\n    +column_types: {id: int64, amount: int64}\n",
        )
        build = project.run("build")
        assert build.returncode == 1, build.output[-3000:]  # both rules fail
        report = run_dataplex_dq(
            "report",
            "--project-dir",
            str(project.project_dir),
            "--profiles-dir",
            str(project.profiles_dir),
            "--target",
            target,
            "--target-path",
            str(project.target_path),
            env={**env, "DBT_LOG_PATH": str(tmp_path / "logs")},
            cwd=project.project_dir,
        )
        assert report.returncode == 1, report.stdout + report.stderr
        assert "notification succeeded" in report.stdout, report.stdout
        [post] = hook.bodies("/hook")
        text = post["blocks"][1]["text"]["text"]
        assert "- amount-mean-small (column amount): MEAN 2.5, expected &lt;= 2" in text, text
        assert "- amount-max-above (column amount): MAX 4, expected &gt; 10" in text, text
    finally:
        hook.stop()
        drop_target_schemas(target, env)
