"""Suggestions into schema.yml with the import-spec writer (spec/import_spec.py: ruamel.yaml round trip,
comments and order kept, per-rule tests or one data_quality_scan): the rules of one data source as a spec,
merged by `merge_spec`, shown as a unified diff of the properties file and written only when asked."""

from __future__ import annotations

import copy
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dataplex_dq.profile.select import DataSource
from dataplex_dq.profile.suggest import Suggestion
from dataplex_dq.spec.import_spec import (
    ImportResult,
    declared_kinds,
    declared_rules,
    dump_properties,
    find_target,
    load_properties,
    merge_spec,
)
from dataplex_dq.spec.reader import parse_spec
from dataplex_dq.spec.validate import regex_check

WRITABLE = ("model", "seed", "snapshot")


@dataclass(frozen=True)
class Declared:
    """What a data source's properties file declares already (so nothing is proposed twice)."""

    path: Path | None  # the properties file (None: a source, which the writer does not edit)
    kinds: frozenset[tuple[str, str | None]]
    names: frozenset[str]


def declared_of(project_dir: Path, source: DataSource) -> Declared:
    if source.resource_type not in WRITABLE:
        return Declared(None, frozenset(), frozenset())
    target = find_target(project_dir, source.name, None)
    doc, _ = load_properties(target.path)
    entry = next(
        (e for e in doc.get(target.section) or [] if isinstance(e, dict) and e.get("name") == source.name),
        None,
    )
    if entry is None:
        return Declared(target.path, frozenset(), frozenset())
    rules, _ = declared_rules(entry)
    return Declared(target.path, frozenset(declared_kinds(entry)), frozenset(d.name for d in rules))


@dataclass
class Merged:
    """One properties file: its text before and after, and what was merged into it per data source."""

    path: Path
    before: str
    after: str = ""
    results: list[tuple[DataSource, ImportResult]] = field(default_factory=list)

    def diff(self, relative_to: Path | None = None) -> str:
        name = str(
            self.path.relative_to(relative_to) if relative_to and self.path.is_relative_to(relative_to) else self.path
        )
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )


def merge_suggestions(
    project_dir: Path, items: Sequence[tuple[DataSource, Sequence[Suggestion]]], *, form: str, write: bool
) -> list[Merged]:
    """The properties files of the data sources with their suggestions merged in (each file read, merged and
    written once; written only when ``write``). Nothing is written when any merge is refused."""
    docs: dict[Path, tuple[Any, Any, Merged]] = {}
    regex = regex_check(project_dir)
    for source, suggestions in items:
        if not suggestions:
            continue
        target = find_target(project_dir, source.name, None)
        if target.path not in docs:
            before = target.path.read_text(encoding="utf-8") if target.path.exists() else ""
            doc, yaml = load_properties(target.path)
            docs[target.path] = (doc, yaml, Merged(target.path, before))
        doc, yaml, merged = docs[target.path]
        loaded = parse_spec({"rules": [s.rule for s in suggestions]}, source=f"the rules suggested for {source.label}")
        result = ImportResult(target.path, target.section, form)
        merge_spec(
            doc,
            target.section,
            source.name,
            loaded=loaded,
            spec=copy.deepcopy(loaded.spec),
            form=form,
            force=False,
            result=result,
            regex=regex,
        )
        merged.results.append((source, result))
    out = []
    for doc, yaml, merged in docs.values():
        merged.after = dump_properties(doc, yaml)
        out.append(merged)
    if write:
        for merged in out:
            merged.path.parent.mkdir(parents=True, exist_ok=True)
            merged.path.write_text(merged.after, encoding="utf-8")
    return out
