"""OpenLineage RunEvents (outputs/openlineage.py, docs/SEMANTICS.md §17): built from a report, validated offline
against the vendored OpenLineage JSON schemas (schemas/openlineage/), named as dbt-ol names datasets, sent only
when configured, and a missing package is one clear line. The events of real runs, received on 127.0.0.1 on
each warehouse: integration_tests/tests/test_samples_lineage.py."""

from __future__ import annotations

import builtins
import json
import uuid
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from test_html_render import SOURCE, outcome, report_of

from dataplex_dq.errors import OutputError
from dataplex_dq.outputs import openlineage as ol

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas" / "openlineage"
FACET_SCHEMAS = {
    "dataQualityAssertions": "DataQualityAssertionsDatasetFacet",
    "dataQualityMetrics": "DataQualityMetricsDatasetFacet",
}


def validate_event(event: dict[str, Any]) -> None:
    """The event against OpenLineage.json's RunEvent, each data-quality facet against its own schema; offline."""
    docs = {p.stem: json.loads(p.read_text()) for p in SCHEMAS.glob("*.json")}
    registry: Registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs.values())

    def check(doc: str, name: str, value: Any) -> None:
        schema = {"$ref": f"{docs[doc]['$id']}#/$defs/{name}"}
        Draft202012Validator(schema, registry=registry, format_checker=FormatChecker()).validate(value)

    check("OpenLineage", "RunEvent", event)
    for dataset in event["inputs"]:
        for key, facet in [*dataset["facets"].items(), *dataset["inputFacets"].items()]:
            check(FACET_SCHEMAS[key], FACET_SCHEMAS[key], facet)


def _with_metrics(o, **values):
    return replace(o, metrics=replace(o.metrics, **values))


def _report():
    passing = outcome("amount-range", "PASSED", column="amount", evaluated=100, passed=100)
    failing = _with_metrics(
        outcome("id-unique", "FAILED", column="id", rule_type="uniqueness_expectation", passed=90), null_count=2
    )
    unique = _with_metrics(
        outcome("code-unique", "PASSED", column="code", rule_type="uniqueness_expectation", evaluated=100, passed=97),
        null_count=3,
    )
    minimum = outcome(
        "amount-min",
        "PASSED",
        column="amount",
        rule_type="statistic_range_expectation",
        statistic=1.5,
        spec_extra={"statistic_range_expectation": {"statistic": "MIN", "min_value": "0"}},
    )
    table = outcome("table-check", "FAILED", column=None, rule_type="table_condition_expectation", dimension=None)
    report = report_of(passing, failing, unique, minimum, table)
    report.invocation_id = "0b6a5c1e-8d3f-4c1a-9a57-1f0e2d3c4b5a"
    report.severity = {"test.shop.table-check": "WARN"}
    return report


def _event(report=None, namespace="postgres://localhost:5432"):
    from openlineage.client.serde import Serde

    report = report or _report()
    event = ol.run_event(report, report.sources[0], namespace=namespace, job_namespace="dq")
    return json.loads(Serde.to_json(event))


def test_event_validates_and_carries_one_assertion_per_rule():
    event = _event()
    validate_event(event)
    (dataset,) = event["inputs"]
    assert (dataset["namespace"], dataset["name"]) == ("postgres://localhost:5432", "db.main.orders")
    assert event["job"] == {"namespace": "dq", "name": "db.main.orders.dataplex_dq", "facets": {}}
    assertions = dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert dataset["facets"]["dataQualityAssertions"]["assertions"] == assertions  # both places, as dbt-ol
    assert [(a["assertion"], a["success"], a.get("column"), a["severity"]) for a in assertions] == [
        ("amount-range", True, "amount", "error"),
        ("id-unique", False, "id", "error"),
        ("code-unique", True, "code", "error"),
        ("amount-min", True, "amount", "error"),
        ("table-check", False, None, "warn"),
    ]
    assert assertions[1]["params"] == {
        "rule_type": "uniqueness_expectation",
        "status": "FAILED",
        "dimension": "VALIDITY",
        "pass_ratio": 0.9,
    }
    assert event["eventType"] == "FAIL"  # id-unique failed in an ERROR test
    assert event["run"]["runId"] == str(uuid.uuid5(uuid.UUID("0b6a5c1e-8d3f-4c1a-9a57-1f0e2d3c4b5a"), SOURCE))


