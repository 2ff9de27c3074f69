"""Cost per rule and per job (issue 10 item 2): what dbt recorded per test, into the results rows."""

from __future__ import annotations

import json

from dataplex_dq.cost import QueryCost, format_cost, job_cost
from dataplex_dq.export import JobContext, result_rows
from dataplex_dq.metrics import RuleStatus
from dataplex_dq.outcomes import RuleIdentity, RuleOutcome
from dataplex_dq.scoring import score_rules

BQ = {"_message": "SELECT", "code": "SELECT", "bytes_processed": 3_000_000, "bytes_billed": 10_485_760, "slot_ms": 42}


def _outcome(name: str, test: str, status: RuleStatus = RuleStatus.SKIPPED) -> RuleOutcome:
    ident = RuleIdentity.from_rule_spec(
        {"name": name, "non_null_expectation": {}, "column": "id"}, data_source="seed.p.s", test_unique_id=test
    )
    return RuleOutcome.not_evaluated(ident, status, "x")


def test_a_rules_own_query_and_a_scans_shared_one():
    """A per-rule test's cost is its rule's; a scan's two rules share one query: no rule cost, counted once
    in the job; a skipped test ran nothing; the raw record round-trips through dbt_test_cost."""
    costs = {
        "test.p.own": QueryCost.from_run_result(BQ, 1.5),
        "test.p.scan": QueryCost.from_run_result({**BQ, "bytes_billed": 20_971_520, "slot_ms": None}, 2.25),
    }
    outcomes = [
        _outcome("own", "test.p.own", RuleStatus.ERROR),
        _outcome("a", "test.p.scan", RuleStatus.ERROR),
        _outcome("b", "test.p.scan", RuleStatus.ERROR),
        _outcome("skipped", "test.p.skipped"),
    ]
    job = JobContext("inv", "seed.p.s", "s", "seed", "db", "main", "s", "bigquery", None, None, None, test_costs=costs)
    rows = {r["rule_name"]: r for r in result_rows(job, outcomes, score_rules(outcomes))}
    own, a, skipped = rows["own"], rows["a"], rows["skipped"]
    assert (
        own["rule_execution_seconds"],
        own["rule_bytes_billed"],
        own["rule_bytes_processed"],
        own["rule_slot_ms"],
    ) == (
        1.5,
        10_485_760,
        3_000_000,
        42,
    )
    assert (a["rule_execution_seconds"], a["rule_bytes_billed"]) == (None, None)
    assert skipped["dbt_test_cost"] is None and skipped["rule_execution_seconds"] is None
    for r in rows.values():
        assert (r["job_query_count"], r["job_execution_seconds"], r["job_bytes_billed"], r["job_slot_ms"]) == (
            2,
            3.75,
            31_457_280,
            42,
        )
    assert QueryCost.from_json(json.dumps(a["dbt_test_cost"])) == costs["test.p.scan"]
    assert list(own)[-10:] == [
        "rule_execution_seconds",
        "rule_bytes_processed",
        "rule_bytes_billed",
        "rule_slot_ms",
        "job_execution_seconds",
        "job_bytes_processed",
        "job_bytes_billed",
        "job_slot_ms",
        "job_query_count",
        "dbt_test_cost",
    ]


def test_what_the_summary_prints():
    duck = job_cost(
        ["t1", "t1", "t2"], {"t1": QueryCost(0.5, adapter_response={"_message": "OK"}), "t2": QueryCost(0.25)}
    )
    assert format_cost(duck.execution_seconds, duck.bytes_billed, duck.slot_ms, duck.queries) == "0.75 s, 2 queries"
    assert format_cost(1.5, 1_288_490_189, 3400, 1) == "1.2 GiB billed, 3.4 slot-s, 1.50 s, 1 query"
    assert QueryCost.from_run_result({"bytes_billed": "1.2 GiB"}, None) == QueryCost(
        adapter_response={"bytes_billed": "1.2 GiB"}
    )
