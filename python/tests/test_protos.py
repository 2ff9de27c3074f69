"""Generated google.cloud.dataplex.v1 code: freshness, round trips, coexistence with Google's."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from google.protobuf import descriptor_pool, json_format

import dataplex_dq.proto as dq
from dataplex_dq.proto import (
    DataQualityColumnResult,
    DataQualityDimension,
    DataQualityDimensionResult,
    DataQualityResult,
    DataQualityRule,
    DataQualityRuleResult,
    DataQualitySpec,
    DataScanCatalogPublishingStatus,
    ScannedData,
    Trigger,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
GENERATOR = REPO_ROOT / "scripts" / "gen_protos.py"
PROTO_OUT = REPO_ROOT / "python" / "dataplex_dq" / "proto"
GRPCIO_TOOLS_VERSION = "1.81.1"


def _grpcio_tools_version() -> str | None:
    try:
        return importlib.metadata.version("grpcio-tools")
    except importlib.metadata.PackageNotFoundError:
        return None


# --------------------------------------------------------------------------- (a) freshness


@pytest.mark.skipif(
    _grpcio_tools_version() != GRPCIO_TOOLS_VERSION,
    reason=f"needs grpcio-tools=={GRPCIO_TOOLS_VERSION} (the `dev` extra) to regenerate the protos",
)
def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    assert run.returncode == 0, f"generator failed:\n{run.stdout}\n{run.stderr}"
    fresh = {p.name: p.read_bytes() for p in sorted(tmp_path.glob("*_pb2.py*"))}
    committed = {p.name: p.read_bytes() for p in sorted(PROTO_OUT.glob("*_pb2.py*"))}
    assert set(fresh) == {
        f"{name}_pb2{suffix}"
        for name in ("data_quality", "data_quality_rule_template", "datascans_common", "processing")
        for suffix in (".py", ".pyi")
    }
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not stale, f"generated proto code is stale: run `make protos` ({', '.join(stale)})"


# --------------------------------------------------------------------------- (b) round trips


def _sample_result() -> DataQualityResult:
    result = DataQualityResult(passed=False, score=62.5, row_count=1000)
    result.scanned_data.incremental_field.field = "updated_at"
    result.scanned_data.incremental_field.start = "2024-01-01T00:00:00Z"
    result.scanned_data.incremental_field.end = "2024-01-02T00:00:00Z"
    result.catalog_publishing_status.state = DataScanCatalogPublishingStatus.SKIPPED

    rule_result = result.rules.add(
        passed=False,
        evaluated_count=990,
        passed_count=900,
        null_count=10,
        pass_ratio=900 / 990,
        failing_rows_query="SELECT * FROM t WHERE NOT (amount BETWEEN 0 AND 100)",
    )
    rule = rule_result.rule
    rule.name = "amount-in-range"
    rule.column = "amount"
    rule.dimension = "VALIDITY"
    rule.threshold = 0.95
    rule.ignore_null = True
    rule.range_expectation.min_value = "0"
    rule.range_expectation.max_value = "100"

    result.rules.append(
        DataQualityRuleResult(
            rule=DataQualityRule(
                name="id-not-null",
                column="id",
                dimension="COMPLETENESS",
                non_null_expectation=DataQualityRule.NonNullExpectation(),
            ),
            passed=True,
            evaluated_count=1000,
            passed_count=1000,
            null_count=0,
            pass_ratio=1.0,
        )
    )
    result.rules.add(
        rule=DataQualityRule(
            name="no-orphans",
            dimension="CONSISTENCY",
            sql_assertion=DataQualityRule.SqlAssertion(sql_statement="SELECT 1 FROM t WHERE FALSE"),
        ),
        passed=True,
        assertion_row_count=0,
    )

    result.dimensions.add(dimension=DataQualityDimension(name="VALIDITY"), passed=False, score=0.0)
    result.dimensions.add(dimension=DataQualityDimension(name="COMPLETENESS"), passed=True, score=100.0)
    result.columns.append(
        DataQualityColumnResult(
            column="amount",
            passed=False,
            score=90.9,
            dimensions=[
                DataQualityDimensionResult(dimension=DataQualityDimension(name="VALIDITY"), passed=False, score=90.9)
            ],
        )
    )
    return result


def _assert_sample(result: DataQualityResult) -> None:
    assert result.passed is False
    assert result.HasField("score") and result.score == pytest.approx(62.5)
    assert result.row_count == 1000
    incremental = result.scanned_data.incremental_field
    assert result.scanned_data.WhichOneof("data_range") == "incremental_field"
    assert (incremental.field, incremental.start, incremental.end) == (
        "updated_at",
        "2024-01-01T00:00:00Z",
        "2024-01-02T00:00:00Z",
    )
    assert result.catalog_publishing_status.state == DataScanCatalogPublishingStatus.SKIPPED

    assert [r.rule.name for r in result.rules] == ["amount-in-range", "id-not-null", "no-orphans"]
    first = result.rules[0]
    assert first.rule.WhichOneof("rule_type") == "range_expectation"
    assert first.rule.range_expectation.min_value == "0"
    assert first.rule.range_expectation.max_value == "100"
    assert first.rule.column == "amount" and first.rule.dimension == "VALIDITY"
    assert first.rule.threshold == 0.95 and first.rule.ignore_null is True
    assert (first.evaluated_count, first.passed_count, first.null_count) == (990, 900, 10)
    assert first.pass_ratio == pytest.approx(900 / 990)
    assert first.failing_rows_query.startswith("SELECT * FROM t WHERE NOT")
    assert result.rules[1].rule.WhichOneof("rule_type") == "non_null_expectation"
    assert result.rules[1].pass_ratio == 1.0
    third = result.rules[2]
    assert third.rule.WhichOneof("rule_type") == "sql_assertion"
    assert third.rule.sql_assertion.sql_statement == "SELECT 1 FROM t WHERE FALSE"
    assert third.assertion_row_count == 0

    assert [(d.dimension.name, d.passed, d.score) for d in result.dimensions] == [
        ("VALIDITY", False, 0.0),
        ("COMPLETENESS", True, 100.0),
    ]
    assert result.dimensions[0].HasField("score")
    [column] = result.columns
    assert column.column == "amount" and column.passed is False
    assert column.score == pytest.approx(90.9, abs=1e-4)  # float field
    assert column.dimensions[0].dimension.name == "VALIDITY"


def test_messages_live_in_the_private_pool() -> None:
    assert DataQualityResult.DESCRIPTOR.file.pool is dq.POOL
    assert DataQualityResult.DESCRIPTOR.full_name == "google.cloud.dataplex.v1.DataQualityResult"
    assert DataQualityResult.__module__ == "dataplex_dq.proto.data_quality_pb2"
    assert ScannedData.__module__ == "dataplex_dq.proto.processing_pb2"
    for name in ("DataQualityResult", "ScannedData", "DataScanCatalogPublishingStatus"):
        with pytest.raises(KeyError):
            descriptor_pool.Default().FindMessageTypeByName(f"google.cloud.dataplex.v1.{name}")


def test_field_numbers_match_google() -> None:
    numbers = {f.name: f.number for f in DataQualityResult.DESCRIPTOR.fields}
    assert numbers["passed"] == 5 and numbers["score"] == 9 and numbers["dimensions"] == 2
    assert numbers["columns"] == 10 and numbers["rules"] == 3 and numbers["row_count"] == 4
    assert numbers["scanned_data"] == 7 and numbers["catalog_publishing_status"] == 11
    incremental = ScannedData.IncrementalField.DESCRIPTOR.fields_by_name
    assert [incremental[n].number for n in ("field", "start", "end")] == [1, 2, 3]
    assert ScannedData.DESCRIPTOR.fields_by_name["incremental_field"].number == 1
    state = DataScanCatalogPublishingStatus.State
    assert [state.Value(n) for n in ("STATE_UNSPECIFIED", "SUCCEEDED", "FAILED", "SKIPPED")] == [
        0,
        1,
        2,
        3,
    ]
    assert DataScanCatalogPublishingStatus.DESCRIPTOR.fields_by_name["state"].number == 1
    rule = DataQualityRule.DESCRIPTOR.fields_by_name
    assert (rule["column"].number, rule["threshold"].number, rule["name"].number) == (500, 503, 504)


def test_field_behavior_annotations_are_readable() -> None:
    from google.api import field_behavior_pb2

    options = DataQualityResult.DESCRIPTOR.fields_by_name["score"].GetOptions()
    assert list(options.Extensions[field_behavior_pb2.field_behavior]) == [field_behavior_pb2.OUTPUT_ONLY]
    cron = Trigger.Schedule.DESCRIPTOR.fields_by_name["cron"].GetOptions()
    assert list(cron.Extensions[field_behavior_pb2.field_behavior]) == [field_behavior_pb2.REQUIRED]


def test_json_round_trip() -> None:
    text = json_format.MessageToJson(_sample_result())
    as_dict = json.loads(text)
    assert as_dict["scannedData"]["incrementalField"]["field"] == "updated_at"
    assert as_dict["rules"][0]["rule"]["rangeExpectation"] == {"minValue": "0", "maxValue": "100"}
    assert as_dict["rules"][0]["evaluatedCount"] == "990"  # int64 as a JSON string
    assert as_dict["catalogPublishingStatus"]["state"] == "SKIPPED"
    assert as_dict["score"] == 62.5
    parsed = json_format.Parse(text, DataQualityResult())
    _assert_sample(parsed)
    assert parsed == _sample_result()

    as_dict_pb = json_format.MessageToDict(_sample_result(), preserving_proto_field_name=True)
    assert as_dict_pb["scanned_data"]["incremental_field"]["end"] == "2024-01-02T00:00:00Z"
    assert json_format.ParseDict(as_dict_pb, DataQualityResult()) == _sample_result()


def test_json_with_well_known_types_and_spec() -> None:
    trigger = Trigger()
    trigger.one_time.ttl_after_scan_completion.FromSeconds(3600)
    text = json_format.MessageToJson(trigger)
    assert json.loads(text) == {"oneTime": {"ttlAfterScanCompletion": "3600s"}}
    assert json_format.Parse(text, Trigger()).one_time.ttl_after_scan_completion.seconds == 3600

    spec = json_format.ParseDict(
        {
            "rules": [
                {"column": "id", "uniquenessExpectation": {}, "dimension": "UNIQUENESS"},
                {"column": "x", "setExpectation": {"values": ["a", "b"]}, "threshold": 0.5},
            ],
            "samplingPercent": 10,
            "rowFilter": "x > 0",
            "postScanActions": {"bigqueryExport": {"resultsTable": "projects/p/datasets/d/tables/t"}},
        },
        DataQualitySpec(),
    )
    assert spec.rules[0].WhichOneof("rule_type") == "uniqueness_expectation"
    assert list(spec.rules[1].set_expectation.values) == ["a", "b"]
    assert spec.sampling_percent == 10 and spec.row_filter == "x > 0"
    assert spec.post_scan_actions.bigquery_export.results_table.endswith("/tables/t")


# --------------------------------------------------------------------------- (c) coexistence

_COEXIST_SCRIPT = textwrap.dedent(
    """
    import json, sys
    if sys.argv[1] == "ours-first":
        import dataplex_dq.proto as ours
        from google.cloud import dataplex_v1
    else:
        from google.cloud import dataplex_v1
        import dataplex_dq.proto as ours

    data = bytes.fromhex(sys.stdin.read().strip())
    ours.DataQualityResult.FromString(data)  # our classes still work in this process
    theirs = dataplex_v1.DataQualityResult.deserialize(data)
    back = ours.DataQualityResult.FromString(dataplex_v1.DataQualityResult.serialize(theirs))
    rule = theirs.rules[0]
    print(json.dumps({
        "passed": theirs.passed,
        "score": theirs.score,
        "row_count": theirs.row_count,
        "incremental": [theirs.scanned_data.incremental_field.field,
                        theirs.scanned_data.incremental_field.start,
                        theirs.scanned_data.incremental_field.end],
        "publishing_state": int(theirs.catalog_publishing_status.state),
        "rule_names": [r.rule.name for r in theirs.rules],
        "rule0": [rule.rule.column, rule.rule.dimension, rule.rule.threshold,
                  rule.rule.ignore_null, rule.rule.range_expectation.min_value,
                  rule.rule.range_expectation.max_value, rule.evaluated_count,
                  rule.passed_count, rule.null_count, rule.pass_ratio, rule.passed],
        "rule2_sql": theirs.rules[2].rule.sql_assertion.sql_statement,
        "dimensions": [[d.dimension.name, d.passed, d.score] for d in theirs.dimensions],
        "column": [theirs.columns[0].column, theirs.columns[0].passed,
                   theirs.columns[0].dimensions[0].dimension.name],
        "back_equal": back.SerializeToString(deterministic=True) == data,
    }))
    """
)


@pytest.mark.skipif(
    importlib.util.find_spec("google.cloud.dataplex_v1") is None,
    reason="google-cloud-dataplex is not installed (it comes with the `test` extra)",
)
@pytest.mark.parametrize("order", ["ours-first", "theirs-first"])
def test_coexists_and_is_wire_compatible_with_google_cloud_dataplex(order: str) -> None:
    data = _sample_result().SerializeToString(deterministic=True)
    run = subprocess.run(
        [sys.executable, "-c", _COEXIST_SCRIPT, order],
        input=data.hex(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, f"importing both failed ({order}):\n{run.stderr}"
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["passed"] is False
    assert got["score"] == pytest.approx(62.5)
    assert got["row_count"] == 1000
    assert got["incremental"] == ["updated_at", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"]
    assert got["publishing_state"] == 3
    assert got["rule_names"] == ["amount-in-range", "id-not-null", "no-orphans"]
    assert got["rule0"][:8] == ["amount", "VALIDITY", 0.95, True, "0", "100", 990, 900]
    assert got["rule0"][8] == 10 and got["rule0"][9] == pytest.approx(900 / 990)
    assert got["rule0"][10] is False
    assert got["rule2_sql"] == "SELECT 1 FROM t WHERE FALSE"
    assert got["dimensions"] == [["VALIDITY", False, 0.0], ["COMPLETENESS", True, 100.0]]
    assert got["column"] == ["amount", False, "VALIDITY"]
    assert got["back_equal"] is True


# --------------------------------------------------------------------------- (d) template_reference (issue 36)


def test_template_reference_is_wire_compatible_with_google_cloud_dataplex() -> None:
    """A rule with template_reference serialized by our code parses with google-cloud-dataplex's
    (which has Google's current proto), every field equal, and back."""
    dataplex = pytest.importorskip("google.cloud.dataplex_v1")
    ours = DataQualityRule(
        name="amount-positive",
        column="amount",
        dimension="VALIDITY",
        template_reference=DataQualityRule.TemplateReference(
            name="projects/p/locations/us/entryGroups/g/entries/value-positive",
            values={"column": DataQualityRule.TemplateReference.ParameterValue(value="amount")},
            resolved_sql="SELECT * FROM t WHERE amount <= 0",
        ),
    )
    ours.template_reference.rule_template.dimension = "VALIDITY"
    ours.template_reference.rule_template.sql_collection.add(query="SELECT * FROM ${data()} WHERE ${column} <= 0")
    ours.template_reference.rule_template.input_parameters["column"].description = "a numeric column"
    theirs = dataplex.DataQualityRule.deserialize(ours.SerializeToString())
    ref = theirs.template_reference
    assert ref.name == "projects/p/locations/us/entryGroups/g/entries/value-positive"
    assert {k: v.value for k, v in ref.values.items()} == {"column": "amount"}
    assert ref.resolved_sql == "SELECT * FROM t WHERE amount <= 0"
    assert ref.rule_template.dimension == "VALIDITY"
    assert [q.query for q in ref.rule_template.sql_collection] == ["SELECT * FROM ${data()} WHERE ${column} <= 0"]
    assert ref.rule_template.input_parameters["column"].description == "a numeric column"
    assert (theirs.name, theirs.column, theirs.dimension) == ("amount-positive", "amount", "VALIDITY")
    back = DataQualityRule.FromString(dataplex.DataQualityRule.serialize(theirs))
    assert back == ours
    numbers = {f.name: f.number for f in DataQualityRule.TemplateReference.DESCRIPTOR.fields}
    assert numbers == {"name": 1, "values": 5, "resolved_sql": 3, "rule_template": 4}
    assert DataQualityRule.DESCRIPTOR.fields_by_name["template_reference"].number == 5
