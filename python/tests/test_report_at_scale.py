"""The report's own work at scale (issue 32 item 4): what a 10,000-rule report keeps alive and writes, checked on
counts and values (the times are integration_tests/benchmarks/bench_report.py's, docs/BENCHMARKS.md).

Objects that live as long as the report make Python's full garbage collections more frequent and longer (each
walks every live object, dbt's ~170,000 too), so the reader keeps only what the outputs read."""

from __future__ import annotations

import gc
import json
import os
import threading
import types
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from recorded_rows import rule_row

from dataplex_dq.outputs import files
from dataplex_dq.proto import DataQualityResult, DataQualityRule
from dataplex_dq.record.artifacts import RuleTest, manifest_rules, scan_spec
from dataplex_dq.record.declared import DeclaredRule, recorded_rules
from dataplex_dq.run.assemble import AssembleError, build_result
from dataplex_dq.run.metrics import RuleMetrics, RuleStatus, status_of
from dataplex_dq.run.recorded import outcome_of, recorded_jobs
from dataplex_dq.run.report import _Declared


def _identity(rules: int, offset: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "rule_index": i,
            "name_given": True,
            "rule": {"name": f"r{offset + i}", "column": "qty", "set_expectation": {"values": ["1", "2"]}},
        }
        for i in range(rules)
    ]


def _scan_node(uid: str, rules: int) -> dict[str, Any]:
    declared = [{"name": f"r{i}", "column": "qty", "setExpectation": {"values": ["1", str(i)]}} for i in range(rules)]
    return {
        "resource_type": "test",
        "name": uid.split(".")[2],
        "attached_node": "seed.p.items",
        "test_metadata": {
            "namespace": "dataplex_dq",
            "name": "data_quality_scan",
            "kwargs": {"rules": declared, "rowFilter": "id > 0", "model": "{{ ref('items') }}"},
        },
        "config": {"meta": {"dataplex_dq_rules": _identity(rules)}, "severity": "warn"},
    }


def _reachable(root: Any) -> set[int]:
    """The ids of the containers the garbage collector tracks that are reachable from ``root`` (classes, modules and
    functions not walked into; strings and numbers are not counted)."""
    seen: set[int] = set()
    tracked: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        if gc.is_tracked(obj):
            tracked.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return tracked


def _new_tracked(make: Any, inputs: Any = None) -> tuple[Any, int]:
    """What ``make()`` returns, and how many objects reachable from it are not reachable from ``inputs``: what it
    built and keeps alive (counted from the result, not from the whole process, where other threads allocate too)."""
    made = make()
    return made, len(_reachable(made) - _reachable(inputs))


def test_a_scans_rules_are_not_copied_into_its_kwargs():
    """manifest_rules kept every rule of a scan twice more (snake_keys, then scan_spec's rules), ~11,000 objects
    for 10,000 rules that lived as long as the report, read by nothing but a count (export-spec)."""
    manifest = {"nodes": {f"test.p.scan{t}.h": _scan_node(f"test.p.scan{t}.h", 500) for t in range(2)}}
    manifest["nodes"]["seed.p.items"] = {"resource_type": "seed", "unique_id": "seed.p.items", "name": "items"}
    (tests, sources), made = _new_tracked(lambda: manifest_rules(manifest), manifest)
    assert made < 100, made  # was 2,000 rules x 1.5 (1,000 of them lists of values)
    scan = tests["test.p.scan0.h"]
    assert scan.kwargs["rules"] is manifest["nodes"]["test.p.scan0.h"]["test_metadata"]["kwargs"]["rules"]
    assert len(scan.kwargs["rules"]) == 500 and scan.kwargs["row_filter"] == "id > 0" and "model" not in scan.kwargs
    assert sources["seed.p.items"].settings == {"row_filter": "id > 0"}  # the scan's settings, read as before
    assert scan.severity == "WARN"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": [{"nonNullExpectation": {}, "column": "a", "threshold": 0}], "samplingPercent": 10, "model": "m"},
        {"dataQualitySpec": {"rules": [{"column": "", "rowConditionExpectation": {}}], "rowFilter": "x"}},
        {"rules": [{"a": 1}], "data_quality_spec": {"rules": [{"b": 2}], "post_scan_actions": {"bigqueryExport": {}}}},
        {"rules": [{"a": 1}], "data_quality_spec": {"rules": None, "row_filter": "y"}},
        {"name": "projects/p/dataScans/s", "labels": {"k": "v"}, "data_quality_spec": {"sampling_percent": 5}},
    ],
)
def test_scan_spec_with_rules_as_declared_reads_everything_else_the_same(kwargs):
    normalized, declared = scan_spec(kwargs), scan_spec(kwargs, normalize_rules=False)
    assert {k: v for k, v in declared.items() if k != "rules"} == {k: v for k, v in normalized.items() if k != "rules"}
    assert len(declared.get("rules") or []) == len(normalized.get("rules") or [])
    spec = kwargs.get("dataQualitySpec") or kwargs.get("data_quality_spec") or {}
    assert declared.get("rules") is (spec.get("rules") if spec.get("rules") is not None else kwargs.get("rules"))


