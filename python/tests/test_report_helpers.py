"""Pure helpers of the report: bounded fetch queries, rules rebuilt from the manifest, derived names."""

from __future__ import annotations

import hashlib

from dataplex_dq.artifacts import RuleTest
from dataplex_dq.declared import declared_rule, derived_rule_name
from dataplex_dq.export import chunk_rows, job_id
from dataplex_dq.report import MAX_RELATIONS_PER_QUERY, metrics_queries


def _test(name: str, test_name: str, column: str | None, kwargs: dict, uid: str | None = None) -> RuleTest:
    return RuleTest(uid or f"test.p.{name}.abc123", name, test_name, "seed.p.s", column, None, kwargs, None, 0)


def test_metrics_queries_are_bounded():
    rels = [f'"db"."audit"."dq_rule_{i}"' for i in range(10_000)]
    queries = metrics_queries(rels, ["a", "b"])
    assert len(queries) == 10_000 // MAX_RELATIONS_PER_QUERY == 20
    assert sum(q.count("union all") + 1 for q in queries) == 10_000
    assert all(len(q) < 900_000 for q in queries)
    assert queries[0].startswith('select a, b from "db"."audit"."dq_rule_0"')


def test_metrics_queries_split_by_statement_size():
    rels = ['"x".' + "y" * 100_000 for _ in range(20)]
    queries = metrics_queries(rels, ["a"])
    assert len(queries) == 3  # 8 relations of ~100k characters fit under 900k
    assert [q.count("union all") + 1 for q in queries] == [8, 8, 4]


def test_derived_rule_name_matches_the_macro_derivation():
    uid = "test.p.dataplex_dq_range_expectation_orders_Amount__0.1a2b3c"
    t = _test("dataplex_dq_range_expectation_orders_Amount__0", "range_expectation", "Amount", {}, uid)
    assert (
        derived_rule_name(t, "range_expectation", "Amount")
        == "range-amount-" + hashlib.md5(uid.encode()).hexdigest()[:6]
    )
    named = _test("my-rule", "range_expectation", "Amount", {})
    assert derived_rule_name(named, "range_expectation", "Amount") == "my-rule"


def test_declared_rule_from_manifest_arguments():
    t = _test(
        "amount-in-range",
        "range_expectation",
        "amount",
        {
            "min_value": 0,
            "max_value": 10.5,
            "strict_min_enabled": True,
            "threshold": 0.9,
            "dimension": "VALIDITY",
            "ignore_null": False,
            "attributes": {"owner": "shop", "tier": 1},
        },
    )
    assert declared_rule(t) == {
        "name": "amount-in-range",
        "column": "amount",
        "dimension": "VALIDITY",
        "threshold": 0.9,
        "range_expectation": {"min_value": "0", "max_value": "10.5", "strict_min_enabled": True},
        "attributes": {"owner": "shop", "tier": "1"},
    }
    s = _test("status-known", "set_expectation", "status", {"values": ["a", 1, True]})
    assert declared_rule(s)["set_expectation"] == {"values": ["a", "1", "true"]}


def test_job_ids_are_deterministic_and_distinct():
    assert job_id("inv-1", "model.p.orders") == job_id("inv-1", "model.p.orders")
    assert job_id("inv-1", "model.p.orders") != job_id("inv-2", "model.p.orders")
    assert job_id("inv-1", "model.p.orders") != job_id("inv-1", "model.p.customers")


def test_chunk_rows_respects_the_statement_limit():
    rows = [{"rule_name": f"r{i}", "payload": "x" * 1000} for i in range(100)]
    chunks = chunk_rows(rows, max_chars=10_500)
    assert all(len(c) <= 10_500 for c in chunks)
    assert sum(c.count('"rule_name"') for c in chunks) == 100
    assert len(chunks) == 10


def test_declared_rule_names_cover_every_rule_of_a_data_source():
    """issue 9 B: each job records every rule its data source declares (run in this invocation or not)."""
    from pathlib import Path

    from dataplex_dq.artifacts import Artifacts
    from dataplex_dq.declared import declared_rule_names

    scan = RuleTest(
        "test.p.scan.1",
        "orders_scan",
        "data_quality_scan",
        "seed.p.s",
        None,
        None,
        {"rules": [{"name": "in-scan", "nonNullExpectation": {}}, {"column": "Amount", "uniqueness_expectation": {}}]},
        None,
        1,
    )
    other = RuleTest("test.p.x.2", "other-rule", "non_null_expectation", "seed.p.t", "id", None, {}, None, 2)
    tests = {t.unique_id: t for t in (_test("my-rule", "range_expectation", "amount", {}), scan, other)}
    art = Artifacts(Path("."), "p", "inv", None, None, tests, {}, {})
    assert declared_rule_names(art) == {
        "seed.p.s": ("in-scan", "my-rule", "uniqueness-amount-1"),
        "seed.p.t": ("other-rule",),
    }


def test_result_rows_record_target_declared_rules_and_not_evaluated_jobs():
    """issue 17 items 4 and 7, issue 9 B: the rows carry the dbt target and declared vs run rules;
    a job whose rules were all skipped exports passed NULL (not evaluated), never true."""
    from dataplex_dq.export import JobContext, result_rows
    from dataplex_dq.metrics import RuleStatus
    from dataplex_dq.outcomes import RuleIdentity, RuleOutcome
    from dataplex_dq.scoring import score_rules

    ident = RuleIdentity.from_rule_spec(
        {"name": "b-rule", "non_null_expectation": {}, "column": "id"},
        data_source="seed.p.s",
        test_unique_id="test.p.b",
    )
    outcomes = [RuleOutcome.not_evaluated(ident, RuleStatus.SKIPPED, "upstream failed")]
    job = JobContext(
        "inv",
        "seed.p.s",
        "s",
        "seed",
        "db",
        "main",
        "s",
        "duckdb",
        None,
        None,
        None,
        target="prod",
        declared_rules=("a-rule", "b-rule"),
    )
    (row,) = result_rows(job, outcomes, score_rules(outcomes))
    assert row["job_quality_result"]["passed"] is None and row["job_quality_result"]["score"] is None
    assert (
        row["dbt_target"],
        row["job_declared_rules"],
        row["job_declared_rule_count"],
        row["job_run_rule_count"],
    ) == ("prod", '["a-rule","b-rule"]', 2, 1)
    assert list(row)[-5:] == [
        "rule_statistic_value_text",
        "dbt_target",
        "job_declared_rules",
        "job_declared_rule_count",
        "job_run_rule_count",
    ]
