"""Which columns a failing-row sample lists first and which it masks (docs/SEMANTICS.md §15, "Failing-row
samples"): per data source, its key columns (the primary key of dbt's constraints, else the columns with a
``unique`` test or a uniqueness_expectation rule, else ``meta.dataplex_dq.sample_keys``) and the columns of
``meta.dataplex_dq.sample_mask``, which the sample SQL (macros/report_samples.sql) replaces before they leave the
warehouse. Pure but for reading manifest.json once."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dataplex_dq.run.model import Report, SourceReport

PRIMARY_KEY = "primary_key"
UNIQUE_TESTS = frozenset({"unique", "uniqueness_expectation"})  # dbt's generic test; the package's rule type


@dataclass(frozen=True)
class SamplePlan:
    """The key columns a data source's samples list first and the columns they mask; ``error`` when its
    ``sample_mask`` is not a list of column names (no sample is then taken: nothing masked by mistake)."""

    keys: tuple[str, ...] = ()
    mask: tuple[str, ...] = ()
    error: str | None = None


def _names(value: Any) -> tuple[str, ...] | None:
    """A column name or a list of them; None when it is neither."""
    if isinstance(value, str) and value.strip():
        return (value.strip(),)
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(v.strip() for v in value)
    return None


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for n in names:
        seen.setdefault(n.lower(), n)
    return tuple(seen.values())


def primary_key(node: Mapping[str, Any]) -> tuple[str, ...]:
    """The primary key a model declares in dbt's constraints: model-level ``constraints: [{type: primary_key,
    columns: [...]}]``, else the columns whose own constraints hold one ``primary_key``."""
    for c in node.get("constraints") or ():
        if isinstance(c, Mapping) and c.get("type") == PRIMARY_KEY and _names(c.get("columns")):
            return _unique(_names(c.get("columns")) or ())
    columns = node.get("columns") or {}
    return _unique(
        str(col.get("name") or key)
        for key, col in (columns.items() if isinstance(columns, Mapping) else ())
        if isinstance(col, Mapping)
        and any(isinstance(c, Mapping) and c.get("type") == PRIMARY_KEY for c in col.get("constraints") or ())
    )


def unique_tested(manifest: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Per data source (unique id), its columns with a dbt ``unique`` test or a dataplex_dq
    ``uniqueness_expectation`` test, in the manifest's order."""
    out: dict[str, list[str]] = {}
    for node in (manifest.get("nodes") or {}).values():
        if not isinstance(node, Mapping) or node.get("resource_type") != "test":
            continue
        meta = node.get("test_metadata") or {}
        if not isinstance(meta, Mapping) or meta.get("name") not in UNIQUE_TESTS:
            continue
        attached = node.get("attached_node") or next(iter((node.get("depends_on") or {}).get("nodes") or ()), None)
        column = node.get("column_name") or (meta.get("kwargs") or {}).get("column_name")
        if isinstance(attached, str) and isinstance(column, str) and column:
            out.setdefault(attached, []).append(column)
    return {k: _unique(v) for k, v in out.items()}


def key_columns(
    node: Mapping[str, Any] | None,
    unique_columns: Sequence[str],
    settings: Mapping[str, Any],
) -> tuple[str, ...]:
    """The key columns, in order of precedence: primary key, unique-tested columns, ``meta.dataplex_dq.sample_keys``."""
    return (
        (primary_key(node) if node else ())
        or _unique(unique_columns)
        or _unique(_names(settings.get("sample_keys", settings.get("sampleKeys"))) or ())
    )


def plan_of(source: SourceReport, node: Mapping[str, Any] | None, unique_columns: Sequence[str] = ()) -> SamplePlan:
    """One data source's plan: its keys and its mask (``unique_columns``: the unique-tested columns of the
    manifest; the report's uniqueness_expectation rules are added to them)."""
    settings = source.data_source.settings or {}
    rules = [o.column for o in source.outcomes if o.rule_type == "uniqueness_expectation" and o.column]
    keys = key_columns(node, [*unique_columns, *rules], settings)
    given = settings.get("sample_mask", settings.get("sampleMask"))
    mask = () if given is None or given == [] else _names(given)
    if mask is None:
        return SamplePlan(
            keys,
            error=(
                f"{source.data_source.label}: meta.dataplex_dq.sample_mask must be a list of column names, "
                f"got {given!r}; no sample taken"
            ),
        )
    return SamplePlan(keys, _unique(mask))


def read_manifest(path: Path | None) -> Mapping[str, Any]:
    """manifest.json, or an empty mapping when it cannot be read (the samples then take their keys from the
    report's rules and meta alone)."""
    if path is None:
        return {}
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, Mapping) else {}


def sample_plans(report: Report, manifest: Mapping[str, Any]) -> dict[str, SamplePlan]:
    """Every data source's plan, by its unique id."""
    nodes = {**(manifest.get("sources") or {}), **(manifest.get("nodes") or {})}
    unique = unique_tested(manifest)
    return {
        s.data_source.unique_id: plan_of(s, nodes.get(s.data_source.unique_id), unique.get(s.data_source.unique_id, ()))
        for s in report.sources
    }
