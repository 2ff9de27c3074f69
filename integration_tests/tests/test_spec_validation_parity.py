"""import-spec's verdicts against compile's (issue 30 item 13): every case of
python/tests/data/invalid_spec_rules.yml is compiled as a data_quality_scan on DuckDB, and compile must refuse
exactly the rules import-spec refuses (python/dataplex_dq/spec/validate.py), naming the same field."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import yaml

from dbt_harness import REPO_ROOT, write_project

sys.path.insert(0, str(REPO_ROOT / "python"))

from dataplex_dq.spec.reader import normalize_spec
from dataplex_dq.spec.validate import regex_check, spec_problems

CASES_FILE = REPO_ROOT / "python" / "tests" / "data" / "invalid_spec_rules.yml"
PLACEHOLDERS = {"LONG_NAME": "a" * 1000, "LONG_DESCRIPTION": "x" * 1025}


def cases() -> list[dict[str, Any]]:
    out = yaml.safe_load(CASES_FILE.read_text())
    for case in out:
        for key in ("name", "description"):
            if case["rule"].get(key) in PLACEHOLDERS:
                case["rule"][key] = PLACEHOLDERS[case["rule"][key]]
    return out


CASES = cases()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    root = tmp_path_factory.mktemp("parity")
    scans = [
        {"dataplex_dq.data_quality_scan": {"name": f"case-{case['id']}", "arguments": {"rules": [case["rule"]]}}}
        for case in CASES
    ]
    schema = {"version": 2, "models": [{"name": "checks", "data_tests": scans}]}
    project = write_project(
        root,
        "spec_parity",
        {"models/checks.sql": "select 1 as amount, 'ab' as name\n", "models/schema.yml": yaml.safe_dump(schema)},
        env={"DBT_DUCKDB_PATH": str(root / "parity.duckdb")},
    )
    assert project.run("run").success
    return project.run("test").results_by_name()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_compile_and_import_spec_refuse_the_same_rules_on_the_same_field(compiled, case):
    result = compiled[f"case-{case['id']}"]
    python = [p.field for p in spec_problems(normalize_spec({"rules": [case["rule"]]}), regex=regex_check(None))]
    if case["field"] is None:
        assert result["status"] != "error", result["message"]
        assert python == []
    else:
        assert result["status"] == "error", f"compile accepted {case['id']}"
        assert f"field '{case['field']}'" in result["message"], result["message"]
        assert python[:1] == [case["field"]]
