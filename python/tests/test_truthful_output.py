"""Output tells the truth (issue 30 items 8 and 14), the pure parts: a job with no evaluated rule is not FAIL in
the HTML history, the build's progress line counts skipped nodes, and a warehouse out of reach is named with the
innermost cause (stubs: nothing here connects anywhere)."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

import pytest

from dataplex_dq.cli.build import BuildCounts
from dataplex_dq.outputs.html_data import history_from_rows
from dataplex_dq.outputs.html_report import job_result
from dataplex_dq.warehouse.connection import root_cause
from dataplex_dq.warehouse.dialects import dialect_of

SOURCE = "model.p.downstream"


def _job_row(job: str, job_passed: int | None, score: float | None, **counts: int) -> dict[str, object]:
    return {
        "dbt_node_unique_id": SOURCE,
        "data_quality_job_id": job,
        "job_start_time": datetime(2026, 1, int(job[-1])),
        "job_score": score,
        "job_passed": job_passed,
        "job_rows_scanned": None,
        "rule_dimension": None,
        "rules_evaluated": counts.get("evaluated", 0),
        "rules_passed": counts.get("passed", 0),
        "rules_failed": counts.get("failed", 0),
        "rules_errored": counts.get("errored", 0),
        "rules_skipped": counts.get("skipped", 0),
        "rules_suspended": counts.get("suspended", 0),
    }


def test_a_job_with_no_evaluated_rule_is_not_a_fail_in_the_history():
    rows = [
        _job_row("j1", 1, 100.0, evaluated=2, passed=2),
        _job_row("j2", None, None, skipped=2),  # report_job_history_sql: job_passed NULL, not evaluated
        _job_row("j3", None, None, errored=1, skipped=1),
        _job_row("j4", None, None, suspended=3),
        _job_row("j5", 0, 50.0, evaluated=2, passed=1, failed=1, skipped=1),
    ]
    jobs = history_from_rows(rows, []).jobs[SOURCE]
    assert [(j.job_id, j.passed, j.result) for j in jobs] == [
        ("j1", True, "PASS"),
        ("j2", None, "SKIPPED"),  # was FAIL
        ("j3", None, "ERROR"),
        ("j4", None, "NOT EVALUATED"),
        ("j5", False, "FAIL"),
    ]
    assert job_result(None, {}) == "NOT EVALUATED"


def test_the_build_progress_line_counts_skipped_nodes():
    counts = BuildCounts()
    for status in ["success"] * 43 + ["pass"] * 3 + ["fail"] * 7 + ["warn"] + ["skipped"] * 17 + ["error"] * 2:
        counts.add(status)
    assert counts.line() == "7 failed, 1 warned, 17 skipped, 2 errors"


def test_the_cause_is_the_innermost_error():
    try:
        try:
            try:
                raise ConnectionRefusedError(111, "Connection refused")
            except OSError as exc:
                raise RuntimeError("HTTPConnectionPool(host='127.0.0.1', port=1): Max retries exceeded") from exc
        except RuntimeError:
            raise ValueError("Database Error\n  retrying failed") from None
    except ValueError as outer:
        assert root_cause(outer) == "Database Error: retrying failed"  # `from None`: nothing below it
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except OSError as exc:
            raise RuntimeError("Database Error\n  HTTPConnectionPool(...): Max retries exceeded") from exc
    except RuntimeError as outer:
        assert root_cause(outer) == "[Errno 111] Connection refused"


def test_where_each_warehouse_is():
    pg = SimpleNamespace(host="127.0.0.1", port=5433, database="postgres")
    assert dialect_of("postgres").where(pg) == "127.0.0.1:5433"
    assert dialect_of("duckdb").where(SimpleNamespace(path="/data/x.duckdb")) == "/data/x.duckdb"
    bq = SimpleNamespace(database="my-project", api_endpoint=None)
    assert dialect_of("bigquery").where(bq) == "project my-project"
    assert dialect_of("snowflake").where(SimpleNamespace(database="DB")) == "DB"


class _Client:
    def __init__(self, error: Exception) -> None:
        self.project, self.error, self.calls = "p", error, []

    def get_dataset(self, ref, retry, timeout):
        self.calls.append((ref.project, ref.dataset_id, timeout, retry._timeout))
        raise self.error


def _adapter(client: _Client) -> SimpleNamespace:
    connection = SimpleNamespace(handle=client, state="open")
    return SimpleNamespace(
        connections=SimpleNamespace(get_thread_connection=lambda: connection),
        config=SimpleNamespace(credentials=SimpleNamespace(database="p", schema="ds")),
    )


def test_bigquery_probe_any_answer_of_the_api_is_reachable_a_refusal_is_not():
    from google.api_core.exceptions import Forbidden, NotFound

    bigquery = dialect_of("bigquery")
    for answer in (NotFound("no dataset"), Forbidden("no permission")):
        client = _Client(answer)
        bigquery.probe(_adapter(client))  # the API answered: reachable
        assert client.calls == [("p", "ds", 15.0, 15.0)]  # one call, a 15 s deadline (the client's default: 600 s)
    with pytest.raises(ConnectionError):
        bigquery.probe(_adapter(_Client(ConnectionError("[Errno 111] Connection refused"))))


def test_a_connection_dbt_failed_to_open_is_refused():
    connection = SimpleNamespace(handle=None, state="fail")
    adapter = SimpleNamespace(connections=SimpleNamespace(get_thread_connection=lambda: connection))
    with pytest.raises(ConnectionError, match="opened no connection"):
        dialect_of("postgres").probe(adapter)


def test_a_query_on_a_connection_that_failed_to_open_is_one_clear_error(tmp_path):
    from dataplex_dq.errors import WarehouseError
    from dataplex_dq.warehouse.connection import Warehouse

    connection = SimpleNamespace(handle=None, state="fail")
    adapter = SimpleNamespace(
        type=lambda: "postgres",
        connections=SimpleNamespace(get_thread_connection=lambda: connection, exception_handler=None),
    )
    wh = Warehouse(tmp_path, None, None, tmp_path / "manifest.json")
    wh._adapter = adapter
    with pytest.raises(WarehouseError, match="the connection to the postgres target is closed") as err:
        wh.query("select 1")
    assert "NoneType" not in str(err.value)