def test_metrics_are_what_the_rules_measured():
    metrics = _event()["inputs"][0]["facets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == 100
    cols = metrics["columnMetrics"]
    assert cols["amount"] == {"nullCount": 0, "count": 100.0, "min": 1.5}
    assert cols["id"] == {"nullCount": 2, "count": 98.0}  # duplicates found: no distinct count
    assert cols["code"] == {"nullCount": 3, "count": 97.0, "distinctCount": 97}  # every non-NULL value once
    assert "table-check" not in cols and None not in cols


def test_a_warn_only_failure_completes():
    report = _report()
    report.severity["test.shop.id-unique"] = "WARN"
    event = _event(report)
    validate_event(event)
    assert event["eventType"] == "COMPLETE"


def test_run_id_is_a_uuid_of_the_invocation_and_data_source():
    a = ol.run_id("0b6a5c1e-8d3f-4c1a-9a57-1f0e2d3c4b5a", "model.p.a")
    assert a == ol.run_id("0b6a5c1e-8d3f-4c1a-9a57-1f0e2d3c4b5a", "model.p.a")
    assert a != ol.run_id("0b6a5c1e-8d3f-4c1a-9a57-1f0e2d3c4b5a", "model.p.b")
    assert uuid.UUID(ol.run_id("not-a-uuid", "model.p.a")).version == 5


@pytest.mark.parametrize(
    ("adapter", "credentials", "namespace"),
    [
        ("duckdb", {"path": "/data/dq.duckdb"}, "duckdb:///data/dq.duckdb"),
        ("postgres", {"host": "db.internal", "port": 5433}, "postgres://db.internal:5433"),
        ("bigquery", {"project": "p", "host": None}, "bigquery"),
    ],
)
def test_dataset_namespace_as_dbt_ol(adapter, credentials, namespace):
    assert ol.dataset_namespace(adapter, SimpleNamespace(**credentials)) == namespace


def test_configured_only_the_standard_ways(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    assert ol.lineage_configured({}, cwd, home) is None
    assert ol.lineage_configured({"OPENLINEAGE_URL": "http://127.0.0.1:1"}, cwd, home) == "OPENLINEAGE_URL"
    assert ol.lineage_configured({"OPENLINEAGE__TRANSPORT__TYPE": "console"}, cwd, home)
    assert ol.lineage_configured({"OPENLINEAGE_CONFIG": "/x/openlineage.yml"}, cwd, home)
    assert (
        ol.lineage_configured({"OPENLINEAGE_URL": "http://127.0.0.1:1", "OPENLINEAGE_DISABLED": "true"}, cwd, home)
        is None
    )
    (cwd / "openlineage.yml").write_text("transport: {type: console}\n")
    assert ol.lineage_configured({}, cwd, home) == str(cwd / "openlineage.yml")


class _Wh:
    adapter_type = "postgres"
    adapter = SimpleNamespace(config=SimpleNamespace(credentials=SimpleNamespace(host="127.0.0.1", port=5432)))


def _ctx(env, report=None):
    return SimpleNamespace(env=env, report=report or _report(), wh=_Wh())


def test_unconfigured_emits_nothing_and_never_imports_the_package(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    real_import = builtins.__import__

    def guarded(name, *args, **kwargs):
        assert not name.startswith("openlineage"), "imported while unconfigured"
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded)
    ol.OpenLineageEvents().write(_ctx({}))


def test_missing_package_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    real_import = builtins.__import__

    def missing(name, *args, **kwargs):
        if name.startswith("openlineage"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", missing)
    with pytest.raises(OutputError) as err:
        ol.OpenLineageEvents().write(_ctx({"OPENLINEAGE_URL": "http://127.0.0.1:9"}))
    assert str(err.value) == (
        "OpenLineage is configured (OPENLINEAGE_URL) but the openlineage-python package is missing: "
        "pip install 'dbt-dataplex-dq[openlineage]'"
    )


def test_file_transport_writes_each_job_event(monkeypatch, tmp_path):
    """The file transport, configured by OPENLINEAGE__TRANSPORT__* variables: one valid event per job."""
    out = tmp_path / "events.jsonl"
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "file",
        "OPENLINEAGE__TRANSPORT__LOG_FILE_PATH": str(out),
        "OPENLINEAGE__TRANSPORT__APPEND": "true",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(tmp_path)
    ol.OpenLineageEvents().write(_ctx(env))
    (line,) = out.read_text().splitlines()
    event = json.loads(line)
    validate_event(event)
    assert event["inputs"][0]["namespace"] == "postgres://127.0.0.1:5432"


def test_a_transport_failure_is_one_line_naming_the_data_source(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "file")
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__LOG_FILE_PATH", str(tmp_path / "missing-dir" / "x" / "events.jsonl"))
    with pytest.raises(OutputError) as err:
        ol.OpenLineageEvents().write(_ctx({"OPENLINEAGE__TRANSPORT__TYPE": "file"}))
    text = str(err.value)
    assert "\n" not in text and "model 'orders'" in text and "file transport" in text


def test_console_transport_prints_each_event_on_stderr(monkeypatch, tmp_path, capsys):
    """The console transport logs at INFO, which nothing shows by default: the report shows it on stderr."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "console")
    ol.OpenLineageEvents().write(_ctx({"OPENLINEAGE__TRANSPORT__TYPE": "console"}))
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("{")]
    validate_event(json.loads(line))


def test_a_transport_that_keeps_failing_is_not_tried_for_every_job(monkeypatch, tmp_path):
    """After MAX_FAILURES failed events the report stops sending (each try waits for the transport's retries)."""
    report = _report()
    first = report.sources[0]
    report.sources = [
        replace(first, data_source=replace(first.data_source, unique_id=f"model.shop.t{i}", name=f"t{i}"))
        for i in range(5)
    ]
    tries: list[str] = []

    class _Failing:
        transport = SimpleNamespace(kind="http")

        def emit(self, event):
            tries.append(event.inputs[0].name)
            raise ConnectionError("connection refused\nretries exhausted")

        def close(self, timeout):
            return True

    monkeypatch.setattr(ol, "_client", lambda configured_by: _Failing())
    with pytest.raises(OutputError) as err:
        ol.OpenLineageEvents().write(_ctx({"OPENLINEAGE_URL": "http://127.0.0.1:9"}, report))
    assert len(tries) == ol.MAX_FAILURES == 3
    assert str(err.value) == (
        "5 of 5 OpenLineage events not sent through the http transport (OPENLINEAGE_URL), the rest not tried after 3 "
        "failures: model 't0': connection refused; model 't1': connection refused; model 't2': connection refused"
    )
