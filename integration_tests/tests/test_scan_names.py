"""Issue 9 E.6: a `data_quality_scan` declared without `name:`.

dbt 1.11 names a generic test declared without `name:` after ALL its arguments
(dbt-core's `synthesize_generic_test_names`): the node's `name` and `unique_id` carry the full name
(here over 2 KB), and only its alias and compiled path get the short `<30 chars>_<md5>` form. A
package cannot change a node's name (it is fixed when dbt parses the YAML, before any macro runs), so
the README tells users to give `name:`. What the package controls stays short: the metrics table
(`metrics_alias`), the compile-time errors of the scan (`short_test_name` in macros/test_names.sql)
and everything the post-hook prints (`short_test_name` in report.py):
`data_quality_scan on <data source> (<dbt's hash of the test>)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from dbt_harness import DbtProject, DbtResult, write_project

RULES = [
    {"name": f"quantity-is-within-the-expected-business-range-number-{k:02d}", "column": "qty",
     "rangeExpectation": {"minValue": "0", "maxValue": str(k)}}
    for k in range(30)
]  # fmt: skip
SCHEMA = {
    "version": 2,
    "seeds": [
        {"name": "items", "data_tests": [{"dataplex_dq.data_quality_scan": {"arguments": {"rules": RULES}}}]},
        {
            "name": "other",
            "data_tests": [{"dataplex_dq.data_quality_scan": {"arguments": {"rules": RULES, "bogus_setting": 1}}}],
        },
    ],
}


@dataclass
class Unnamed:
    project: DbtProject
    build: DbtResult
    report_output: str
    scans: dict[str, dict[str, Any]]  # seed -> manifest node of its scan


@pytest.fixture(scope="module")
def unnamed(tmp_path_factory) -> Unnamed:
    tmp: Path = tmp_path_factory.mktemp("scan_names")
    csv = "id,qty\n1,1\n2,\n3,9\n"
    project = write_project(
        tmp,
        "scan_names",
        {"seeds/items.csv": csv, "seeds/other.csv": csv, "seeds/schema.yml": yaml.safe_dump(SCHEMA, sort_keys=False)},
        env={"DBT_DUCKDB_PATH": str(tmp / "names.duckdb")},
    )
    build = project.run("build", "--select", "package:scan_names", "dataplex_dq_results")
    report = project.report("--no-fail-on-rule-failure")
    scans = {
        n["attached_node"].split(".")[-1]: n
        for n in build.manifest["nodes"].values()
        if (n.get("test_metadata") or {}).get("name") == "data_quality_scan"
    }
    return Unnamed(project, build, report.stdout + report.stderr, scans)


def test_dbt_names_an_unnamed_scan_after_all_its_arguments(unnamed):
    """The limitation, pinned: if dbt ever shortens the node name, this test says so."""
    items = unnamed.scans["items"]
    assert len(items["name"]) > 2000 and items["name"].startswith("dataplex_dq_data_quality_scan_items_")
    assert len(items["alias"]) < 64  # the metrics table: the package's short alias
    assert items["relation_name"].endswith(f'"{items["alias"]}"')


def test_the_scans_own_errors_use_a_short_name(unnamed):
    other = unnamed.scans["other"]
    result = unnamed.build.nodes[other["name"]]
    short = f"data_quality_scan on other ({other['unique_id'].split('.')[-1]})"
    assert result.status == "error"
    message = result.message or ""
    assert (
        f"dataplex_dq: seed 'other', data_quality_scan '{short}' (dataplex_dq.data_quality_scan), field"
        " 'bogus_setting': unknown argument" in message
    ), message[:3000]
    # dbt's own prefix ("Compilation Error in test <node name> (<file>)") is dbt's; the package's line is short
    ours = next(line for line in message.splitlines() if "dataplex_dq: seed 'other'" in line)
    assert other["name"] not in ours and len(ours) < 600, ours


def test_the_report_never_prints_the_long_name(unnamed):
    out = unnamed.report_output
    for node in unnamed.scans.values():
        assert node["name"] not in out
    assert f"data_quality_scan on other ({unnamed.scans['other']['unique_id'].split('.')[-1]})" in out, out[-3000:]
    assert "dataplex_dq_data_quality_scan_" not in out  # not even cut: no part of a generated name