def test_declared_rules_are_the_manifests_own_dicts():
    identity = _identity(3)
    test = RuleTest("test.p.s.h", "s", "data_quality_scan", "seed.p.items", None, None, {}, None, 0, identity=identity)
    rules = recorded_rules(test)
    assert [(r.rule_index, r.name) for r in rules] == [(0, "r0"), (1, "r1"), (2, "r2")]
    assert all(r.rule is entry["rule"] for r, entry in zip(rules, identity, strict=True))  # not copies
    assert not hasattr(rules[0], "__dict__")  # slots: one small object a rule


def _tests(count: int, rules: int) -> dict[str, RuleTest]:
    return {
        f"test.p.t{t}": RuleTest(
            f"test.p.t{t}",
            f"t{t}",
            "data_quality_scan",
            "seed.p.items",
            None,
            None,
            {},
            None,
            t,
            identity=_identity(rules, offset=t * rules),
        )
        for t in range(count)
    }


def _live_declared_rules() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is DeclaredRule)


def test_the_declared_rules_are_read_test_by_test_and_not_all_kept():
    """The report held a DeclaredRule per rule of the run while it read the rows (10,000 objects); now a test's
    rules are read when its rows are, and only the last tests' are kept."""
    tests = _tests(40, 50)
    declared = _Declared(tests)
    baseline = _live_declared_rules()
    for t in range(40):
        for i in range(50):
            rule = declared[(f"test.p.t{t}", f"r{t * 50 + i}")]
            assert (rule.rule_index, rule.name) == (i, f"r{t * 50 + i}")
    assert _live_declared_rules() - baseline <= _Declared.KEPT * 50  # was 2,000: every rule of every test
    assert declared.get(("test.p.t3", "r0")) is None and declared.get(("test.p.none", "r0")) is None
    # still a whole mapping for whoever iterates it
    assert len(declared) == 2000 and ("test.p.t39", "r1999") in declared
    assert {k: v.rule_index for k, v in declared.items()} == {
        (f"test.p.t{t}", f"r{t * 50 + i}"): i for t in range(40) for i in range(50)
    }


def test_a_test_without_a_readable_record_is_read_from_its_rows_alone():
    tests = {"test.p.old": RuleTest("test.p.old", "old", "range_expectation", "seed.p.items", "qty", None, {}, None, 0)}
    declared = _Declared(tests)
    assert declared.get(("test.p.old", "qty-range")) is None and len(declared) == 0


def test_recorded_jobs_with_the_lazy_declared_rules_read_each_rules_index():
    tests = _tests(2, 3)
    rows = [
        rule_row(
            f"r{t * 3 + i}",
            "Set check",
            "PASSED",
            dbt_test_unique_id=f"test.p.t{t}",
            rule_rows_evaluated=8,
            rule_rows_passed=8,
            rule_parameters=json.dumps({"values": ["1"]}),
        )
        for t in (1, 0)
        for i in (2, 0, 1)
    ]
    (job,) = recorded_jobs(rows, [], "duckdb", _Declared(tests))
    assert [(o.rule_name, o.rule_index) for o in job.outcomes] == [
        ("r5", 2),
        ("r3", 0),
        ("r4", 1),
        ("r2", 2),
        ("r0", 0),
        ("r1", 1),
    ]
    result = build_result(job.outcomes, job.card, row_count=None, test_order=["test.p.t0", "test.p.t1"])
    assert [r.rule.name for r in result.rules] == ["r0", "r1", "r2", "r3", "r4", "r5"]


