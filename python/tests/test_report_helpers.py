"""Pure helpers of the report: the rules recorded in the manifest, job ids, the summary, one-line errors."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from dataplex_dq.errors import ArtifactsError, WarehouseError, first_line
from dataplex_dq.record.artifacts import RuleTest
from dataplex_dq.record.declared import declared_rules, recorded_rules
from dataplex_dq.run.jobs import job_id


def _test(name: str, test_name: str, column: str | None, kwargs: dict, uid: str | None = None) -> RuleTest:
    return RuleTest(uid or f"test.p.{name}.abc123", name, test_name, "seed.p.s", column, None, kwargs, None, 0)


def test_declared_rules_are_the_recorded_identity_verbatim():
    """The rules of a test that left no metrics row are what the package recorded when dbt parsed the
    project (config.meta.dataplex_dq_rules): names and fields as recorded, never re-derived."""
    rule = {
        "name": "range-amount-1a2b3c",
        "column": "amount",
        "threshold": 0.9,
        "range_expectation": {"min_value": "0", "max_value": "10.5", "strict_min_enabled": True},
        "attributes": {"owner": "shop", "tier": "1"},
    }
    # the kwargs would give another name and other bounds: only the record counts
    t = _test("dataplex_dq_range_expectation_orders_amount__0", "range_expectation", "amount", {"min_value": 5})
    t = replace(t, identity=[{"rule_index": 0, "name_given": False, "rule": rule}])
    assert declared_rules(t) == [(0, rule)]
    (declared,) = recorded_rules(t)
    assert (declared.name, declared.name_given, declared.rule_index) == ("range-amount-1a2b3c", False, 0)
    scan = replace(
        _test("orders_scan", "data_quality_scan", None, {"rules": [{}, {}, {}]}),
        identity=[
            {"rule_index": 0, "name_given": True, "rule": {"name": "in-scan", "non_null_expectation": {}}},
            {"rule_index": 2, "name_given": False, "rule": {"name": "uniqueness-id-2", "uniqueness_expectation": {}}},
        ],
    )
    assert [(i, r["name"]) for i, r in declared_rules(scan)] == [(0, "in-scan"), (2, "uniqueness-id-2")]
    assert declared_rules(replace(scan, identity=[])) == []


def test_a_manifest_without_the_recorded_identity_says_what_to_do():
    old = _test("qty-ok", "non_null_expectation", "qty", {})
    with pytest.raises(ArtifactsError) as err:
        declared_rules(old)
    assert str(err.value) == (
        "manifest.json: test qty-ok has no config.meta.dataplex_dq_rules (the rule names dataplex_dq records "
        "when dbt parses the project): the project was parsed with an older dataplex_dq package; run `dbt deps`, "
        "then dbt again with --no-partial-parse (`dbt build` before `dataplex-dq report`, `dbt parse` before "
        "`export-spec`)"
    )
    long_name = "dataplex_dq_data_quality_scan_orders_" + "x" * 200
    scan = RuleTest(
        f"test.p.{long_name}.9f8e7d", long_name, "data_quality_scan", "seed.p.orders", None, None, {}, None, 0
    )
    with pytest.raises(ArtifactsError, match=r"^manifest.json: test data_quality_scan on orders \(9f8e7d\) has no"):
        declared_rules(scan)
    for bad in ({"rule_index": 0}, [{"rule_index": "0", "rule": {"name": "a"}}], [{"rule_index": 0, "rule": {}}]):
        with pytest.raises(ArtifactsError, match=re.escape("is not a list of {rule_index, name_given, rule}")):
            declared_rules(replace(old, identity=bad))


def test_job_ids_are_deterministic_and_distinct():
    assert job_id("inv-1", "model.p.orders") == job_id("inv-1", "model.p.orders")
    assert job_id("inv-1", "model.p.orders") != job_id("inv-2", "model.p.orders")
    assert job_id("inv-1", "model.p.orders") != job_id("inv-1", "model.p.customers")


def test_declared_rule_names_cover_every_rule_of_a_data_source():
    """issue 9 B: each job records every rule its data source declares (run in this invocation or not)."""
    from pathlib import Path

    from dataplex_dq.record.artifacts import Artifacts
    from dataplex_dq.record.declared import declared_rule_names

    def recorded(*names):
        return [{"rule_index": i, "name_given": True, "rule": {"name": n}} for i, n in enumerate(names)]

    scan = replace(
        _test("orders_scan", "data_quality_scan", None, {}), identity=recorded("in-scan", "uniqueness-amount-1")
    )
    other = RuleTest("test.p.x.2", "other-rule", "non_null_expectation", "seed.p.t", "id", None, {}, None, 2)
    other = replace(other, identity=recorded("other-rule"))
    mine = replace(_test("my-rule", "range_expectation", "amount", {}), identity=recorded("my-rule"))
    tests = {t.unique_id: t for t in (mine, scan, other)}
    art = Artifacts(Path("."), "p", "inv", None, None, tests, {}, {})
    assert declared_rule_names(art) == {
        "seed.p.s": ("in-scan", "my-rule", "uniqueness-amount-1"),
        "seed.p.t": ("other-rule",),
    }


def test_summary_names_cell_counts_what_it_does_not_name() -> None:
    from dataplex_dq.cli.console import SUMMARY_NAMES, _names_cell

    assert _names_cell([]) == "—"
    assert _names_cell(["a", "b (error)"]) == "a, b (error)"
    names = [f"rule-{i}" for i in range(SUMMARY_NAMES + 490)]
    cell = _names_cell(names)
    assert cell == ", ".join(names[:SUMMARY_NAMES]) + " and 490 more"
    assert f"rule-{SUMMARY_NAMES}," not in cell and f"rule-{SUMMARY_NAMES} " not in cell
    assert _names_cell(names[:SUMMARY_NAMES]) == ", ".join(names[:SUMMARY_NAMES])


def test_first_line_keeps_the_warehouse_words_after_dbts_header():
    from dbt_common.exceptions import DbtRuntimeError

    dbt_error = DbtRuntimeError("Catalog Error: Catalog with name p does not exist!")
    wrapped = WarehouseError(f"macro dataplex_dq.ensure_results_table failed on duckdb: {dbt_error}")
    assert first_line(wrapped) == (
        "macro dataplex_dq.ensure_results_table failed on duckdb: Runtime Error: Catalog Error: Catalog with name p "
        "does not exist!"
    )
    # PostgreSQL's context lines after the message stay out, as does the SQL a WarehouseError quotes; long
    # messages are cut; an empty one names its type
    assert first_line('Database Error\n  relation "x" does not exist\n  LINE 1: select * from x') == (
        'Database Error: relation "x" does not exist'
    )
    assert first_line(WarehouseError("query failed on duckdb: boom\n--- SQL (first 500 chars) ---\nselect 1")) == (
        "query failed on duckdb: boom"
    )
    assert first_line("x" * 400, limit=10) == "xxxxxxxxx…"
    assert first_line(ConnectionRefusedError()) == "ConnectionRefusedError"


def test_each_warehouse_has_its_dialect(tmp_path: Path) -> None:
    """The Python side's differences between warehouses, one dialect each (warehouse/dialects.py)."""
    from types import SimpleNamespace

    from dataplex_dq.warehouse.dialects import dialect_of

    assert [
        (d.name, d.dbapi_cursor, d.catalog_labels) for d in map(dialect_of, ("duckdb", "postgres", "bigquery"))
    ] == [
        ("duckdb", True, False),
        ("postgres", True, False),
        ("bigquery", False, True),
    ]
    other = dialect_of("snowflake")
    assert (other.name, other.dbapi_cursor, other.catalog_labels) == ("snowflake", True, False)
    duckdb = dialect_of("duckdb")
    missing = duckdb.missing_database(SimpleNamespace(path=str(tmp_path / "nowhere.duckdb")))
    assert missing is not None and "nowhere.duckdb did not exist before this run" in missing
    (tmp_path / "here.duckdb").write_bytes(b"")
    assert duckdb.missing_database(SimpleNamespace(path=str(tmp_path / "here.duckdb"))) is None
    assert duckdb.missing_database(SimpleNamespace(path=":memory:")) is None
    assert duckdb.missing_database(SimpleNamespace(path="md:my_db")) is None
    assert dialect_of("postgres").missing_database(SimpleNamespace(path="x")) is None
