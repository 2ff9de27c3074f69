"""ODCS v3 data contracts (issue 36 item 2): one test per row of the mapping (spec/odcs.py, docs/SEMANTICS.md
"Data contracts (ODCS)"): the Dataplex rule an entry becomes, and the entry it exports back as, equal;
the standard's own examples (integration_tests/odcs/, from bitol-io/open-data-contract-standard) round
trip with every mapped entry equal and the unmapped ones listed; the exported contract validates against
ODCS's JSON schema; import-contract writes schema.yml. The SQL runs on the three warehouses in
integration_tests/tests/test_spec_contract.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from dataplex_dq.cli.main import main
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.spec.export_contract import ContractSchemaError, build_contract, validate_contract
from dataplex_dq.spec.export_spec import ExportedSpec
from dataplex_dq.spec.odcs import Unmapped, comparable, contract_rules, entry_to_rule, rule_to_entry
from dataplex_dq.spec.reader import normalize_spec

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "integration_tests" / "odcs").glob("*.odcs.yaml"))


def roundtrip(entry: dict[str, Any], column: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    rule = entry_to_rule(entry, column, "fallback")
    assert not isinstance(rule, Unmapped), rule
    [normalized] = normalize_spec({"rules": [rule]})["rules"]  # a valid DataQualityRule
    back = rule_to_entry(normalized)
    assert not isinstance(back, Unmapped), back
    assert back[1] == column
    assert comparable(back[0]) == comparable(entry)
    return normalized, back[0]


def test_null_values_must_be_zero_is_a_null_check() -> None:
    rule, _ = roundtrip({"id": "no_nulls", "metric": "nullValues", "mustBe": 0, "dimension": "completeness"}, "id")
    assert rule["non_null_expectation"] == {} and rule["name"] == "no-nulls" and rule["dimension"] == "COMPLETENESS"
    assert "threshold" not in rule
    assert rule["attributes"] == {"odcs_id": "no_nulls"}


def test_null_values_percent_is_a_threshold() -> None:
    rule, _ = roundtrip({"metric": "nullValues", "mustBeLessOrEqualTo": 5, "unit": "percent"}, "email")
    assert rule["non_null_expectation"] == {} and rule["threshold"] == pytest.approx(0.95)


def test_invalid_values_with_valid_values_is_a_set_check() -> None:
    entry = {"metric": "invalidValues", "arguments": {"validValues": ["kg", None, "pounds"]}, "mustBe": 0}
    rule, _ = roundtrip(entry, "unit")
    assert rule["set_expectation"] == {"values": ["kg", "pounds"]} and rule["ignore_null"] is True
    numeric, _ = roundtrip({"metric": "invalidValues", "arguments": {"validValues": [1, 2]}, "mustBe": 0}, "n")
    assert numeric["set_expectation"] == {"values": ["1", "2"]}


def test_invalid_values_with_a_pattern_is_a_regex_check() -> None:
    entry = {"metric": "invalidValues", "arguments": {"pattern": "^[A-Z]{2}$"}, "mustBe": 0, "severity": "error"}
    rule, _ = roundtrip(entry, "country")
    assert rule["regex_expectation"] == {"regex": "^[A-Z]{2}$"} and rule["ignore_null"] is True
    assert rule["attributes"]["odcs_severity"] == "error"


def test_duplicate_values_of_a_property_is_a_uniqueness_check() -> None:
    rule, _ = roundtrip({"metric": "duplicateValues", "mustBe": 0, "dimension": "uq"}, "email")
    assert rule["uniqueness_expectation"] == {} and rule["dimension"] == "UNIQUENESS"
    assert rule["attributes"]["odcs_dimension"] == "uq"


def test_duplicate_values_of_the_schema_is_a_duplicate_key_assertion() -> None:
    entry = {"metric": "duplicateValues", "arguments": {"properties": ["tenant_id", "order_id"]}, "mustBe": 0}
    rule, _ = roundtrip(entry, None)
    assert rule["sql_assertion"]["sql_statement"] == (
        "select tenant_id, order_id from ${data()} group by tenant_id, order_id having count(*) > 1"
    )


@pytest.mark.parametrize(
    ("operator", "value", "sql"),
    [
        ("mustBeBetween", [100, 120], "count(*) between 100 and 120"),
        ("mustBeGreaterThan", 1000000, "count(*) > 1000000"),
        ("mustNotBe", 0, "count(*) <> 0"),
    ],
)
def test_row_count_is_a_table_condition(operator: str, value: Any, sql: str) -> None:
    rule, _ = roundtrip({"metric": "rowCount", operator: value}, None)
    assert rule["table_condition_expectation"] == {"sql_expression": sql}


@pytest.mark.parametrize(
    ("sql", "entry"),
    [
        ("COUNT(*) > 3", {"metric": "rowCount", "mustBeGreaterThan": 3}),
        ("COUNT(*) BETWEEN 100 AND 120", {"metric": "rowCount", "mustBeBetween": [100, 120]}),
    ],
)
def test_row_count_transpiled_for_the_target_exports_back(sql: str, entry: dict[str, Any]) -> None:
    """import-contract transpiles `count(*) > 3` for DuckDB as `COUNT(*) > 3` (sqlglot): still a rowCount on export
    (it was exported as `type: sql` before)."""
    got = rule_to_entry({"name": "orders-rowCount-1", "table_condition_expectation": {"sql_expression": sql}})
    assert got == ({"name": "orders-rowCount-1", **entry}, None)


@pytest.mark.parametrize(
    ("entry", "sql"),
    [
        (
            {"metric": "nullValues", "mustBeLessThan": 10},
            "(sum(case when c is null then 1 else 0 end)) < 10",
        ),
        (
            {"metric": "missingValues", "arguments": {"missingValues": [None, "", "N/A"]}, "mustBeLessThan": 100},
            "(sum(case when c is null or c in ('', 'N/A') then 1 else 0 end)) < 100",
        ),
        (
            {
                "metric": "invalidValues",
                "arguments": {"validValues": ["a", "b"]},
                "mustBeLessThan": 5,
                "unit": "percent",
            },
            "(100.0 * sum(case when c not in ('a', 'b') then 1 else 0 end) / nullif(count(*), 0)) < 5",
        ),
        (
            {"metric": "duplicateValues", "mustBeLessThan": 1, "unit": "percent"},
            "(100.0 * (count(c) - count(distinct c)) / nullif(count(*), 0)) < 1",
        ),
    ],
)
def test_other_operators_and_units_are_a_table_condition_over_the_count(entry: dict[str, Any], sql: str) -> None:
    rule, _ = roundtrip(entry, "c")
    assert rule["table_condition_expectation"] == {"sql_expression": sql}
    assert rule["attributes"]["odcs_metric"] == entry["metric"]


def test_missing_values_must_be_zero_is_a_row_condition() -> None:
    entry = {"metric": "missingValues", "arguments": {"missingValues": [None, "", "n/a"]}, "mustBe": 0}
    rule, _ = roundtrip(entry, "email")
    assert rule["row_condition_expectation"] == {"sql_expression": "email is not null and email not in ('', 'n/a')"}


def test_sql_is_an_assertion_over_the_query_value() -> None:
    entry = {"type": "sql", "query": "SELECT COUNT(*) FROM {object} WHERE {property} < 0", "mustBeLessThan": 3}
    rule, _ = roundtrip(entry, "amount")
    assert rule["sql_assertion"]["sql_statement"] == (
        "select 1 as dq_failed from (select 1 as dq_one) dq_one where not "
        "((SELECT COUNT(*) FROM ${data()} WHERE amount < 0) < 3)"
    )


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"type": "text", "description": "verified"}, "a text rule is for people: no Dataplex equivalent"),
        ({"type": "custom", "engine": "soda", "implementation": "x"}, "a soda engine's rule: no Dataplex equivalent"),
        (
            {"metric": "invalidValues", "arguments": {"pattern": "^a"}, "mustBeLessThan": 3},
            "invalidValues with a pattern maps with mustBe 0 only (a regex in SQL differs per warehouse)",
        ),
        ({"metric": "nullValues"}, "needs exactly one operator (mustBe, mustBeLessThan, ...)"),
    ],
)
def test_entries_without_an_equivalent_are_listed(entry: dict[str, Any], why: str) -> None:
    got = entry_to_rule(entry, "c", "f")
    assert isinstance(got, Unmapped) and got.why == why and got.entry == entry


def test_native_rules_export_as_their_odcs_equivalent() -> None:
    rules = normalize_spec(
        {
            "rules": [
                {"name": "qty-range", "column": "qty", "rangeExpectation": {"minValue": "0", "maxValue": "10"}},
                {"name": "pos", "rowConditionExpectation": {"sqlExpression": "qty > 0"}, "dimension": "VALIDITY"},
                {"name": "mean", "column": "qty", "statisticRangeExpectation": {"statistic": "MEAN", "minValue": "1"}},
                {"name": "t", "templateReference": {"name": "system-null-check"}},
                {"name": "u", "column": "id", "uniquenessExpectation": {}, "threshold": 0.9},
            ]
        }
    )["rules"]
    got = [rule_to_entry(r) for r in rules]
    range_query = "SELECT COUNT(*) FROM {object} WHERE qty < 0 OR qty > 10"
    assert got[0] == ({"name": "qty-range", "type": "sql", "query": range_query, "mustBe": 0}, "qty")
    condition = "SELECT COUNT(*) FROM {object} WHERE NOT (qty > 0)"
    assert got[1] == (
        {"name": "pos", "type": "sql", "query": condition, "mustBe": 0, "dimension": "conformity"},
        None,
    )
    mean = {"name": "mean", "type": "sql", "query": "SELECT AVG(qty) FROM {object}", "mustBeGreaterOrEqualTo": 1}
    assert got[2] == (mean, "qty")
    assert isinstance(got[3], Unmapped) and "rule template" in got[3].why
    assert isinstance(got[4], Unmapped) and "threshold" in got[4].why


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_standards_examples_round_trip(path: Path) -> None:
    contract = yaml.safe_load(path.read_text())
    for obj in contract["schema"]:
        mapped = contract_rules(contract, obj["name"])[obj["name"]]
        expected = [(e, p["name"]) for p in obj.get("properties") or [] for e in p.get("quality") or []] + [
            (e, None) for e in obj.get("quality") or []
        ]
        unmapped = [u.entry for u in mapped.unmapped]
        assert len(mapped.rules) + len(unmapped) == len(expected)  # nothing dropped
        rules = normalize_spec({"rules": mapped.rules})["rules"] if mapped.rules else []
        back = [rule_to_entry(r) for r in rules]
        assert [(comparable(e), c) for e, c in expected if e not in unmapped] == [
            (comparable(e), c)
            for e, c in back  # type: ignore[misc]
        ]


def test_the_examples_cover_mapped_and_unmapped() -> None:
    counts = {"mapped": 0, "unmapped": 0}
    for path in EXAMPLES:
        for mapped in contract_rules(yaml.safe_load(path.read_text())).values():
            counts["mapped"] += len(mapped.rules)
            counts["unmapped"] += len(mapped.unmapped)
    assert counts == {"mapped": 5, "unmapped": 2}  # the 2: column-custom's soda rules


def _exported(name: str, rules: list[dict[str, Any]]) -> ExportedSpec:
    source = DataSource(f"model.shop.{name}", name, "model", None, "db", "main", name)
    return ExportedSpec(source, normalize_spec({"rules": rules}))


def test_the_exported_contract_validates_against_the_odcs_schema() -> None:
    contract_yaml = yaml.safe_load(EXAMPLES[-1].read_text())  # full-example
    mapped = contract_rules(contract_yaml)
    contract = build_contract(
        [
            _exported("tbl", mapped["tbl"].rules),
            _exported("other", [{"name": "t", "templateReference": {"name": "x"}}]),
        ],
        name="shop",
        contract_id="shop",
    )
    validate_contract(contract.document)
    [obj] = contract.document["schema"]
    assert obj["name"] == "tbl" and obj["properties"][0]["name"] == "rcvr_cntry_code"
    assert obj["quality"][0]["metric"] == "rowCount"
    assert [(label, u.where) for label, u in contract.unmapped] == [("model 'other'", "rule 't'")]
    bad = dict(contract.document, apiVersion="v9")
    with pytest.raises(
        ContractSchemaError, match=r"^the contract is not valid ODCS v3.1.0 at apiVersion: 'v9' is not one of"
    ):
        validate_contract(bad)


def test_import_contract_writes_rules_and_lists_the_unmapped(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n")
    (tmp_path / "models" / "air_quality.sql").write_text("select 1 as x\n")
    contract = tmp_path / "c.odcs.yaml"
    contract.write_text((EXAMPLES[0].parent / "column-custom.odcs.yaml").read_text())
    out = CliRunner().invoke(
        main, ["import-contract", str(contract), "--model", "air_quality", "--project-dir", str(tmp_path)]
    )
    assert out.exit_code == 0, out.output
    assert out.output.count("unmapped: Air_Quality: property UniqueID quality") == 2
    contract.write_text((EXAMPLES[0].parent / "column-completeness.odcs.yaml").read_text())
    out = CliRunner().invoke(
        main,
        [
            "import-contract",
            str(contract),
            "--model",
            "air_quality",
            "--project-dir",
            str(tmp_path),
            "--dialect",
            "duckdb",
        ],
    )
    assert out.exit_code == 0, out.output
    assert "Added 1 rule to model 'air_quality'" in out.output
    doc = yaml.safe_load((tmp_path / "models" / "schema.yml").read_text())
    [column] = doc["models"][0]["columns"]
    [test] = column["data_tests"]
    body = test["dataplex_dq.non_null_expectation"]
    assert body["name"] == "UniqueID-nullValues-1"
    assert body["arguments"]["dimension"] == "COMPLETENESS"
    assert body["arguments"]["attributes"]["odcs_schedule"] == "0 20 * * *"
