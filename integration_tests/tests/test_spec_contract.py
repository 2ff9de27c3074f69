"""Issue 36 item 2 end to end on every target: an ODCS v3 contract using every mapped row of the
mapping (spec/odcs.py) is imported with `dataplex-dq import-contract`, built in ONE `dbt build` (the SQL
the mapping writes runs on DuckDB, PostgreSQL and BigQuery, with the outcome the contract means), then
`dataplex-dq export-contract` writes the rules back as an ODCS contract (validated against the ODCS JSON
schema) whose entries equal the imported ones; the text entry is listed as unmapped."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import drop_target_schemas
from dbt_harness import DbtProject, DbtResult, target_env, write_project

CSV = """\
id,tenant_id,unit,email,amount,country
1,1,kg,a@x.com,5,US
2,1,pounds,,10,FR
3,2,kg,b@x.com,-1,us
4,2,stone,N/A,20,DE
5,1,kg,a@x.com,7,DE
"""
PROPERTIES = {
    "id": [
        {"id": "id_not_null", "metric": "nullValues", "mustBe": 0, "dimension": "completeness"},
        {"id": "id_unique", "metric": "duplicateValues", "mustBe": 0, "severity": "error"},
    ],
    "unit": [
        {"id": "unit_known", "metric": "invalidValues", "arguments": {"validValues": ["kg", "pounds"]}, "mustBe": 0},
        {"id": "unit_mostly_kg", "metric": "invalidValues", "arguments": {"validValues": ["kg"]}, "mustBeLessThan": 3},
    ],
    "country": [
        {"id": "country_code", "metric": "invalidValues", "arguments": {"pattern": "^[A-Z]{2}$"}, "mustBe": 0},
    ],
    "email": [
        {"id": "email_nulls_pct", "metric": "nullValues", "mustBeLessOrEqualTo": 20, "unit": "percent"},
        {"id": "email_missing_few", "metric": "missingValues", "arguments": {"missingValues": [None, "N/A"]},
         "mustBeLessThan": 3},
        {"id": "email_missing_none", "metric": "missingValues", "arguments": {"missingValues": [None, "N/A"]},
         "mustBe": 0},
        {"id": "email_dup_pct", "metric": "duplicateValues", "mustBeLessThan": 1, "unit": "percent"},
    ],
    "amount": [
        {"id": "amount_not_negative", "type": "sql", "query": "SELECT COUNT(*) FROM {object} WHERE {property} < 0",
         "mustBe": 0, "dimension": "accuracy"},
        {"id": "amount_nulls_few", "metric": "nullValues", "mustBeLessThan": 1},
    ],
}  # fmt: skip
SCHEMA_QUALITY = [
    {"id": "row_count", "metric": "rowCount", "mustBeBetween": [1, 10], "description": "volume"},
    {"id": "tenant_key", "metric": "duplicateValues", "arguments": {"properties": ["tenant_id", "id"]}, "mustBe": 0},
    {"id": "reviewed", "type": "text", "description": "Reviewed by finance each month."},
]
CONTRACT = {
    "apiVersion": "v3.1.0",
    "kind": "DataContract",
    "id": "shipments-contract",
    "version": "1.0.0",
    "status": "active",
    "schema": [
        {
            "name": "shipments",
            "physicalType": "table",
            "properties": [{"name": col, "quality": q} for col, q in PROPERTIES.items()],
            "quality": SCHEMA_QUALITY,
        }
    ],
}
# rule name -> whether it passes on CSV
PASSES = {
    "id-not-null": True,
    "id-unique": True,
    "unit-known": False,  # stone
    "unit-mostly-kg": True,  # 2 not kg < 3
    "country-code": False,  # us
    "email-nulls-pct": True,  # 1 of 5 NULL = 20 %
    "email-missing-few": True,  # 2 < 3
    "email-missing-none": False,
    "email-dup-pct": False,  # a@x.com twice: 20 % >= 1
    "amount-not-negative": False,  # -1
    "amount-nulls-few": True,
    "row-count": True,
    "tenant-key": True,
}


@dataclass
class Built:
    target: str
    project: DbtProject
    imported: Any
    build: DbtResult
    rows: dict[str, dict[str, Any]]
    exported: Any
    contract: dict[str, Any] | None


@pytest.fixture(scope="module")
def built(dbt_target, tmp_path_factory):
    tmp: Path = tmp_path_factory.mktemp(f"contract_{dbt_target}")
    env = target_env(dbt_target, tmp, "dq_odcs")
    project = write_project(
        tmp,
        "contracts",
        {"seeds/shipments.csv": CSV, "contract.odcs.yaml": yaml.safe_dump(CONTRACT, sort_keys=False)},
        env=env,
        target=dbt_target,
    )
    try:
        imported = project.dataplex_dq("import-contract", "contract.odcs.yaml", flags=False)
        build = project.run("build", "--select", "package:contracts")
        rows = project.metrics(build)
        exported = project.dataplex_dq("export-contract", "--out", str(tmp / "out.odcs.yaml"))
        out = tmp / "out.odcs.yaml"
        contract = yaml.safe_load(out.read_text()) if out.exists() else None
        yield Built(dbt_target, project, imported, build, rows, exported, contract)
    finally:
        drop_target_schemas(dbt_target, env)


def test_import_lists_the_text_entry_as_unmapped(built: Built) -> None:
    assert built.imported.returncode == 0, built.imported.stdout + built.imported.stderr
    assert "Added 13 rules to seed 'shipments'" in built.imported.stdout
    assert "unmapped: shipments: schema quality 'shipments-text-3': a text rule is for people" in built.imported.stdout


def test_every_mapped_entry_builds_with_the_outcome_the_contract_means(built: Built) -> None:
    assert built.build.returncode in (0, 1), built.build.output[-3000:]
    assert {name: bool(row["passed"]) for name, row in built.rows.items()} == PASSES
    assert built.rows["email-nulls-pct"]["pass_ratio"] == pytest.approx(0.8)
    assert built.rows["amount-not-negative"]["rule_dimension"] == "ACCURACY"


def test_export_gives_every_mapped_entry_back(built: Built) -> None:
    assert built.exported.returncode == 0, built.exported.stdout + built.exported.stderr
    assert built.contract is not None
    [obj] = built.contract["schema"]
    assert obj["name"] == "shipments"
    got = {p["name"]: p["quality"] for p in obj["properties"]}
    assert got == PROPERTIES
    assert obj["quality"] == SCHEMA_QUALITY[:2]
    assert built.contract["apiVersion"] == "v3.1.0" and built.contract["kind"] == "DataContract"
