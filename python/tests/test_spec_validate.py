"""import-spec refuses, before writing anything, what compile would refuse (issue 30 item 13): every case of
data/invalid_spec_rules.yml (compiled by integration_tests/tests/test_spec_validation_parity.py), a CRLF in a
recipient, 5,000 rules; a binary or 10^5-deep spec file is one line naming the file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from dataplex_dq.cli.main import main
from dataplex_dq.spec.reader import normalize_spec
from dataplex_dq.spec.validate import MAX_RULES, regex_check, spec_problems

CASES_FILE = Path(__file__).parent / "data" / "invalid_spec_rules.yml"
PLACEHOLDERS = {"LONG_NAME": "a" * 1000, "LONG_DESCRIPTION": "x" * 1025}

SCHEMA = """\
version: 2
# kept
models:
  - name: orders
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation:
              name: amount-present
"""


def load_cases() -> list[dict[str, Any]]:
    cases = yaml.safe_load(CASES_FILE.read_text())
    for case in cases:
        for key in ("name", "description"):
            value = case["rule"].get(key)
            if value in PLACEHOLDERS:
                case["rule"][key] = PLACEHOLDERS[value]
    return cases


CASES = load_cases()


def project(tmp_path: Path) -> Path:
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n")
    (tmp_path / "models" / "orders.sql").write_text("select 1 as amount\n")
    (tmp_path / "models" / "schema.yml").write_text(SCHEMA)
    return tmp_path


def run_import(root: Path, spec: Path, *args: str) -> Any:
    cmd = ["import-spec", str(spec), "--model", "orders", "--project-dir", str(root), "--dialect", "duckdb", *args]
    return CliRunner().invoke(main, cmd)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_python_names_the_field_compile_names(case):
    problems = spec_problems(normalize_spec({"rules": [case["rule"]]}), regex=regex_check(None))
    assert [p.field for p in problems][:1] == ([case["field"]] if case["field"] else [])


@pytest.mark.parametrize("case", [c for c in CASES if c["field"]], ids=[c["id"] for c in CASES if c["field"]])
def test_import_refuses_what_compile_refuses_and_writes_nothing(tmp_path, case):
    root = project(tmp_path)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"rules": [case["rule"]]}))
    out = run_import(root, spec)
    assert out.exit_code == 2, out.output
    assert out.output.count("\n") == 1 and out.output.endswith("\n")
    name = case["rule"]["name"]
    assert out.output.startswith(
        f"dataplex-dq import-spec failed: {spec}: model 'orders', rule #0 '{name}', field '{case['field']}': "
    )
    assert (root / "models" / "schema.yml").read_text() == SCHEMA


def test_a_recipient_with_a_line_break_is_refused(tmp_path):
    root = project(tmp_path)
    spec = tmp_path / "spec.json"
    spec.write_text(
        '{"rules": [{"name": "ok", "column": "amount", "nonNullExpectation": {}}], "postScanActions": '
        '{"notificationReport": {"recipients": {"emails": ["a@example.com\\r\\nBcc: x@example.com"]}, '
        '"jobEndTrigger": {}}}}'
    )
    out = run_import(root, spec)
    assert out.exit_code == 2
    assert (
        f"{spec}: model 'orders', the spec, field 'post_scan_actions.notification_report.recipients.emails[0]': "
        "'a@example.com\\r\\nBcc: x@example.com' is not one email address" in out.output
    )
    assert (root / "models" / "schema.yml").read_text() == SCHEMA


def test_5000_rules_are_refused_as_compile_refuses_more_than_1000_quickly(tmp_path):
    root = project(tmp_path)
    spec = tmp_path / "spec.yaml"
    rules = [{"name": f"r{i}", "column": "amount", "nonNullExpectation": {}} for i in range(5000)]
    spec.write_text(yaml.safe_dump({"rules": rules}))
    started = time.perf_counter()
    out = run_import(root, spec)
    elapsed = time.perf_counter() - started
    assert out.exit_code == 2
    assert (
        f"field 'rules': the data source would have 5001 rules (5000 in this spec); Dataplex allows at most "
        f"{MAX_RULES} per data source" in out.output
    )
    assert (root / "models" / "schema.yml").read_text() == SCHEMA
    print(f"5000 rules refused in {elapsed:.2f} s")


def test_999_rules_next_to_the_one_declared_are_written(tmp_path):
    root = project(tmp_path)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump({"rules": [{"name": f"r{i}", "column": "amount", "nonNullExpectation": {}} for i in range(999)]})
    )
    out = run_import(root, spec)
    assert out.exit_code == 0, out.output
    assert (root / "models" / "schema.yml").read_text().count("dataplex_dq.non_null_expectation") == 1000


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("binary.yaml", bytes(range(256)) * 4, "not a text file (byte 128 is not UTF-8)"),
        ("nul.yaml", b"rules: []\x00\x01", "not a text file (it holds NUL bytes)"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested more than 64 levels deep"),
        ("deep.yaml", b"[" * 100_000 + b"]" * 100_000, "nested more than 64 levels deep"),
        ("deep_blocks.yaml", "".join(" " * i + "a:\n" for i in range(2000)).encode(), "nested more than 64 levels"),
    ],
)
def test_a_binary_or_deep_spec_file_is_one_line_naming_it(tmp_path, name, content, message):
    root = project(tmp_path)
    spec = tmp_path / name
    spec.write_bytes(content)
    out = run_import(root, spec)
    assert out.exit_code == 2
    assert out.output.startswith(f"dataplex-dq import-spec failed: {spec}: {message}")
    assert out.output.count("\n") == 1
    assert out.exception is None or isinstance(out.exception, SystemExit)


def test_a_binary_properties_file_is_one_line(tmp_path):
    root = project(tmp_path)
    (root / "models" / "schema.yml").write_bytes(bytes(range(256)))
    spec = tmp_path / "spec.yaml"
    spec.write_text("rules: [{name: ok, column: amount, nonNullExpectation: {}}]\n")
    out = run_import(root, spec, "--schema-file", str(root / "models" / "schema.yml"))
    assert out.exit_code == 2
    assert out.output.startswith(f"dataplex-dq import-spec failed: {root / 'models' / 'schema.yml'}: cannot be read")
    assert out.output.count("\n") == 1