def test_an_outcome_carries_its_spec_and_attributes_parsed_once():
    """The reader printed each rule's spec and attributes back into JSON text for its RuleMetrics (10,000
    json.dumps a report), text nothing read: the outcome has them parsed."""
    row = rule_row(
        "qty-range",
        "Range Check",
        "FAILED",
        rule_parameters=json.dumps({"max_value": "5"}),
        rule_rows_evaluated=8,
        rule_rows_passed=7,
        rule_attributes=json.dumps({"owner": "shop", "n": 1}),
    )
    outcome = outcome_of(row)
    assert outcome.rule_spec == {
        "name": "qty-range",
        "column": "qty",
        "dimension": "VALIDITY",
        "range_expectation": {"max_value": "5"},
    }
    assert outcome.attributes == {"owner": "shop", "n": "1"}
    assert outcome.metrics is not None and outcome.metrics.rule_spec is None and outcome.metrics.rule_attributes is None
    assert (outcome.status, outcome.metrics.pass_ratio, outcome.threshold) == (RuleStatus.FAILED, 7 / 8, 1.0)


@pytest.mark.parametrize("attributes", ["[1, 2]", '"text"', "not json"])
def test_attributes_that_are_no_object_are_refused_as_before(attributes):
    row = rule_row(
        "qty-range", "Range Check", "PASSED", rule_rows_evaluated=8, rule_rows_passed=8, rule_attributes=attributes
    )
    with pytest.raises(Exception, match="rule_attributes of rule qty-range is not a JSON object"):
        outcome_of(row)


def test_values_of_their_fields_type_are_kept_and_others_converted():
    row = {
        "rule_name": "r",
        "rule_type": "range_expectation",
        "row_count": 10,
        "evaluated_count": Decimal("8"),
        "passed_count": "7",
        "pass_ratio": 0.875,
        "rule_threshold": Decimal("0.5"),
        "passed": False,
        "rule_suspended": "false",
        "rule_status": "FAILED",
        "evaluated_at": "2024-01-02T03:04:05",
    }
    m = RuleMetrics.from_row(row)
    assert (m.row_count, m.evaluated_count, m.passed_count) == (10, 8, 7)
    assert type(m.evaluated_count) is int and type(m.passed_count) is int
    assert m.rule_threshold == 0.5 and type(m.rule_threshold) is float
    assert m.rule_suspended is False and m.evaluated_at is not None and m.evaluated_at.tzinfo is not None
    with pytest.raises(Exception, match="column row_count: expected an integer, got a boolean"):
        RuleMetrics.from_row({**row, "row_count": True})


def test_status_of_is_the_enums_lookup():
    assert all(status_of(s.value) is s for s in RuleStatus)
    with pytest.raises(ValueError):
        status_of("passed")


def test_duplicate_names_among_many_rules_are_still_refused():
    rows = [
        rule_row(
            f"r{i}", "Set check", "PASSED", dbt_test_unique_id="test.p.t", rule_rows_evaluated=1, rule_rows_passed=1
        )
        for i in range(3000)
    ]
    (job,) = recorded_jobs(rows, [], "duckdb")
    assert len(build_result(job.outcomes, job.card, row_count=None).rules) == 3000
    (twice,) = recorded_jobs([*rows, rows[7], rows[9]], [], "duckdb")
    with pytest.raises(AssembleError, match=r"rule names used more than once: r7, r9$"):
        build_result(twice.outcomes, twice.card, row_count=None)


# ---------------------------------------------------------------- the result files: flushed together


def _sources(out: Path, count: int) -> list[Any]:
    sources = []
    for i in range(count):
        result = DataQualityResult(row_count=i + 1, passed=True)
        sources.append(SimpleNamespace(result=result, json_path=out / f"s{i}.json", pb_path=out / f"s{i}.pb"))
    return sources


