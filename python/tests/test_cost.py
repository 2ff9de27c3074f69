"""Cost per rule and per job (issue 10 item 2): what dbt recorded per test, read back from the results rows."""

from __future__ import annotations

import json

from recorded_rows import rule_row

from dataplex_dq.run.cost import QueryCost, format_cost, job_cost
from dataplex_dq.run.recorded import recorded_jobs

BQ = {"_message": "SELECT", "code": "SELECT", "bytes_processed": 3_000_000, "bytes_billed": 10_485_760, "slot_ms": 42}


def test_the_recorded_cost_of_a_test_reads_back():
    """The cost columns are the writer's (macros/results/on_run_end.sql; checked against run_results.json by
    integration_tests/tests/test_report.py::test_cost_columns_are_what_dbt_recorded and, for a scan's shared
    query, test_scan.py::test_a_scans_cost_belongs_to_its_job); the report reads each test's dbt_test_cost
    back into the job (the summary's costliest queries): a test's cost once, a skipped test none."""
    own = QueryCost.from_run_result(BQ, 1.5)
    scan = QueryCost.from_run_result({**BQ, "bytes_billed": 20_971_520, "slot_ms": None}, 2.25)
    rows = [
        rule_row(
            "own", "Null check", "ERROR", dbt_test_unique_id="test.p.own", dbt_test_cost=json.dumps(own.as_json())
        ),
        rule_row(
            "a", "Null check", "ERROR", dbt_test_unique_id="test.p.scan", dbt_test_cost=json.dumps(scan.as_json())
        ),
        rule_row("b", "Null check", "ERROR", dbt_test_unique_id="test.p.scan", dbt_test_cost=scan.as_json()),
        rule_row("skipped", "Null check", "SKIPPED", dbt_test_unique_id="test.p.skipped", dbt_test_cost=None),
    ]
    (job,) = recorded_jobs(rows, [], "bigquery")
    assert job.job.test_costs == {"test.p.own": own, "test.p.scan": scan}
    spent = job_cost((o.test_unique_id for o in job.outcomes), job.job.test_costs)
    assert (spent.queries, spent.execution_seconds, spent.bytes_billed, spent.slot_ms) == (2, 3.75, 31_457_280, 42)
    assert (own.execution_seconds, own.bytes_billed, own.bytes_processed, own.slot_ms) == (
        1.5,
        10_485_760,
        3_000_000,
        42,
    )


def test_what_the_summary_prints():
    duck = job_cost(
        ["t1", "t1", "t2"], {"t1": QueryCost(0.5, adapter_response={"_message": "OK"}), "t2": QueryCost(0.25)}
    )
    assert format_cost(duck.execution_seconds, duck.bytes_billed, duck.slot_ms, duck.queries) == "0.75 s, 2 queries"
    assert format_cost(1.5, 1_288_490_189, 3400, 1) == "1.2 GiB billed, 3.4 slot-s, 1.50 s, 1 query"
    assert QueryCost.from_run_result({"bytes_billed": "1.2 GiB"}, None) == QueryCost(
        adapter_response={"bytes_billed": "1.2 GiB"}
    )
