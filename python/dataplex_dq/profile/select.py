"""Which data sources a command works on: `-s` as dbt selects (`dbt ls`, in-process), narrowed to the project's
own models, seeds, snapshots and sources, each with where its table is and which columns its owner excluded
from suggestions (`meta.dataplex_dq.suggest: false` on the column, or on the data source for all of them)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dataplex_dq.errors import DataplexDqError, first_line

RESOURCE_TYPES = ("model", "seed", "snapshot", "source")


class SelectError(DataplexDqError):
    """dbt could not list the selected nodes (the project does not parse, or the selector is wrong)."""


@dataclass(frozen=True)
class DataSource:
    unique_id: str
    name: str
    resource_type: str
    database: str | None
    schema: str | None
    identifier: str
    excluded: frozenset[str] = frozenset()  # lower-case columns not to suggest rules on
    suggest: bool = True  # False: meta.dataplex_dq.suggest: false on the data source itself

    @property
    def label(self) -> str:
        return f"{self.resource_type} {self.name}"


def _suggest_flag(meta: Any) -> bool | None:
    dq = meta.get("dataplex_dq") if isinstance(meta, Mapping) else None
    value = dq.get("suggest") if isinstance(dq, Mapping) else None
    return None if value is None else bool(value)


def _meta_flag(node: Mapping[str, Any]) -> bool | None:
    for meta in (node.get("meta"), (node.get("config") or {}).get("meta")):
        flag = _suggest_flag(meta)
        if flag is not None:
            return flag
    return None


def data_source_of(node: Mapping[str, Any]) -> DataSource:
    """A manifest node (model, seed, snapshot or source) as a DataSource."""
    columns = node.get("columns") or {}
    excluded = frozenset(
        str(c.get("name") or key).lower()
        for key, c in columns.items()
        if isinstance(c, Mapping) and _meta_flag(c) is False
    )
    identifier = node.get("identifier") if node["resource_type"] == "source" else node.get("alias")
    return DataSource(
        unique_id=str(node["unique_id"]),
        name=str(node["name"]),
        resource_type=str(node["resource_type"]),
        database=node.get("database"),
        schema=node.get("schema"),
        identifier=str(identifier or node["name"]),
        excluded=excluded,
        suggest=_meta_flag(node) is not False,
    )


def selected_data_sources(
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path,
    *,
    select: Sequence[str],
    exclude: Sequence[str] = (),
) -> list[DataSource]:
    """The project's own data sources `dbt ls -s SELECT --exclude EXCLUDE` lists (all of them without -s);
    dbt writes target_path/manifest.json, which the warehouse's macros are then read from."""
    from dbt.adapters.factory import cleanup_connections, reset_adapters
    from dbt.cli.main import dbtRunner

    cmd = ["ls", "--project-dir", str(project_dir), "--target-path", str(target_path), "--quiet", "--log-level", "none"]
    cmd += ["--output", "json", "--output-keys", "unique_id"]
    for kind in RESOURCE_TYPES:
        cmd += ["--resource-type", kind]
    select = [part for s in select for part in s.split()]  # `-s "a b"` as dbt's `-s a b`
    exclude = [part for s in exclude for part in s.split()]
    if select:
        cmd += ["--select", *select]
    if exclude:
        cmd += ["--exclude", *exclude]
    if profiles_dir:
        cmd += ["--profiles-dir", str(profiles_dir)]
    if target:
        cmd += ["--target", target]
    cleanup_connections()
    reset_adapters()
    try:
        result = dbtRunner().invoke(cmd)
    except Exception as exc:  # dbt raised before producing a result: one line
        raise SelectError(f"dbt ls failed in {project_dir}: {first_line(exc)}") from exc
    finally:
        cleanup_connections()
        reset_adapters()
    if not result.success:
        reason = first_line(result.exception) if result.exception is not None else "see dbt's messages above"
        raise SelectError(f"dbt ls could not select {' '.join(select) or 'the data sources'}: {reason}")
    listed = result.result if isinstance(result.result, list) else []
    ids = [json.loads(line)["unique_id"] for line in listed]
    manifest = json.loads((target_path / "manifest.json").read_text(encoding="utf-8"))
    project = manifest.get("metadata", {}).get("project_name")
    nodes = {**manifest.get("nodes", {}), **manifest.get("sources", {})}
    out = []
    for uid in ids:
        node = nodes.get(uid)
        if node is None or node.get("package_name") != project:
            continue  # the package's own models (the results table) and other packages' are not profiled
        out.append(data_source_of(node))
    return out