def test_every_result_file_is_flushed_before_any_is_renamed_and_several_at_once(tmp_path, monkeypatch):
    """One fsync after another, 40 result files took ~0.1 s; flushed several at once they take ~0.03 s. Still
    every file is on disk before the first is renamed into place (a crash leaves the old set or the new)."""
    out = tmp_path / "dataplex_dq"
    out.mkdir()
    real_fsync, real_replace = os.fsync, os.replace
    flushed: set[str] = set()
    renamed_with: list[set[str]] = []
    calls = [0]
    lock = threading.Lock()
    # the first two flushes meet: both in flight at once (one after the other, the first waits alone and the
    # barrier breaks; its timeout is a guard against a hang, not a measured time)
    two_at_once = threading.Barrier(2)

    def fsync(fd: int) -> None:
        with lock:
            calls[0] += 1
            first_two = calls[0] <= 2
        if first_two:
            two_at_once.wait(timeout=30)
        real_fsync(fd)
        with lock:
            flushed.add(os.readlink(f"/proc/self/fd/{fd}"))

    def replace(src: Any, dst: Any) -> None:
        renamed_with.append(set(flushed))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    files.write_result_files(_sources(out, 20), out, page=None)
    assert not two_at_once.broken  # was broken: each file flushed alone, in turn
    assert len(renamed_with) == 40 and all(len(seen) == 40 for seen in renamed_with)
    assert sorted(p.name for p in out.iterdir()) == sorted(f"s{i}{s}" for i in range(20) for s in (".json", ".pb"))
    assert DataQualityResult.FromString((out / "s7.pb").read_bytes()).row_count == 8


