"""Rule templates (issue 36): the package's resolution (macros/rule_templates.sql, run with plain Jinja
as import-spec runs it), parameter checks naming the field, the Dataplex entry name matched by its id,
and import-spec writing template_reference rules or refusing an unknown template. The build on the three
warehouses: integration_tests/tests/test_spec_templates.py."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dataplex_dq.spec.import_spec import ImportSpecError, import_spec
from dataplex_dq.spec.reader import load_spec_file
from dataplex_dq.spec.validate import rule_template_check

PROJECT = """\
name: shop
version: '1.0'
config-version: 2
profile: shop
vars:
  dataplex_dq_rule_templates:
    positive:
      sql: select * from ${data()} where ${col} <= ${floor}
      dimension: VALIDITY
      parameters:
        col: {description: a numeric column}
        floor: {description: the lowest value not allowed, default_value: '0'}
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text(PROJECT)
    (tmp_path / "models" / "orders.sql").write_text("select 1 as id\n")
    return tmp_path


def test_resolution_substitutes_values_and_defaults(tmp_path: Path) -> None:
    import yaml

    from dataplex_dq.spec.validate import macros_of  # the same reader

    ns = macros_of(["rule_templates.sql"], None)
    assert ns is not None

    templates = ns.rule_templates_of(yaml.safe_load(PROJECT)["vars"]["dataplex_dq_rule_templates"])
    out = ns.rule_template_resolve({"name": "projects/p/locations/us/entryGroups/g/entries/positive",
                                    "values": {"col": {"value": "amount"}}}, templates)  # fmt: skip
    assert out["key"] == "positive" and out["problems"] == []
    assert out["sql"] == "select * from ${data()} where amount <= 0"
    assert out["dimension"] == "VALIDITY"
    ranged = ns.rule_template_resolve(
        {"name": "system-range-check", "values": {"column": "qty", "min_value": "10", "max_value": "20"}}, templates
    )
    assert ranged["sql"] == (
        "select * from ${data()} where not coalesce((qty is null or (qty >= 10 and qty <= 20)), false)"
    )
    assert set(templates) >= {"system-null-check", "system-range-check", "system-uniqueness-check", "positive"}


def test_parameter_problems_name_the_field(tmp_path: Path) -> None:
    check = rule_template_check(project(tmp_path))
    assert check is not None
    assert check({"name": "positive", "values": {"col": {"value": "amount"}}}) == []
    assert check({"name": "positive", "values": {"column": {"value": "amount"}}}) == [
        ("template_reference.values.column", "unknown parameter of rule template 'positive'; it takes: col, floor"),
        ("template_reference.values.col", "missing: rule template 'positive' needs a value for ${col}"),
    ]
    [(field, message)] = check({"name": "projects/p/locations/us/entryGroups/g/entries/nope"})
    assert field == "template_reference.name"
    assert message.startswith("unknown rule template 'projects/p/locations/us/entryGroups/g/entries/nope'; declare it")
    assert "positive, system-null-check" in message
    assert check({"name": ""}) == [("template_reference.name", "is required (the name of a rule template)")]


SPEC = """\
rules:
  - name: amount-positive
    column: amount
    templateReference:
      name: projects/p/locations/us/entryGroups/g/entries/positive
      values: {col: {value: amount}}
      resolvedSql: select 1   # output only (a result's): left out
  - name: id-not-null
    templateReference: {name: system-null-check, values: {column: {value: id}}}
"""


def test_import_writes_template_reference_tests_and_scan_rules(tmp_path: Path) -> None:
    root = project(tmp_path)
    spec = root / "spec.yaml"
    spec.write_text(SPEC)
    loaded = load_spec_file(spec)
    assert loaded.spec["rules"][0]["template_reference"] == {
        "name": "projects/p/locations/us/entryGroups/g/entries/positive",
        "values": {"col": {"value": "amount"}},
    }
    result = import_spec(spec, "orders", project_dir=root, dialect="duckdb")
    assert [(n, t) for n, t, _ in result.added] == [
        ("amount-positive", "template_reference"),
        ("id-not-null", "template_reference"),
    ]
    import yaml

    doc = yaml.safe_load((root / "models" / "schema.yml").read_text())
    [entry] = doc["models"]
    tests = entry["data_tests"]
    assert tests[0] == {
        "dataplex_dq.template_reference": {
            "name": "amount-positive",
            "arguments": {
                "column": "amount",
                "template_reference": {
                    "name": "projects/p/locations/us/entryGroups/g/entries/positive",
                    "values": {"col": "amount"},
                },
            },
        }
    }
    assert tests[1]["dataplex_dq.template_reference"]["arguments"]["template_reference"] == {
        "name": "system-null-check",
        "values": {"column": "id"},
    }
    import_spec(spec, "orders", project_dir=root, dialect="duckdb", form="scan", force=True)
    doc = yaml.safe_load((root / "models" / "schema.yml").read_text())
    rules = doc["models"][0]["data_tests"][0]["dataplex_dq.data_quality_scan"]["arguments"]["rules"]
    ref = {"name": "system-null-check", "values": {"column": {"value": "id"}}}
    assert rules[1] == {"name": "id-not-null", "template_reference": ref}


def test_import_refuses_an_unknown_template_naming_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    spec = root / "spec.yaml"
    spec.write_text(SPEC.replace("entries/positive", "entries/valid-email"))
    with pytest.raises(ImportSpecError) as err:
        import_spec(spec, "orders", project_dir=root, dialect="duckdb")
    text = str(err.value)
    assert "rule #0 'amount-positive', field 'template_reference.name'" in text
    assert "unknown rule template 'projects/p/locations/us/entryGroups/g/entries/valid-email'" in text
    assert not (root / "models" / "schema.yml").exists()


def test_import_refuses_a_missing_parameter(tmp_path: Path) -> None:
    root = project(tmp_path)
    spec = root / "spec.yaml"
    spec.write_text(textwrap.dedent("""\
        rules:
          - name: qty-range
            templateReference: {name: system-range-check, values: {column: {value: qty}, min_value: {value: '1'}}}
        """))  # fmt: skip
    with pytest.raises(ImportSpecError, match=r"field 'template_reference.values.max_value': missing: rule template"):
        import_spec(spec, "orders", project_dir=root, dialect="duckdb")


def test_a_template_rule_spec_becomes_the_proto_rule() -> None:
    """The report builds DataQualityRule.template_reference (a map of messages) from a metrics row's rule_spec."""
    from dataplex_dq.run.assemble import build_rule
    from dataplex_dq.run.outcomes import RuleOutcome

    spec = {
        "name": "amount-positive",
        "dimension": "VALIDITY",
        "template_reference": {
            "name": "projects/p/locations/us/entryGroups/g/entries/positive",
            "values": {"col": {"value": "amount"}},
            "resolved_sql": "select * from ${data()} where amount <= 0",
        },
    }
    outcome = RuleOutcome(
        rule_name="amount-positive",
        rule_type="template_reference",
        data_source="seed.shop.orders",
        test_unique_id="test.shop.t",
        rule_spec=spec,
        status="ERROR",
    )
    rule = build_rule(outcome)
    assert rule.WhichOneof("rule_type") == "template_reference"
    assert rule.template_reference.name == "projects/p/locations/us/entryGroups/g/entries/positive"
    assert {k: v.value for k, v in rule.template_reference.values.items()} == {"col": "amount"}
    assert rule.template_reference.resolved_sql == "select * from ${data()} where amount <= 0"
