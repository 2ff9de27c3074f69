"""Where `import-spec` / `import-contract` write a spec's rules when the target is a dbt source table
(`--source NAME.TABLE`), and which source or model a spec's BigQuery table (a DataScan's
`data.resource`) is, found by itself.

A source table's entry is `sources: [{name: NAME, tables: [{name: TABLE, ...}]}]` in a properties file
under the project's model paths (dbt reads sources there). The relation of a BigQuery resource name
(`//bigquery.googleapis.com/projects/P/datasets/D/tables/T`, or `P.D.T`) is matched against the
project's sources (database/project, schema/dataset, identifier, with dbt's defaults: schema = the
source's name, identifier = the table's name) and, when `target/manifest.json` is there, against every
source, model, seed and snapshot's relation in it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dataplex_dq.errors import DataplexDqError

_RESOURCE = re.compile(r"^(?://bigquery\.googleapis\.com/)?projects/([^/]+)/datasets/([^/]+)/tables/([^/]+)$")


class TargetError(DataplexDqError):
    """A source or resource the project does not have (one line: which, where it was looked for)."""


@dataclass(frozen=True)
class Relation:
    """A BigQuery table: project (None when not given), dataset, table."""

    project: str | None
    dataset: str
    table: str

    def __str__(self) -> str:
        return ".".join(p for p in (self.project, self.dataset, self.table) if p)


def parse_resource(resource: str) -> Relation | None:
    """The table a DataScan's `data.resource` (or a `project.dataset.table` name) names; None for anything
    else (an `entity` of a lake, a Cloud Storage path)."""
    text = resource.strip().strip("`")
    m = _RESOURCE.match(text)
    if m:
        return Relation(m.group(1), m.group(2), m.group(3))
    parts = text.split(".")
    if len(parts) in (2, 3) and all(re.fullmatch(r"[A-Za-z0-9_-]+", p) for p in parts):
        return Relation(parts[0] if len(parts) == 3 else None, parts[-2], parts[-1])
    return None


def split_source(name: str) -> tuple[str, str]:
    """`NAME.TABLE` -> (NAME, TABLE)."""
    source, dot, table = name.partition(".")
    if not dot or not source or not table or "." in table:
        raise TargetError(
            f"--source '{name}': expected SOURCE_NAME.TABLE_NAME, as in {{{{ source('raw', 'orders') }}}}"
        )
    return source, table


def _yaml(path: Path) -> Any:
    import yaml

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def _properties_files(project_dir: Path) -> list[Path]:
    project = _yaml(project_dir / "dbt_project.yml") or {}
    roots = [project_dir / p for p in (project.get("model-paths") or ["models"])]
    return [p for root in roots if root.is_dir() for p in sorted([*root.rglob("*.yml"), *root.rglob("*.yaml")])]


def source_file(project_dir: Path, source: str, table: str) -> Path:
    """The properties file declaring source `source` (the one that lists `table`, when several declare it)."""
    files = []
    for path in _properties_files(project_dir):
        data = _yaml(path)
        for entry in (data or {}).get("sources") or [] if isinstance(data, dict) else []:
            if isinstance(entry, dict) and entry.get("name") == source:
                tables = [t.get("name") for t in entry.get("tables") or [] if isinstance(t, dict)]
                files.append((table in tables, path))
    if not files:
        raise TargetError(f"no source named '{source}' in the properties files under {project_dir}; declare it first")
    files.sort(key=lambda f: not f[0])
    return files[0][1]


@dataclass(frozen=True)
class Found:
    """What a spec's table is in the project: `kind` 'source' (name NAME.TABLE) or 'model' (a model, seed
    or snapshot name), and how it was found."""

    kind: str
    name: str
    how: str


def _same(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a.lower() == b.lower()


def _yaml_sources(project_dir: Path) -> list[tuple[Relation, str]]:
    out = []
    for path in _properties_files(project_dir):
        data = _yaml(path)
        for entry in (data or {}).get("sources") or [] if isinstance(data, dict) else []:
            if not isinstance(entry, dict) or not entry.get("name"):
                continue
            database = entry.get("database") or entry.get("project")
            schema = entry.get("schema") or entry.get("dataset") or entry["name"]
            for t in entry.get("tables") or []:
                if isinstance(t, dict) and t.get("name"):
                    rel = Relation(database, str(schema), str(t.get("identifier") or t["name"]))
                    out.append((rel, f"{entry['name']}.{t['name']}"))
    return out


def _manifest_relations(manifest: dict[str, Any]) -> list[tuple[Relation, Found]]:
    out = []
    for node in [*manifest.get("sources", {}).values(), *manifest.get("nodes", {}).values()]:
        kind = node.get("resource_type")
        if kind not in ("source", "model", "seed", "snapshot"):
            continue
        rel = Relation(
            node.get("database"),
            str(node.get("schema")),
            str(node.get("identifier") or node.get("alias") or node.get("name")),
        )
        if kind == "source":
            found = Found("source", f"{node['source_name']}.{node['name']}", "manifest.json")
        else:
            found = Found("model", str(node["name"]), f"manifest.json ({kind})")
        out.append((rel, found))
    return out


def find_by_resource(project_dir: Path, resource: str, target_path: Path | None = None) -> Found:
    """The source or model reading the BigQuery table `resource`; an error naming the table when none
    (or more than one) does."""
    rel = parse_resource(resource)
    if rel is None:
        raise TargetError(f"the spec's resource '{resource}' is not a BigQuery table; pass --model or --source")
    hits: list[Found] = []
    manifest_path = (target_path or project_dir / "target") / "manifest.json"
    if manifest_path.is_file():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = {}
        for r, found in _manifest_relations(manifest):
            if (
                _same(r.project, rel.project)
                and r.dataset.lower() == rel.dataset.lower()
                and r.table.lower() == rel.table.lower()
            ):
                hits.append(found)
    if not hits:
        for r, name in _yaml_sources(project_dir):
            if (
                _same(r.project, rel.project)
                and r.dataset.lower() == rel.dataset.lower()
                and r.table.lower() == rel.table.lower()
            ):
                hits.append(Found("source", name, "the sources' properties"))
    unique = list({(f.kind, f.name): f for f in hits}.values())
    if not unique:
        raise TargetError(
            f"no source or model of the project reads {rel} (the spec's resource); pass --model or --source"
        )
    if len(unique) > 1:
        names = ", ".join(f"{f.kind} '{f.name}'" for f in unique)
        raise TargetError(f"{rel} (the spec's resource) is read by {names}; pass --model or --source to pick one")
    return unique[0]