def test_a_file_that_cannot_be_flushed_leaves_the_previous_set(tmp_path, monkeypatch):
    out = tmp_path / "dataplex_dq"
    files.write_result_files(_sources(out, 3), out, page=None)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    calls = []

    def full_disk(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 4:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    changed = _sources(out, 3)
    for s in changed:
        s.result.row_count = 99
    with pytest.raises(Exception, match=r"No space left on device; the previous result files are kept$"):
        files.write_result_files(changed, out, page=None)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no temporary file left, nothing replaced


# ---------------------------------------------------------------- manifest.json: only what the report reads


def _big_manifest() -> dict[str, Any]:
    nodes: dict[str, Any] = {}
    for t in range(3):
        uid = f"test.p.scan{t}.h"
        node = _scan_node(uid, 300)
        node.update(
            unique_id=uid,
            compiled_code="select 1 -- " + "x" * 50_000,
            unrendered_config={"meta": {"dataplex_dq_rules": _identity(300)}},
            meta={
                "dataplex_dq_rules": _identity(300),
                "owner": "ann",
                "dataplex_dq": {"alert_suppression_interval": 6},
            },
            columns={f"c{i}": {"name": f"c{i}", "meta": {}} for i in range(50)},
            tags=["nightly"],
            depends_on={"nodes": ["seed.p.items"], "macros": ["macro.dataplex_dq.x"]},
        )
        nodes[uid] = node
    nodes["seed.p.items"] = {
        "resource_type": "seed",
        "unique_id": "seed.p.items",
        "name": "items",
        "database": "db",
        "schema": "main",
        "alias": "items",
        "relation_name": '"db"."main"."items"',
        "config": {"meta": {"dataplex_dq": {"rowFilter": "1=1"}}},
        "group": "finance",
        "raw_code": "",
    }
    nodes["model.dataplex_dq.dataplex_dq_results"] = {
        "resource_type": "model",
        "database": "db",
        "schema": "dq",
        "alias": "results",
        "name": "dataplex_dq_results",
    }
    return {
        "metadata": {"project_name": "p", "dbt_version": "1.11.0"},
        "nodes": nodes,
        "sources": {"source.p.raw.t": {"resource_type": "source", "name": "t", "source_name": "raw"}},
        "macros": {"macro.dataplex_dq.x": {"name": "x", "macro_sql": "{% macro x() %}1{% endmacro %}"}},
        "groups": {"group.p.finance": {"name": "finance", "owner": {"email": "f@example.com"}}},
        "parent_map": {"a": ["b"]},
        "disabled": {},
    }


def _artifacts(tmp_path: Path, manifest: Any) -> Path:
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    run_results = {
        "metadata": {"invocation_id": "inv-1"},
        "args": {"which": "build"},
        "results": [{"unique_id": f"test.p.scan{t}.h", "status": "pass", "timing": []} for t in range(3)],
    }
    (tmp_path / "run_results.json").write_text(json.dumps(run_results))
    return tmp_path


def test_the_manifest_is_read_as_json_would_read_what_the_report_reads(tmp_path):
    from dataplex_dq.record import artifacts

    target = _artifacts(tmp_path, _big_manifest())
    read, made = _new_tracked(lambda: artifacts._read_manifest(target / "manifest.json"))
    whole, whole_made = _new_tracked(lambda: json.loads((target / "manifest.json").read_text()))
    assert made < whole_made / 2, (made, whole_made)  # the compiled SQL, columns, a test's meta copy: not built
    assert "compiled_code" not in read["nodes"]["test.p.scan0.h"] and "parent_map" not in read
    assert read["nodes"]["test.p.scan0.h"]["meta"] == {"owner": "ann", "dataplex_dq": {"alert_suppression_interval": 6}}
    assert manifest_rules(read) == manifest_rules(whole)  # every test and data source read the same
    assert artifacts.results_model_of(read) == {"database": "db", "schema": "dq", "identifier": "results"}
    loaded = artifacts.load_artifacts(target)
    assert loaded.project_name == "p" and loaded.macros == whole["macros"] and len(loaded.runs) == 3
    assert loaded.tests["test.p.scan2.h"].owners == ("ann",)
    assert loaded.tests["test.p.scan2.h"].alert_suppression_interval == 6
    assert loaded.data_sources["seed.p.items"].owners == ("f@example.com",)
    assert loaded.data_sources["seed.p.items"].settings == {"row_filter": "id > 0"}  # the scan's, over the seed's


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('{"nodes": []}', "`nodes` is list, not an object"),
        ('{"nodes": {"test.p.a": {"meta": null}}, "sources": 3}', "`sources` is int, not an object"),
        ("[1, 2]", "the file is list, not an object"),
        ('{"nodes": {', "cannot be read as JSON"),
    ],
)
def test_a_manifest_of_another_shape_gets_the_same_one_line_error(tmp_path, manifest, message):
    from dataplex_dq.errors import ArtifactsError
    from dataplex_dq.record.artifacts import load_artifacts

    target = _artifacts(tmp_path, {})
    (target / "manifest.json").write_text(manifest)
    with pytest.raises(ArtifactsError, match=message) as caught:
        load_artifacts(target)
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------- proto JSON: the same bytes, without json's indenting


def _result_with_everything() -> DataQualityResult:
    result = DataQualityResult(passed=False, score=66.67, row_count=12)
    rule = result.rules.add(passed=False, evaluated_count=8, passed_count=7, pass_ratio=0.875, null_count=0)
    rule.rule.name = 'größe-ok \u2028 "quoted" \\ / \t'
    rule.rule.column = "größe"
    rule.rule.set_expectation.values.extend(["ä", "", "😀", "[1, {2}]"])
    rule.failing_rows_query = "select *\nfrom t where not (x in ('a', 'b'))"
    rule.debug_queries_result_sets.add().results.add(name="m", type="FLOAT64", value="1.5e-07")
    result.rules.add(passed=True).rule.CopyFrom(DataQualityRule(name="empty", non_null_expectation={}))
    result.dimensions.add(passed=True, score=100.0).dimension.name = "VALIDITY"
    result.columns.add(column="größe", score=33.33)
    return result


