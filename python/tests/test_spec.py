"""The Dataplex spec-file loader (dataplex_dq.spec.reader) on the corpus and on hand-made edge cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format

from dataplex_dq.proto import DataQualitySpec
from dataplex_dq.spec.reader import (
    RULE_TYPES,
    SpecError,
    load_spec_file,
    normalize_spec,
    parse_spec,
    rule_type_of,
    spec_to_dict,
)

CORPUS = Path(__file__).resolve().parents[2] / "integration_tests" / "specs"
CORPUS_FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".yaml", ".json") and p.name != "index.yml")


def test_corpus_has_every_shape_rule_type_and_option():
    assert len(CORPUS_FILES) >= 10
    loaded = [load_spec_file(p) for p in CORPUS_FILES]
    assert {s.shape for s in loaded} == {"spec", "wrapped", "datascan"}
    assert {p.suffix for p in CORPUS_FILES} == {".yaml", ".json"}
    types = {rule_type_of(r) for s in loaded for r in s.rules}
    assert types == set(RULE_TYPES)
    settings = {k for s in loaded for k in s.settings}
    assert settings == {"row_filter", "sampling_percent", "post_scan_actions", "catalog_publishing_enabled"}
    options = {k for s in loaded for r in s.rules for k in r}
    assert {
        "suspended",
        "ignore_null",
        "threshold",
        "description",
        "debug_queries",
        "attributes",
        "name",
        "column",
        "dimension",
    } <= options
    actions = {k for s in loaded for k in s.settings.get("post_scan_actions", {})}
    assert actions == {"bigquery_export", "notification_report"}


def test_corpus_index_names_every_file_and_an_existing_seed():
    import yaml

    index = yaml.safe_load((CORPUS / "index.yml").read_text())["specs"]
    assert sorted(index) == [p.name for p in CORPUS_FILES]
    seeds = {p.stem for p in (CORPUS.parent / "seeds").glob("*.csv")}
    assert {v["seed"] for v in index.values()} <= seeds


def test_gcloud_sample_wrapped_snake_case():
    s = load_spec_file(CORPUS / "gcloud_sample_wrapped_snake.yaml")
    assert s.shape == "wrapped"
    assert s.settings == {"sampling_percent": 100, "row_filter": "id > 0"}
    assert s.rules[1] == {
        "range_expectation": {"max_value": "20", "min_value": "10", "strict_min_enabled": True},
        "column": "qty",
        "ignore_null": True,
        "threshold": 0.5,
        "dimension": "VALIDITY",
    }
    # ignore_null: false and strict_max_enabled: false are unset
    assert s.rules[3] == {"regex_expectation": {"regex": "^[A-C]$"}, "column": "category", "dimension": "VALIDITY"}
    assert s.rules[6]["statistic_range_expectation"]["statistic"] == "MEAN"


def test_terraform_rendered_nulls_empty_column_and_mixed_casing():
    s = load_spec_file(CORPUS / "terraform_rules_file_mixed.yaml")
    assert s.shape == "spec"
    assert s.settings == {"sampling_percent": 100}  # rowFilter: null is unset
    not_empty = next(r for r in s.rules if r["name"] == "not-empty-table")
    assert not_empty == {
        "dimension": "VALIDITY",
        "name": "not-empty-table",
        "description": "Non-zero number of rows in the table",
        "table_condition_expectation": {"sql_expression": "COUNT(*) > 0"},
    }


def test_terraform_state_blocks_as_lists_and_datascan_fields():
    s = load_spec_file(CORPUS / "terraform_full_quality_state.json")
    assert s.shape == "datascan"
    assert s.incremental_field == "event_ts"
    assert s.data_resource == "//bigquery.googleapis.com/projects/my-project-name/datasets/web_analytics/tables/events"
    assert s.settings == {"row_filter": "source_system <> 'test'"}  # sampling_percent 0, [] and false are unset
    assert s.rules[0] == {
        "column": "event_date",
        "dimension": "COMPLETENESS",
        "name": "event-date-present",
        "non_null_expectation": {},
        "threshold": 0.9,
    }
    assert s.rules[2] == {
        "column": "session_id",
        "dimension": "VALIDITY",
        "name": "session-id-format",
        "regex_expectation": {"regex": "^s[0-9]{2}$"},
    }
    notes = "\n".join(s.notes)
    assert "execution_spec.trigger is left out" in notes
    assert "labels" in notes and "terraform_labels" in notes
    assert "incremental field 'event_ts'" in notes


def test_gcloud_describe_camel_case_at_every_depth():
    s = load_spec_file(CORPUS / "gcloud_describe_camel.yaml")
    assert s.shape == "datascan"
    assert s.incremental_field is None
    assert s.settings["post_scan_actions"] == {
        "bigquery_export": {
            "results_table": "//bigquery.googleapis.com/projects/acme-analytics/datasets/data_quality/tables/dq_results"
        }
    }
    assert s.rules[4] == {
        "dimension": "COMPLETENESS",
        "name": "contact-present",
        "description": "Every customer has a name or an email",
        "sql_assertion": {"sql_statement": "SELECT id FROM ${data()} WHERE name IS NULL AND email IS NULL"},
    }


def test_attributes_and_debug_queries_kept():
    s = load_spec_file(CORPUS / "suspended_attributes_debug.yaml")
    first = s.rules[0]
    assert first["attributes"] == {"owner": "inventory-team", "severity": "high"}
    assert first["debug_queries"][0]["description"] == "Quantities outside the band"
    assert [r["name"] for r in s.rules if r.get("suspended")] == ["price-two-decimals", "score-mean-suspended"]
    # the proto has no attributes: they are left out of it and put back by spec_to_dict
    assert "attributes" not in json_format.MessageToDict(s.to_proto())["rules"][0]
    assert spec_to_dict(s.spec)["rules"][0]["attributes"] == {"owner": "inventory-team", "severity": "high"}


def test_every_unset_spelling_is_unset():
    s = load_spec_file(CORPUS / "all_null_explicit_unset.yaml")
    assert s.settings == {}
    assert s.rules[0] == {
        "name": "val-all-null-nonnull",
        "column": "val",
        "dimension": "COMPLETENESS",
        "non_null_expectation": {},
    }
    assert s.rules[1]["range_expectation"] == {"min_value": "0"}
    assert "threshold" not in s.rules[4] and "column" not in s.rules[4]


def test_numbers_become_the_protos_strings_and_enums_upper_case():
    spec = normalize_spec(
        {
            "rules": [
                {"column": "a", "rangeExpectation": {"minValue": 0, "maxValue": 10.5}},
                {"column": "a", "setExpectation": {"values": [1, "x", True]}},
                {"column": "a", "statisticRangeExpectation": {"statistic": "max", "maxValue": 3}},
            ],
            "samplingPercent": "12.5",
        }
    )
    assert spec["rules"][0]["range_expectation"] == {"min_value": "0", "max_value": "10.5"}
    assert spec["rules"][1]["set_expectation"] == {"values": ["1", "x", "true"]}
    assert spec["rules"][2]["statistic_range_expectation"] == {"statistic": "MAX", "max_value": "3"}
    assert spec["sampling_percent"] == 12.5


def test_spec_to_dict_is_valid_proto_json_in_either_casing():
    s = load_spec_file(CORPUS / "notifications_snake.yaml")
    camel = spec_to_dict(s.spec)
    assert camel["postScanActions"]["notificationReport"]["scoreThresholdTrigger"] == {"scoreThreshold": 85.0}
    assert camel["postScanActions"]["notificationReport"]["jobEndTrigger"] == {}
    message = DataQualitySpec()
    json_format.ParseDict(camel, message)
    assert message.post_scan_actions.notification_report.recipients.emails == [
        "data-oncall@example.com",
        "analytics-team@example.com",
    ]
    snake = spec_to_dict(s.spec, camel_case=False)
    assert snake["rules"][1]["range_expectation"] == {"max_value": "2026-01-01", "strict_max_enabled": True}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"rules": [{"column": "a", "rangeExpectation": {"minVal": "1"}}]},
            "x.yaml: unknown field 'rules[0].rangeExpectation.minVal' in RangeExpectation (did you mean 'minValue'?)",
        ),
        (
            {"dataQualitySpec": {"rules": [{"nonNullExpectation": {}, "thresold": 1}]}},
            "x.yaml: unknown field 'dataQualitySpec.rules[0].thresold' in DataQualityRule (did you mean 'threshold'?)",
        ),
        ({"rules": [{"column": "a"}]}, "x.yaml: rules[0]: no rule type; give one of range_expectation,"),
        (
            {"rules": [{"nonNullExpectation": {}, "uniqueness_expectation": {}}]},
            "x.yaml: rules[0]: more than one rule type (non_null_expectation, uniqueness_expectation)",
        ),
        (
            {"rules": [{"nonNullExpectation": {}, "threshold": "high"}]},
            "x.yaml: rules[0].threshold: expected a number, got 'high'",
        ),
        (
            {"rules": [{"nonNullExpectation": {}, "column": "a", "column_name": "b"}]},
            "x.yaml: unknown field 'rules[0].column_name'",
        ),
        (
            {"rules": [{"nonNullExpectation": {}, "ignoreNull": True, "ignore_null": False}]},
            "x.yaml: rules[0].ignore_null: 'ignore_null' is given twice",
        ),
        (
            {"rules": [{"statisticRangeExpectation": {"statistic": "MEDIAN"}, "column": "a"}]},
            "x.yaml: rules[0].statisticRangeExpectation.statistic: 'MEDIAN' is not one of MEAN, MIN, MAX",
        ),
        ({"rules": []}, "x.yaml: no rules"),
        ({"rowFilter": "a > 1"}, "x.yaml: no rules"),
        ({"rules": {"column": "a"}}, "x.yaml: rules: expected a list, got a mapping"),
        (
            {"data": {"resource": "r"}, "dataQualitySpec": {"rules": [{"nonNullExpectation": {}}]}, "schedule": "x"},
            "x.yaml: unknown field 'schedule' in the DataScan resource",
        ),
        (
            {"dataProfileSpec": {"samplingPercent": 10}, "dataQualitySpec": None},
            "x.yaml: this DataScan has a dataProfileSpec",
        ),
        (["rules"], "x.yaml: expected a mapping (a DataQualitySpec), got a list"),
        (
            {"rules": [{"nonNullExpectation": {}, "column": "a"}], "filter": 'name = "a"'},
            "x.yaml: filter: Dataplex's rule filter (run a subset of the rules) is not supported",
        ),
        (
            {"rules": [], "enableCatalogBasedRules": True},
            "x.yaml: enableCatalogBasedRules: rules from Knowledge Catalog aspects are not supported",
        ),
    ],
)
def test_errors_are_one_line_and_name_the_field(value, message):
    with pytest.raises(SpecError) as info:
        parse_spec(value, "x.yaml")
    text = str(info.value)
    assert text.startswith(message), text
    assert "\n" not in text


def test_output_only_and_false_unsupported_fields_are_dropped():
    s = parse_spec(
        {
            "rules": [{"nonNullExpectation": {}, "column": "a", "ruleSource": {"dataplexAspectRuleSource": {}}}],
            "enableCatalogBasedRules": False,
        }
    )
    assert s.spec == {"rules": [{"non_null_expectation": {}, "column": "a"}]}


def test_file_errors(tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("rules:\n  - column: a\n   nonNullExpectation: {}\n")
    with pytest.raises(SpecError, match=r"bad\.yaml: not valid YAML: .* at line 3"):
        load_spec_file(bad_yaml)
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"rules": [}')
    with pytest.raises(SpecError, match=r"bad\.json: not valid JSON: .* at line 1 column 12"):
        load_spec_file(bad_json)
    with pytest.raises(SpecError, match=r"missing\.yaml: cannot be read"):
        load_spec_file(tmp_path / "missing.yaml")
    dup = tmp_path / "dup.yaml"
    dup.write_text("rules: []\nrules: []\n")
    with pytest.raises(SpecError, match=r"dup\.yaml: not valid YAML: .*duplicate key"):
        load_spec_file(dup)


def test_json_and_yaml_of_the_same_spec_load_equal(tmp_path):
    s = load_spec_file(CORPUS / "gcloud_describe_full_view.json")
    as_yaml = tmp_path / "same.yaml"
    import yaml

    as_yaml.write_text(
        yaml.safe_dump(
            {
                "data_quality_spec": json.loads((CORPUS / "gcloud_describe_full_view.json").read_text())[
                    "dataQualitySpec"
                ]
            }
        )
    )
    assert load_spec_file(as_yaml).spec == s.spec
    assert s.settings == {"catalog_publishing_enabled": True}
    assert s.rules[4]["debug_queries"][1] == {"sql_statement": "SELECT MAX(price) AS highest FROM ${data()}"}
