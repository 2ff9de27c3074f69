"""Pure helpers of the report: bounded fetch queries, the rules recorded in the manifest, job ids."""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from dataplex_dq.artifacts import RuleTest
from dataplex_dq.declared import declared_rules, recorded_rules
from dataplex_dq.errors import ArtifactsError, WarehouseError, first_line
from dataplex_dq.export import chunk_rows, job_id
from dataplex_dq.report import DUCKDB_RELATIONS_PER_QUERY, MAX_RELATIONS_PER_QUERY, metrics_batches, metrics_queries


def _test(name: str, test_name: str, column: str | None, kwargs: dict, uid: str | None = None) -> RuleTest:
    return RuleTest(uid or f"test.p.{name}.abc123", name, test_name, "seed.p.s", column, None, kwargs, None, 0)


def test_metrics_queries_are_bounded():
    rels = [f'"db"."audit"."dq_rule_{i}"' for i in range(10_000)]
    queries = metrics_queries(rels, ["a", "b"])
    assert len(queries) == 10_000 // MAX_RELATIONS_PER_QUERY == 20
    assert sum(q.count("union all") + 1 for q in queries) == 10_000
    assert all(len(q) < 900_000 for q in queries)
    assert queries[0].startswith('select a, b from "db"."audit"."dq_rule_0"')


def test_metrics_batches_of_a_given_size_keep_every_relation_in_order():
    rels = [f'"audit"."dq_rule_{i}"' for i in range(1_050)]
    got = metrics_batches(rels, ["dq_row"], DUCKDB_RELATIONS_PER_QUERY)
    assert [len(r) for _, r in got] == [100] * 10 + [50]
    assert [rel for _, r in got for rel in r] == rels
    assert got[-1][0].startswith('select dq_row from "audit"."dq_rule_1000"\nunion all\n')


def test_metrics_queries_split_by_statement_size():
    rels = ['"x".' + "y" * 100_000 for _ in range(20)]
    queries = metrics_queries(rels, ["a"])
    assert len(queries) == 3  # 8 relations of ~100k characters fit under 900k
    assert [q.count("union all") + 1 for q in queries] == [8, 8, 4]


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
    assert list(row)[-15:-10] == [
        "rule_statistic_value_text",
        "dbt_target",
        "job_declared_rules",
        "job_declared_rule_count",
        "job_run_rule_count",
    ]


class _DuckDBWarehouse:
    """A Warehouse whose query/execute run on a bare DuckDB connection (no dbt project needed)."""

    def __new__(cls, con):
        import duckdb

        from dataplex_dq.errors import WarehouseError
        from dataplex_dq.warehouse import Warehouse

        class W(Warehouse):
            adapter_type = "duckdb"  # type: ignore[assignment]

            def query(self, sql):
                try:
                    cur = con.execute(sql)
                except duckdb.Error as exc:
                    raise WarehouseError(str(exc)) from exc
                names = [d[0] for d in cur.description]
                return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

            def execute(self, sql):
                try:
                    con.execute(sql)
                except duckdb.Error as exc:
                    raise WarehouseError(str(exc)) from exc

        return W(Path("."), None, None, Path("manifest.json"))


def _setting(con, name: str) -> str:
    return con.execute(f"select cast(current_setting('{name}') as varchar)").fetchone()[0]


def test_duckdb_settings_hold_inside_and_are_restored_exactly():
    """The report reads the metrics relations with one thread and a 256 MB buffer pool, then gives the
    connection back as it was (DuckDB's defaults, a size it shows rounded); a setting the user chose is
    left alone."""
    duckdb = pytest.importorskip("duckdb")
    from dataplex_dq.report import READ_MANY_DUCKDB_SETTINGS

    con = duckdb.connect()
    default_limit, threads = _setting(con, "memory_limit"), _setting(con, "threads")
    wh = _DuckDBWarehouse(con)
    with wh.duckdb_settings(READ_MANY_DUCKDB_SETTINGS):
        assert (_setting(con, "threads"), _setting(con, "memory_limit")) == ("1", "244.1 MiB")
    assert (_setting(con, "memory_limit"), _setting(con, "threads")) == (default_limit, threads)
    con.execute("set memory_limit = '3GB'")
    with wh.duckdb_settings(READ_MANY_DUCKDB_SETTINGS):
        assert (_setting(con, "threads"), _setting(con, "memory_limit")) == ("1", "2.7 GiB")
    assert (_setting(con, "memory_limit"), _setting(con, "threads")) == ("2.7 GiB", threads)


def test_duckdb_settings_leave_a_refused_setting_and_other_warehouses_alone():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    wh = _DuckDBWarehouse(con)
    with wh.duckdb_settings({"no_such_setting_dq": "1", "threads": "1"}):
        assert _setting(con, "threads") == "1"
    type(wh).adapter_type = "postgres"  # type: ignore[assignment]
    wh.execute = lambda sql: pytest.fail(f"ran {sql} on postgres")  # type: ignore[method-assign]
    with wh.duckdb_settings({"threads": "1"}):
        pass


def test_report_pauses_the_collector_and_turns_it_back_on():
    import gc

    from dataplex_dq.report import _collector_paused

    assert gc.isenabled()
    with _collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with _collector_paused():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()


class _MacroWarehouse:
    """Records the package macros the report calls; `begin_returns` is what hook_read_many_begin gives."""

    adapter_type = "postgres"

    def __init__(self, begin_returns):
        self.begin_returns = begin_returns
        self.calls: list[tuple[str, dict]] = []

    def macro(self, name, **kwargs):
        self.calls.append((name, kwargs))
        return self.begin_returns if name == "hook_read_many_begin" else ""

    @contextmanager
    def duckdb_settings(self, settings):
        yield


def test_read_many_end_gets_the_state_begin_kept_and_none_from_an_older_package():
    """The thread count hook_read_many_begin found goes back to hook_read_many_end; a package (or a
    manifest.json parsed with one) whose begin keeps nothing has an end without a `state` argument,
    and the report calls it as such (it failed with "takes no keyword argument 'state'")."""
    from dataplex_dq.report import _reading_many_relations

    for begin_returns, end_kwargs in [({"threads": 3}, {"state": {"threads": 3}}), ("", {}), (None, {})]:
        wh = _MacroWarehouse(begin_returns)
        with _reading_many_relations(wh):  # type: ignore[arg-type]
            pass
        assert wh.calls == [("hook_read_many_begin", {}), ("hook_read_many_end", end_kwargs)]


def test_summary_names_cell_counts_what_it_does_not_name() -> None:
    from dataplex_dq.cli import SUMMARY_NAMES, _names_cell

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