@pytest.mark.parametrize("include_defaults", [False, True])
def test_proto_json_has_the_bytes_message_to_json_writes(include_defaults, monkeypatch):
    """The result files' JSON is a contract (docs/SEMANTICS.md): byte for byte what json_format.MessageToJson wrote
    (keys sorted, indented by 2, ASCII with escapes), now without its pure-Python indenting encoder."""
    from google.protobuf import json_format

    from dataplex_dq.run.assemble import result_to_json

    result = _result_with_everything()
    expected = json_format.MessageToJson(
        result, sort_keys=True, indent=2, always_print_fields_with_no_presence=include_defaults
    )
    assert "\\u00f6" in expected and "\\ud83d\\ude00" in expected and '"nonNullExpectation": {}' in expected

    def indenting(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("json_format.MessageToJson: json's pure-Python indenting encoder")

    monkeypatch.setattr(json_format, "MessageToJson", indenting)
    assert result_to_json(result, include_defaults=include_defaults) == expected
    assert result_to_json(DataQualityResult()) == "{}"


# ---------------------------------------------------------------- the rows: looked up only when the query fails


class _FakeWarehouse:
    """What read_rows calls of a Warehouse: the query's SQL from the macro, the query, the existence lookup."""

    def __init__(self, *, exists: bool, fails: bool) -> None:
        self.exists, self.fails, self.calls = exists, fails, []

    def macro(self, name: str, **kwargs: Any) -> str:
        self.calls.append(name)
        return f"select * from {kwargs['relation']} where dbt_invocation_id = '{kwargs['invocation_id']}'"

    def query(self, sql: str) -> list[dict[str, Any]]:
        self.calls.append("query")
        if self.fails:
            from dataplex_dq.errors import WarehouseError

            raise WarehouseError("query failed on duckdb: Catalog Error: Table with name results does not exist!\n--")
        return [{"rule_name": "r0"}]

    def relation_exists(self, relation: Any) -> bool:
        self.calls.append("relation_exists")
        return self.exists


def test_the_rows_are_read_without_looking_the_table_up_first():
    """dbt's lookup of a relation lists every relation of its schema (~0.1 s on DuckDB before the first row)."""
    from dataplex_dq.run.recorded import read_rows

    wh = _FakeWarehouse(exists=True, fails=False)
    assert read_rows(wh, "main.results", "inv-1") == [{"rule_name": "r0"}]  # type: ignore[arg-type]
    assert wh.calls == ["results_of_invocation_sql", "query"]  # was: relation_exists first


def test_a_table_that_does_not_exist_yet_has_no_rows_and_one_that_fails_is_one_line():
    from dataplex_dq.run.recorded import ResultsTableError, read_rows

    missing = _FakeWarehouse(exists=False, fails=True)
    assert read_rows(missing, "main.results", "inv-1") == []  # type: ignore[arg-type]
    assert missing.calls == ["results_of_invocation_sql", "query", "relation_exists"]
    broken = _FakeWarehouse(exists=True, fails=True)
    with pytest.raises(ResultsTableError, match=r"^cannot read the results table main.results: query failed") as caught:
        read_rows(broken, "main.results", "inv-1")  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_rows_of_many_tests_in_any_order_read_each_tests_record_once(monkeypatch):
    """A warehouse returns the rows in any order (BigQuery's is arbitrary): 40 tests' rows interleaved still read
    each test's record once, and the outcomes keep the rows' order."""
    from dataplex_dq.run import report

    tests = _tests(40, 5)
    reads: list[str] = []
    real = report.recorded_rules

    def counted(test: RuleTest) -> list[DeclaredRule]:
        reads.append(test.unique_id)
        return real(test)

    monkeypatch.setattr(report, "recorded_rules", counted)
    rows = [
        rule_row(
            f"r{t * 5 + i}",
            "Set check",
            "PASSED",
            dbt_test_unique_id=f"test.p.t{t}",
            rule_rows_evaluated=1,
            rule_rows_passed=1,
        )
        for i in range(5)
        for t in range(40)
    ]
    (job,) = recorded_jobs(rows, [], "duckdb", _Declared(tests))
    assert sorted(reads) == sorted(tests) and len(reads) == 40  # once each (was 200 reads with the rows' order)
    assert [o.rule_name for o in job.outcomes] == [r["rule_name"] for r in rows]
    assert [o.rule_index for o in job.outcomes] == [i for i in range(5) for _ in range(40)]
