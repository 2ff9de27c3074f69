"""Issue 36 item 3: import-spec into a dbt source table (`--source NAME.TABLE`), and a spec whose
DataScan `data.resource` names a BigQuery table finds the source (or model) reading it by itself and
says which. No dbt run: the YAML written is read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dataplex_dq.cli.main import main
from dataplex_dq.spec.import_spec import ImportSpecError, import_spec
from dataplex_dq.spec.targets import TargetError, find_by_resource, parse_resource

SOURCES = """\
version: 2
sources:
  - name: raw            # schema defaults to the source's name
    tables:
      - name: orders
        description: kept
  - name: shop
    database: my-project
    schema: shop_data
    tables:
      - name: customers
        identifier: customers_v2
"""
SPEC = """\
rules:
  - name: qty-present
    column: qty
    nonNullExpectation: {}
  - name: one-row-at-least
    tableConditionExpectation: {sqlExpression: count(*) > 0}
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n")
    (tmp_path / "models" / "sources.yml").write_text(SOURCES)
    (tmp_path / "models" / "orders_clean.sql").write_text("select 1 as id\n")
    return tmp_path


def datascan(resource: str) -> str:
    return yaml.safe_dump({"data": {"resource": resource}, "dataQualitySpec": yaml.safe_load(SPEC)})


def test_source_option_writes_into_the_source_table_entry(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "spec.yaml").write_text(SPEC)
    result = import_spec(root / "spec.yaml", None, source="raw.orders", project_dir=root, dialect="duckdb")
    assert result.path == root / "models" / "sources.yml" and result.section == "sources"
    doc = yaml.safe_load((root / "models" / "sources.yml").read_text())
    [orders] = doc["sources"][0]["tables"]
    assert orders["description"] == "kept"
    assert orders["columns"] == [
        {"name": "qty", "data_tests": [{"dataplex_dq.non_null_expectation": {"name": "qty-present"}}]}
    ]
    body = {"name": "one-row-at-least", "arguments": {"sql_expression": "COUNT(*) > 0"}}
    assert orders["data_tests"] == [{"dataplex_dq.table_condition_expectation": body}]
    assert "# schema defaults to the source's name" in (root / "models" / "sources.yml").read_text()
    # a second import refuses the clash, naming the source table
    with pytest.raises(ImportSpecError, match=r"source 'raw.orders' already declares rules 'qty-present'"):
        import_spec(root / "spec.yaml", None, source="raw.orders", project_dir=root, dialect="duckdb")


def test_source_table_not_yet_listed_is_added(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "spec.yaml").write_text(SPEC)
    import_spec(root / "spec.yaml", None, source="raw.payments", project_dir=root, dialect="duckdb", form="scan")
    doc = yaml.safe_load((root / "models" / "sources.yml").read_text())
    assert [t["name"] for t in doc["sources"][0]["tables"]] == ["orders", "payments"]
    scan = doc["sources"][0]["tables"][1]["data_tests"][0]["dataplex_dq.data_quality_scan"]
    assert [r["name"] for r in scan["arguments"]["rules"]] == ["qty-present", "one-row-at-least"]


def test_unknown_source_is_one_clear_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "spec.yaml").write_text(SPEC)
    with pytest.raises(TargetError, match=r"^no source named 'lake' in the properties files under"):
        import_spec(root / "spec.yaml", None, source="lake.orders", project_dir=root)
    with pytest.raises(TargetError, match=r"expected SOURCE_NAME.TABLE_NAME"):
        import_spec(root / "spec.yaml", None, source="orders", project_dir=root)


def test_resource_names_parse() -> None:
    assert str(parse_resource("//bigquery.googleapis.com/projects/p/datasets/d/tables/t")) == "p.d.t"
    assert str(parse_resource("d.t")) == "d.t"
    assert parse_resource("projects/p/locations/us/lakes/l/zones/z/entities/e") is None


def test_resource_finds_the_source_by_its_relation_and_says_which(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "scan.yaml").write_text(
        datascan("//bigquery.googleapis.com/projects/my-project/datasets/shop_data/tables/customers_v2")
    )
    runner = CliRunner()
    out = runner.invoke(
        main, ["import-spec", str(root / "scan.yaml"), "--project-dir", str(root), "--dialect", "duckdb"]
    )
    assert out.exit_code == 0, out.output
    assert "source 'shop.customers' (found in the sources' properties)" in out.output
    assert "to source 'shop.customers'" in out.output
    doc = yaml.safe_load((root / "models" / "sources.yml").read_text())
    customers = doc["sources"][1]["tables"][0]
    assert customers["columns"][0]["name"] == "qty"
    # the schema defaults to the source's name
    assert find_by_resource(root, "projects/x/datasets/raw/tables/orders").name == "raw.orders"


def test_resource_finds_a_model_through_the_manifest(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "target").mkdir()
    node = {
        "resource_type": "model",
        "name": "orders_clean",
        "database": "p",
        "schema": "analytics",
        "alias": "orders_clean",
    }
    (root / "target" / "manifest.json").write_text(
        json.dumps({"nodes": {"model.shop.orders_clean": node}, "sources": {}})
    )
    found = find_by_resource(root, "//bigquery.googleapis.com/projects/p/datasets/analytics/tables/orders_clean")
    assert (found.kind, found.name, found.how) == ("model", "orders_clean", "manifest.json (model)")
    (root / "scan.yaml").write_text(
        datascan("//bigquery.googleapis.com/projects/p/datasets/analytics/tables/orders_clean")
    )
    result = import_spec(root / "scan.yaml", None, project_dir=root, dialect="duckdb")
    assert result.target_name == "orders_clean" and result.section == "models"
    assert any("is model 'orders_clean' (found in manifest.json (model))" in n for n in result.notes)


def test_resource_nobody_reads_is_an_error_naming_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "scan.yaml").write_text(datascan("//bigquery.googleapis.com/projects/p/datasets/other/tables/t"))
    runner = CliRunner()
    out = runner.invoke(main, ["import-spec", str(root / "scan.yaml"), "--project-dir", str(root)])
    assert out.exit_code == 2
    assert (
        "no source or model of the project reads p.other.t (the spec's resource); pass --model or --source"
        in out.output
    )
    assert not (root / "models" / "schema.yml").exists()
