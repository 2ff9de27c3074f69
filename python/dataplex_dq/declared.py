"""The rules a dbt project declares, rebuilt from manifest.json as DataQualityRule dicts.

Read from each dataplex_dq test node's ``test_metadata.kwargs``: one rule for a per-rule test, one
per entry of ``rules`` for a ``data_quality_scan``. The post-hook uses them for rules that left no
metrics row (errored or skipped); ``export-spec`` turns them back into a Dataplex DataQualitySpec.
Names are derived exactly as the macros derive them (macros/context.sql, macros/scan.sql).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from dataplex_dq.artifacts import Artifacts, RuleTest
from dataplex_dq.field_names import camel
from dataplex_dq.rule_types import RULE_TYPES, rule_type_keys


def derived_rule_name(test: RuleTest, rule_type: str, column: str | None) -> str:
    """The rule name of a test declared without `name:` -- the same derivation as the macro
    `dataplex_dq.rule_name_for` (macros/context.sql)."""
    if not test.name.startswith(f"dataplex_dq_{rule_type}"):
        return test.name
    digest = hashlib.md5(test.unique_id.encode()).hexdigest()[:6]
    base = rule_type.replace("_expectation", "").replace("_", "-")
    if column:
        col = re.sub(r"[^A-Za-z0-9]+", "-", column).strip("-").lower()
        base = f"{base}-{col}"[:55].strip("-")
    return f"{base}-{digest}"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _rule_params(rule_type: str, get: Callable[[str], Any]) -> dict[str, Any]:
    """The rule-type fields of a declared rule in the proto's string form (bounds and set values as
    text, statistic upper-case), read with ``get(field name)``; unset and false fields are left out."""
    params: dict[str, Any] = {}
    for key in RULE_TYPES[rule_type].arguments if rule_type in RULE_TYPES else ():
        value = get(key)
        if value is None or value is False:
            continue
        if key in ("min_value", "max_value"):
            value = _text(value)
        elif key == "values" and isinstance(value, list):
            value = [_text(v) for v in value]
        elif key == "statistic":
            value = str(value).upper()
        params[key] = value
    return params


def declared_rule(test: RuleTest) -> dict[str, Any]:
    """A per-rule test's DataQualityRule (proto JSON dict) from its manifest arguments, for rules that
    left no metrics row (errored or skipped)."""
    kw = test.kwargs
    column = test.column_name or kw.get("column")
    spec: dict[str, Any] = {"name": derived_rule_name(test, test.test_name, column)}
    if test.description:
        spec["description"] = test.description
    if column:
        spec["column"] = column
    for key in ("dimension", "threshold", "ignore_null", "suspended"):
        if kw.get(key) not in (None, False, 0):
            spec[key] = kw[key]
    spec[test.test_name] = _rule_params(test.test_name, kw.get)
    if kw.get("debug_queries"):
        spec["debug_queries"] = kw["debug_queries"]
    if isinstance(kw.get("attributes"), dict):
        spec["attributes"] = {str(k): _text(v) for k, v in kw["attributes"].items()}
    return spec


def _get(mapping: dict[str, Any], key: str) -> Any:
    """A field given under its snake_case or its camelCase (proto JSON) name."""
    value = mapping.get(key)
    return value if value is not None else mapping.get(camel(key))


def scan_rule_type(raw: Any) -> str | None:
    """The rule type of a declared scan rule: the first rule-type key (snake_case or camelCase)."""
    if not isinstance(raw, dict):
        return None
    found = rule_type_keys(raw)
    return found[0] if found else None


def scan_rule_name(raw: Any, index: int) -> str:
    """The name of rule `index` of a data_quality_scan: its `name`, or `<rule-type>-<column>-<index>`
    -- the same derivation as the macro `dataplex_dq.scan_rule_name` (macros/scan.sql)."""
    if isinstance(raw, dict) and raw.get("name"):
        return str(raw["name"])
    base = (scan_rule_type(raw) or "rule").replace("_expectation", "").replace("_", "-")
    column = raw.get("column") if isinstance(raw, dict) else None
    if column:
        col = re.sub(r"[^A-Za-z0-9]+", "-", str(column)).strip("-").lower()
        if col:
            base = f"{base}-{col}"[:55].strip("-")
    return f"{base}-{index}"


def declared_scan_rule(raw: dict[str, Any], index: int) -> dict[str, Any] | None:
    """Rule `index` of a data_quality_scan (snake_case or camelCase, as declared) as a DataQualityRule
    dict in snake_case proto JSON, like the per-rule `declared_rule`; None when it has no rule type."""
    rule_type = scan_rule_type(raw)
    if rule_type is None:
        return None
    spec: dict[str, Any] = {"name": scan_rule_name(raw, index)}
    for key in ("description", "column"):
        if raw.get(key):
            spec[key] = raw[key]
    for key in ("dimension", "threshold", "ignore_null", "suspended"):
        value = _get(raw, key)
        if value not in (None, False, 0):
            spec[key] = value
    given = _get(raw, rule_type)
    given = given if isinstance(given, dict) else {}
    spec[rule_type] = _rule_params(rule_type, lambda key: _get(given, key))
    queries = _get(raw, "debug_queries")
    if isinstance(queries, list) and queries:
        spec["debug_queries"] = [
            {
                k: v
                for k, v in (("description", q.get("description")), ("sql_statement", _get(q, "sql_statement")))
                if v is not None
            }
            for q in queries
            if isinstance(q, dict)
        ]
    if isinstance(raw.get("attributes"), dict):
        spec["attributes"] = {str(k): _text(v) for k, v in raw["attributes"].items()}
    return spec


def declared_rules(test: RuleTest) -> list[tuple[int, dict[str, Any]]]:
    """(rule_index, DataQualityRule dict) of every rule a test declares, for tests that left no
    metrics rows: one for a per-rule test; one per rule of `rules` for a data_quality_scan (rules
    without a recognizable rule type cannot be represented and are left out)."""
    if test.test_name != "data_quality_scan":
        return [(0, declared_rule(test))]
    rules = test.kwargs.get("rules")
    if not isinstance(rules, list):
        return []
    out = []
    for index, raw in enumerate(rules):
        spec = declared_scan_rule(raw, index) if isinstance(raw, dict) else None
        if spec is not None:
            out.append((index, spec))
    return out


def declared_rule_names(artifacts: Artifacts) -> dict[str, tuple[str, ...]]:
    """Per data source, the names of every rule its dataplex_dq tests declare in the manifest (run in
    this invocation or not), sorted: what the "latest" result models keep (issue 9 B)."""
    names: dict[str, set[str]] = {}
    for test in artifacts.tests.values():
        if test.data_source_id is None:
            continue
        bucket = names.setdefault(test.data_source_id, set())
        if test.test_name == "data_quality_scan":
            rules = test.kwargs.get("rules")
            for index, raw in enumerate(rules if isinstance(rules, list) else []):
                bucket.add(scan_rule_name(raw, index))
        else:
            bucket.add(derived_rule_name(test, test.test_name, test.column_name or test.kwargs.get("column")))
    return {source: tuple(sorted(n)) for source, n in names.items()}
