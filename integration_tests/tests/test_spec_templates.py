"""Issue 36 item 1 end to end on every target: a Dataplex spec whose rules reference a system-style
template (shipped with the package, macros/rule_templates.sql) and a custom one (declared under
vars: dataplex_dq_rule_templates) is imported with `dataplex-dq import-spec` (per-rule tests on one seed,
a data_quality_scan on another), built in ONE `dbt build`, and reported: every rule's counts, its
template's dimension, and the template's name in the results (metrics row and DataQualityResult file)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import drop_target_schemas
from dbt_harness import DbtProject, DbtResult, target_env, write_project

CSV = "id,amount\n1,5\n2,-3\n2,20\n,4\n5,0\n"
PROJECT_CONFIG = """
vars:
  dataplex_dq_rule_templates:
    positive:
      sql: select * from ${data()} where ${col} <= ${floor}
      dimension: VALIDITY
      parameters:
        col: {description: a numeric column}
        floor: {default_value: '0'}
"""
SPEC = """\
dataQualitySpec:
  rules:
    - name: amount-positive
      templateReference:
        name: projects/my-project/locations/us/entryGroups/governance/entries/positive
        values: {col: {value: amount}}
    - name: id-not-null
      templateReference:
        name: system-null-check
        values: {column: {value: id}}
    - name: amount-in-range
      dimension: ACCURACY
      templateReference:
        name: system-range-check
        values: {column: {value: amount}, min_value: {value: '0'}, max_value: {value: '10'}}
    - name: id-unique
      templateReference:
        name: system-uniqueness-check
        values: {column: {value: id}}
"""
# rows failing each rule (the rule fails when its template's SQL returns rows)
EXPECTED = {
    "amount-positive": (2, "VALIDITY"),  # -3, 0
    "id-not-null": (1, "COMPLETENESS"),  # the NULL id
    "amount-in-range": (2, "ACCURACY"),  # -3, 20 (the rule's own dimension wins)
    "id-unique": (1, "UNIQUENESS"),  # id 2 twice: one group
}
TEMPLATE_NAMES = {
    "amount-positive": "projects/my-project/locations/us/entryGroups/governance/entries/positive",
    "id-not-null": "system-null-check",
    "amount-in-range": "system-range-check",
    "id-unique": "system-uniqueness-check",
}


@dataclass
class Built:
    target: str
    project: DbtProject
    build: DbtResult
    imports: list[Any]
    rows: dict[str, dict[str, dict[str, Any]]]  # seed -> rule -> metrics row
    results: dict[str, dict[str, Any]]  # seed -> its DataQualityResult file (proto JSON)
    report_rc: int
    report_output: str


@pytest.fixture(scope="module")
def built(dbt_target, tmp_path_factory):
    tmp: Path = tmp_path_factory.mktemp(f"templates_{dbt_target}")
    env = target_env(dbt_target, tmp, "dq_tpl")
    project = write_project(
        tmp,
        "templates",
        {"seeds/orders_tests.csv": CSV, "seeds/orders_scan.csv": CSV, "spec.yaml": SPEC},
        env=env,
        target=dbt_target,
        project_config=PROJECT_CONFIG,
    )
    try:
        imports = [
            project.dataplex_dq("import-spec", "spec.yaml", "--model", seed, "--form", form, flags=False)
            for seed, form in (("orders_tests", "tests"), ("orders_scan", "scan"))
        ]
        build = project.run("build", "--select", "package:templates", "dataplex_dq_results")
        report = project.report("--no-fail-on-rule-failure")
        # both seeds' rules have the same names: read each seed's relations apart
        by_seed: dict[str, dict[str, dict[str, Any]]] = {"orders_tests": {}, "orders_scan": {}}
        with project.db() as db:
            for node in build.manifest["nodes"].values():
                if node["resource_type"] == "test" and node.get("relation_name"):
                    seed = node["attached_node"].split(".")[-1]
                    for row in db.query(f"select * from {node['relation_name']}"):
                        by_seed[seed][row["rule_name"]] = row
        results = {}
        for path in (project.target_path / "dataplex_dq").glob("*.json"):
            data = json.loads(path.read_text())
            for seed in by_seed:
                if seed in path.name:
                    results[seed] = data
        yield Built(
            dbt_target, project, build, imports, by_seed, results, report.returncode, report.stdout + report.stderr
        )
    finally:
        drop_target_schemas(dbt_target, env)


def test_the_spec_imports_in_both_forms(built: Built) -> None:
    for run in built.imports:
        assert run.returncode == 0, run.stdout + run.stderr
        assert "Added 4 rules" in run.stdout


def test_every_template_rule_builds_with_its_counts(built: Built) -> None:
    assert built.build.returncode in (0, 1), built.build.output[-3000:]
    for seed in ("orders_tests", "orders_scan"):
        rows = built.rows[seed]
        assert set(rows) == set(EXPECTED), (seed, sorted(rows))
        for name, (failing, dimension) in EXPECTED.items():
            row = rows[name]
            assert row["rule_type"] == "template_reference", (seed, name)
            assert int(row["assertion_row_count"]) == failing, (seed, name)
            assert row["passed"] in (False, 0), (seed, name)
            assert row["rule_status"] == "FAILED"
            assert row["rule_dimension"] == dimension, (seed, name)
            spec = json.loads(row["rule_spec"])
            assert spec["template_reference"]["name"] == TEMPLATE_NAMES[name]
            assert "${data()}" in spec["template_reference"]["resolved_sql"]


def test_the_report_carries_the_template_names(built: Built) -> None:
    assert built.report_rc == 0, built.report_output[-3000:]
    assert set(built.results) == {"orders_tests", "orders_scan"}
    for seed, result in built.results.items():
        rules = {r["rule"]["name"]: r for r in result["rules"]}
        assert set(rules) == set(EXPECTED), seed
        for name, (failing, dimension) in EXPECTED.items():
            rule = rules[name]["rule"]
            assert rule["templateReference"]["name"] == TEMPLATE_NAMES[name]
            assert int(rules[name]["assertionRowCount"]) == failing
            assert rule["dimension"] == dimension
        amount = rules["amount-positive"]["rule"]["templateReference"]
        assert amount["values"] == {"col": {"value": "amount"}}
        assert amount["resolvedSql"] == "select * from ${data()} where amount <= 0"
