"""Pure helpers of the report: bounded fetch queries, rules rebuilt from the manifest, derived names."""

from __future__ import annotations

import hashlib

from dataplex_dq.artifacts import RuleTest
from dataplex_dq.export import chunk_rows, job_id
from dataplex_dq.report import MAX_RELATIONS_PER_QUERY, declared_rule, derived_rule_name, metrics_queries


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
    assert derived_rule_name(t, "range_expectation", "Amount") == "range-amount-" + hashlib.md5(uid.encode()).hexdigest()[:6]
    named = _test("my-rule", "range_expectation", "Amount", {})
    assert derived_rule_name(named, "range_expectation", "Amount") == "my-rule"


def test_declared_rule_from_manifest_arguments():
    t = _test(
        "amount-in-range", "range_expectation", "amount",
        {"min_value": 0, "max_value": 10.5, "strict_min_enabled": True, "threshold": 0.9, "dimension": "VALIDITY",
         "ignore_null": False, "attributes": {"owner": "shop", "tier": 1}},
    )
    assert declared_rule(t) == {
        "name": "amount-in-range", "column": "amount", "dimension": "VALIDITY", "threshold": 0.9,
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
