"""scripts/check_fusion_yaml.py (run by `make lint`): the repository's dbt YAML against dbt Fusion's JSON
schemas (schemas/dbt-fusion/), and that the check finds what it is for (with small schemas of its own)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = REPO_ROOT / "schemas" / "dbt-fusion"


def load_checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_fusion_yaml", REPO_ROOT / "scripts" / "check_fusion_yaml.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def write_schemas(directory: Path) -> Path:
    """Two tiny schemas in Fusion's shape: unknown keys are errors, `enabled` is a boolean."""
    config = {
        "type": "object",
        "properties": {"enabled": {"type": ["boolean", "null"]}, "meta": {"type": "object"}},
        "additionalProperties": False,
    }
    project = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "version": {"type": "string"},
            "config-version": {"type": "integer"},
            "require-dbt-version": {"type": ["string", "array"]},
            "on-run-end": {"type": ["string", "array"]},
        },
        "additionalProperties": True,
    }
    properties = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "version": {"type": "integer"},
            "models": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "config": config},
                    "additionalProperties": False,
                },
            },
        },
        "additionalProperties": False,
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "dbt_project-latest-fusion.json").write_text(json.dumps(project), encoding="utf-8")
    (directory / "dbt_yml_files-latest-fusion.json").write_text(json.dumps(properties), encoding="utf-8")
    return directory


def validate(checker: ModuleType, schemas: Path, text: str) -> list[str]:
    schema = json.loads((schemas / "dbt_yml_files-latest-fusion.json").read_text(encoding="utf-8"))
    import yaml

    return list(checker.errors_of(checker.JinjaAwareValidator(schema), yaml.safe_load(text)))


@pytest.mark.skipif(
    not (SCHEMAS / "dbt_yml_files-latest-fusion.json").exists(),
    reason="dbt Fusion's schemas are not in schemas/dbt-fusion/ (see schemas/dbt-fusion/README.md)",
)
def test_the_repository_yaml_validates_against_fusion_schemas() -> None:
    assert load_checker().main(["--require-schemas"]) == 0


def test_unknown_config_key_and_wrong_type_are_reported(tmp_path: Path) -> None:
    checker = load_checker()
    schemas = write_schemas(tmp_path / "schemas")
    errors = validate(checker, schemas, "models:\n  - name: m\n    config:\n      materialised: table\n")
    assert any("materialised" in e for e in errors), errors
    errors = validate(checker, schemas, "models:\n  - name: m\n    config:\n      enabled: 'yes please'\n")
    assert any("enabled" in e for e in errors), errors


def test_a_jinja_value_is_taken_as_rendered_at_parse_time(tmp_path: Path) -> None:
    checker = load_checker()
    schemas = write_schemas(tmp_path / "schemas")
    text = "models:\n  - name: m\n    config:\n      enabled: \"{{ var('on', false) }}\"\n      meta: {a: 1}\n"
    assert validate(checker, schemas, text) == []


def test_readme_fragments_are_classified(tmp_path: Path) -> None:
    checker = load_checker()
    assert checker.fragment_kind("# dbt_project.yml: one line") == "dbt_project"
    assert checker.fragment_kind("# packages.yml (then `dbt deps`)") == "packages"
    assert checker.fragment_kind("# models/schema.yml") == "properties"
    assert checker.fragment_kind("# .github/workflows/ci.yml") is None
    assert checker.fragment_kind("# profiles.yml") is None
    assert checker.listed_properties("models:\n  - name: orders\n") == "properties"
    assert checker.listed_properties("models:\n  my_project:\n    +materialized: view\n") is None


def test_missing_schemas_pass_unless_required(tmp_path: Path) -> None:
    checker = load_checker()
    assert checker.main(["--schemas", str(tmp_path)]) == 0
    assert checker.main(["--schemas", str(tmp_path), "--require-schemas"]) == 1


def test_the_checker_runs_over_the_repository_with_small_schemas(tmp_path: Path) -> None:
    """The discovery finds the package's, the demo's and the integration projects' files."""
    checker = load_checker()
    projects = {str(p.relative_to(REPO_ROOT)) for p in checker.dbt_projects()}
    assert {".", "demo", "integration_tests"} <= projects
    files = {
        str(f.relative_to(REPO_ROOT))
        for p in checker.dbt_projects()
        for f in checker.property_files(p, {"model-paths": ["models"], "seed-paths": ["seeds"]})
    }
    assert {"models/schema.yml", "demo/models/schema.yml", "integration_tests/seeds/seeds.yml"} <= files
