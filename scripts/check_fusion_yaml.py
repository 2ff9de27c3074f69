#!/usr/bin/env python3
"""Validate the YAML dbt reads against dbt Fusion's JSON schemas (part of `make lint`).

The schemas are dbt Labs' own, from the public repository dbt-labs/dbt-jsonschema
(``schemas/latest_fusion/``, Apache-2.0), kept in schemas/dbt-fusion/ with their license so that the
check runs offline (dbt-autofix downloads them at run time instead):

    schemas/dbt-fusion/dbt_project-latest-fusion.json     dbt_project.yml
    schemas/dbt-fusion/dbt_yml_files-latest-fusion.json   property files (schema.yml, seeds.yml, ...)
    schemas/dbt-fusion/packages-latest-fusion.json        packages.yml (checked when the file is there)
    schemas/dbt-fusion/LICENSE.md

What is checked: every dbt project of the repository (the package at the root, demo/, and each
project under integration_tests/): its dbt_project.yml, its packages.yml, and every .yml file under
the paths dbt parses for properties (model-, seed-, macro-, snapshot-, analysis- and test-paths).
And the fenced ``yaml`` blocks of README.md and docs/*.md whose first line is a comment naming the
file (``# models/schema.yml``, ``# dbt_project.yml: ...``, ``# packages.yml``) or that are property
files by their keys (``models:`` holding a list): those are fragments, so a top-level key the schema
requires may be missing; everything they do say must validate.

    python scripts/check_fusion_yaml.py [--schemas DIR] [--require-schemas]

Without the schema files the check says so and passes (exit 0), unless --require-schemas (or
DATAPLEX_DQ_REQUIRE_FUSION_SCHEMAS=1) is given. Exit status 1: a file does not validate.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft7Validator, validators

REPO_ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = REPO_ROOT / "schemas" / "dbt-fusion"
SCHEMA_FILES = {
    "dbt_project": "dbt_project-latest-fusion.json",
    "properties": "dbt_yml_files-latest-fusion.json",
    "packages": "packages-latest-fusion.json",
}
REQUIRED_SCHEMAS = ("dbt_project", "properties")
PROJECT_ROOTS = ("", "demo", "integration_tests")
PROPERTY_PATH_KEYS = {
    "model-paths": ["models"],
    "seed-paths": ["seeds"],
    "macro-paths": ["macros"],
    "snapshot-paths": ["snapshots"],
    "analysis-paths": ["analyses"],
    "test-paths": ["tests"],
}
PROPERTY_DIRS = {d for defaults in PROPERTY_PATH_KEYS.values() for d in defaults}
MARKDOWN_FILES = ("README.md", "docs/*.md")
FENCE_RE = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
SKIPPED_DIRS = {"dbt_packages", "target", "logs", ".venv", "node_modules"}


def dbt_projects() -> list[Path]:
    """Every directory holding a dbt_project.yml under the roots (not installed packages' copies)."""
    found: set[Path] = set()
    for root in PROJECT_ROOTS:
        base = REPO_ROOT / root
        if (base / "dbt_project.yml").exists():
            found.add(base)
        if root:
            for path in base.rglob("dbt_project.yml"):
                if not SKIPPED_DIRS & set(path.relative_to(REPO_ROOT).parts):
                    found.add(path.parent)
    return sorted(found)


def property_files(project: Path, config: dict[str, Any]) -> Iterator[Path]:
    for key, default in PROPERTY_PATH_KEYS.items():
        for rel in config.get(key) or default:
            directory = project / rel
            if not directory.is_dir():
                continue
            for path in sorted(directory.rglob("*.y*ml")):
                parts = set(path.relative_to(project).parts)
                if path.suffix in (".yml", ".yaml") and not SKIPPED_DIRS & parts:
                    yield path


def markdown_blocks() -> Iterator[tuple[str, str, str]]:
    """(where, schema kind, YAML text) of each fenced yaml block whose first line names a dbt file."""
    for pattern in MARKDOWN_FILES:
        for md in sorted(REPO_ROOT.glob(pattern)):
            text = md.read_text(encoding="utf-8")
            for match in FENCE_RE.finditer(text):
                block = match.group(1)
                first = block.lstrip().splitlines()[0] if block.strip() else ""
                kind = fragment_kind(first) or listed_properties(block)
                if kind:
                    line = text.count("\n", 0, match.start()) + 1
                    yield f"{md.relative_to(REPO_ROOT)}:{line}", kind, block


PROPERTY_KEYS = {
    "version", "models", "seeds", "sources", "snapshots", "macros", "analyses", "exposures", "metrics",
    "semantic_models", "saved_queries", "unit_tests", "data_tests", "groups",
}  # fmt: skip


def listed_properties(block: str) -> str | None:
    """A block without a file name is a property file when its keys are property keys holding lists
    (``models: [- name: ...]``; in dbt_project.yml ``models:`` holds a mapping)."""
    try:
        document = yaml.safe_load(block)
    except yaml.YAMLError:
        return None
    if not isinstance(document, dict) or not document or not set(document) <= PROPERTY_KEYS:
        return None
    lists = [v for k, v in document.items() if k != "version"]
    return "properties" if lists and all(isinstance(v, list) for v in lists) else None


def fragment_kind(first_line: str) -> str | None:
    match = re.match(r"#\s*([\w./-]+\.ya?ml)\b", first_line)
    if not match:
        return None
    name = Path(match.group(1)).name
    if name == "dbt_project.yml":
        return "dbt_project"
    if name == "packages.yml":
        return "packages"
    top = Path(match.group(1)).parts[0]
    if top in PROPERTY_DIRS or name in ("schema.yml", "sources.yml", "properties.yml"):
        return "properties"
    return None  # profiles.yml, a CI workflow, a spec file: not a file of dbt's project


# A value that is one Jinja expression ("{{ var('x', false) }}") is rendered by dbt (and by Fusion) when
# it parses the project, before the value is typed: the schema's type applies to what it renders to,
# which a static check cannot know. Such a value is taken for any type (and counted).
JINJA_VALUE = re.compile(r"^\s*\{\{.*\}\}\s*$", re.DOTALL)
JINJA_VALUES: list[str] = []


def _jinja_or(base: Any) -> Any:
    def check(checker: Any, instance: Any) -> bool:
        if base(checker, instance):
            return True
        if isinstance(instance, str) and JINJA_VALUE.match(instance):
            JINJA_VALUES.append(instance)
            return True
        return False

    return check


def _base_type(name: str) -> Any:
    return lambda _checker, instance: Draft7Validator.TYPE_CHECKER.is_type(instance, name)


_TYPES = ("boolean", "integer", "number", "array", "object", "null")
JinjaAwareValidator = validators.extend(
    Draft7Validator,
    type_checker=Draft7Validator.TYPE_CHECKER.redefine_many({name: _jinja_or(_base_type(name)) for name in _TYPES}),
)


def without_top_required(schema: dict[str, Any]) -> dict[str, Any]:
    relaxed = copy.deepcopy(schema)
    relaxed.pop("required", None)
    return relaxed


def errors_of(validator: Any, document: Any) -> list[str]:
    out = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        out.append(f"{where}: {error.message[:300]}")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schemas", type=Path, default=SCHEMA_DIR, help="the directory of the schema files")
    parser.add_argument(
        "--require-schemas",
        action="store_true",
        default=os.environ.get("DATAPLEX_DQ_REQUIRE_FUSION_SCHEMAS") == "1",
        help="fail when the schema files are missing",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list the documents checked")
    args = parser.parse_args(argv)
    schemas: dict[str, dict[str, Any]] = {}
    for kind, name in SCHEMA_FILES.items():
        path = args.schemas / name
        if path.exists():
            schemas[kind] = json.loads(path.read_text(encoding="utf-8"))
    missing = [SCHEMA_FILES[k] for k in REQUIRED_SCHEMAS if k not in schemas]
    if missing:
        print(
            f"check_fusion_yaml: not checked, {', '.join(missing)} missing from {args.schemas} "
            "(dbt-labs/dbt-jsonschema, schemas/latest_fusion/)",
            file=sys.stderr,
        )
        return 1 if args.require_schemas else 0
    checkers = {kind: JinjaAwareValidator(schema) for kind, schema in schemas.items()}
    fragment_checkers = {kind: JinjaAwareValidator(without_top_required(schema)) for kind, schema in schemas.items()}

    checked: list[str] = []
    problems: list[str] = []

    def check(where: str, kind: str, text: str, validator_set: dict[str, Any]) -> None:
        if kind not in validator_set:
            return
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            problems.append(f"{where}: not YAML: {exc}")
            return
        if document is None:
            return
        checked.append(where)
        problems.extend(f"{where}: {e}" for e in errors_of(validator_set[kind], document))

    for project in dbt_projects():
        project_file = project / "dbt_project.yml"
        text = project_file.read_text(encoding="utf-8")
        check(str(project_file.relative_to(REPO_ROOT)), "dbt_project", text, checkers)
        config = yaml.safe_load(text) or {}
        packages = project / "packages.yml"
        if packages.exists():
            check(str(packages.relative_to(REPO_ROOT)), "packages", packages.read_text(encoding="utf-8"), checkers)
        for path in property_files(project, config):
            check(str(path.relative_to(REPO_ROOT)), "properties", path.read_text(encoding="utf-8"), checkers)
    for where, kind, block in markdown_blocks():
        check(where, kind, block, fragment_checkers)

    if args.verbose:
        print("\n".join(checked))
    for line in problems:
        print(line, file=sys.stderr)
    print(
        f"check_fusion_yaml: {len(checked)} YAML documents checked against dbt Fusion's schemas "
        f"({', '.join(sorted(schemas))}; {len(set(JINJA_VALUES))} distinct Jinja values taken as rendered at parse "
        f"time): {len(problems)} problems"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
