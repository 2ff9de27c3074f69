"""One map of a spec's field names from the proto descriptor, for Python and the macros (issue 9, C.1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dataplex_dq.field_names import field_names, snake_keys
from dataplex_dq.record.artifacts import scan_settings, scan_spec

ROOT = Path(__file__).resolve().parents[2]


def test_the_macro_map_is_generated_from_the_descriptor_and_current():
    res = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_spec_fields.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    names = field_names()
    # every depth of the spec, from the descriptor (not a hand list)
    assert names["postScanActions"] == "post_scan_actions" and names["bigqueryExport"] == "bigquery_export"
    assert names["resultsTable"] == "results_table" and names["strictMinEnabled"] == "strict_min_enabled"
    assert names["scoreThresholdTrigger"] == "score_threshold_trigger" and names["sqlStatement"] == "sql_statement"
    assert names["dataQualitySpec"] == "data_quality_spec" and names["executionSpec"] == "execution_spec"


def test_snake_keys_at_every_depth_with_unsets_and_terraform_blocks():
    given = {
        "postScanActions": {"bigqueryExport": {"resultsTable": "p.d.t"}, "notificationReport": None},
        "rowFilter": "",
        "rules": [
            {
                "rangeExpectation": [{"minValue": "1", "strictMinEnabled": False}],
                "setExpectation": [],
                "attributes": {"ownerTeam": "x"},
                "column": "a",
            }
        ],
    }
    assert snake_keys(given) == {
        "post_scan_actions": {"bigquery_export": {"results_table": "p.d.t"}},
        "rules": [
            {
                "range_expectation": {"min_value": "1", "strict_min_enabled": False},
                "attributes": {"ownerTeam": "x"},
                "column": "a",
            }
        ],
    }


def test_scan_arguments_in_every_shape_read_the_same():
    rules = [
        {"nonNullExpectation": {}, "column": "a", "threshold": 0},
        {"column": "", "tableConditionExpectation": {"sqlExpression": "true"}},
    ]
    bare = scan_spec(
        {"rules": rules, "postScanActions": {"bigqueryExport": {"resultsTable": "x.y"}}, "model": "{{ ref('m') }}"}
    )
    wrapped = scan_spec(
        {"dataQualitySpec": {"rules": rules, "postScanActions": {"bigqueryExport": {"resultsTable": "x.y"}}}}
    )
    datascan = scan_spec(
        {
            "name": "projects/p/locations/l/dataScans/s",
            "labels": {"a": "b"},
            "data": {"resource": "r"},
            "data_quality_spec": {"rules": rules, "post_scan_actions": {"bigquery_export": {"results_table": "x.y"}}},
        }
    )
    expected_rules = [
        {"non_null_expectation": {}, "column": "a"},
        {"table_condition_expectation": {"sql_expression": "true"}},
    ]
    for got in (bare, wrapped, datascan):
        assert got["rules"] == expected_rules
        assert scan_settings(got) == {"post_scan_actions": {"bigquery_export": {"results_table": "x.y"}}}
