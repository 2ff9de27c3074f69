"""`dataplex-dq import-spec`: write a Dataplex DataQualitySpec's rules into a model's schema.yml.

The spec is read by :mod:`dataplex_dq.spec.reader` (every shape and casing). The rules go in as per-rule
tests under their columns (``--form tests``, the default) or as one ``data_quality_scan``
(``--form scan``); scan-level settings go to ``meta.dataplex_dq`` or the scan's arguments. The
schema file is edited with ruamel.yaml's round-trip mode: comments, order, quoting and every other
entry stay as they were. A rule whose name is already declared on the model is refused unless
``--force``, which replaces it. GoogleSQL is transpiled for ``--dialect duckdb|postgres``
(:mod:`dataplex_dq.spec.transpile`); what cannot be transpiled faithfully is reported and left as written.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.record import dbt_options
from dataplex_dq.rule_types import RULE_TYPES
from dataplex_dq.spec.reader import (
    SCAN_SETTINGS,
    LoadedSpec,
    SpecError,
    descriptor_of,
    load_spec_file,
    normalize_message,
    rule_type_of,
)
from dataplex_dq.spec.targets import find_by_resource, source_file, split_source
from dataplex_dq.spec.transpile import DIALECTS, bigquery_tables, transpile
from dataplex_dq.spec.validate import RegexCheck, TemplateCheck, regex_check, rule_template_check, spec_problems

if TYPE_CHECKING:
    from ruamel.yaml import YAML

PACKAGE = "dataplex_dq"
COLUMN_RULE_TYPES = tuple(t.name for t in RULE_TYPES.values() if t.needs_column)  # rule_types.py
COMMON_ARGUMENTS = ("dimension", "threshold", "ignore_null", "suspended", "debug_queries", "attributes")
SECTIONS = ("models", "seeds", "snapshots")
TEST_KEYS = ("data_tests", "tests")


class ImportSpecError(DataplexDqError):
    """The spec cannot be written into the project (one line: what, where, what to do)."""


# ---------------------------------------------------------------- the project


def _yaml_safe(path: Path) -> Any:
    """A YAML file as plain data, with dbt's own reader (PyYAML, YAML 1.1; libyaml when present)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        raise ImportSpecError(f"{path}: cannot be read as YAML ({first_line(exc)})") from None


def _resource_paths(project_dir: Path) -> dict[str, list[Path]]:
    project_file = project_dir / "dbt_project.yml"
    if not project_file.exists():
        raise ImportSpecError(f"no dbt_project.yml in {project_dir}: run from the dbt project or pass --project-dir")
    project = _yaml_safe(project_file) or {}
    defaults = {"models": ["models"], "seeds": ["seeds"], "snapshots": ["snapshots"]}
    keys = {"models": "model-paths", "seeds": "seed-paths", "snapshots": "snapshot-paths"}
    return {
        section: [project_dir / p for p in (project.get(keys[section]) or defaults[section])] for section in SECTIONS
    }


@dataclass(frozen=True)
class Target:
    path: Path  # the properties file to edit (may not exist yet)
    section: str  # models, seeds or snapshots


def find_target(project_dir: Path, name: str, schema_file: Path | None) -> Target:
    """The properties file that describes ``name`` (or should), and the section it is in."""
    paths = _resource_paths(project_dir)
    if schema_file is not None:
        data = _yaml_safe(schema_file) if schema_file.exists() else {}
        for section in SECTIONS:
            if any(isinstance(e, dict) and e.get("name") == name for e in (data or {}).get(section) or []):
                return Target(schema_file, section)
        section = next((s for s in SECTIONS if _resource_file(paths[s], name, s)), "models")
        return Target(schema_file, section)
    found = []
    for section in SECTIONS:
        for root in paths[section]:
            for yml in sorted([*root.rglob("*.yml"), *root.rglob("*.yaml")]) if root.is_dir() else []:
                data = _yaml_safe(yml)
                if not isinstance(data, dict):
                    continue
                for sec in SECTIONS:
                    if any(isinstance(e, dict) and e.get("name") == name for e in data.get(sec) or []):
                        found.append(Target(yml, sec))
    found = list(dict.fromkeys(found))
    if len(found) > 1:
        where = ", ".join(str(t.path) for t in found)
        raise ImportSpecError(f"'{name}' is described in more than one properties file ({where}); pass --schema-file")
    if found:
        return found[0]
    for section in SECTIONS:
        resource = _resource_file(paths[section], name, section)
        if resource is not None:
            return Target(resource.parent / "schema.yml", section)
    looked = ", ".join(str(p) for s in SECTIONS for p in paths[s])
    raise ImportSpecError(f"no model, seed or snapshot named '{name}' in {looked}; check --model or pass --schema-file")


def _resource_file(roots: list[Path], name: str, section: str) -> Path | None:
    suffixes = (".csv",) if section == "seeds" else (".sql", ".py")
    for root in roots:
        if root.is_dir():
            for suffix in suffixes:
                hit = next(iter(sorted(root.rglob(f"{name}{suffix}"))), None)
                if hit is not None:
                    return hit
    return None


# ---------------------------------------------------------------- round-trip YAML


def _yaml_rt() -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def guess_indent(text: str) -> tuple[int, int]:
    """(mapping indent, sequence dash offset) of a YAML file: dbt's usual style is (2, 2), i.e.
    ``models:`` / ``  - name: x`` / ``    columns:``; files with unindented dashes give (2, 0)."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    mapping = offset = None
    for a, b in pairwise(lines):
        ia, ib = len(a) - len(a.lstrip()), len(b) - len(b.lstrip())
        if not a.rstrip().endswith(":") or a.lstrip().startswith("- "):
            continue
        if b.lstrip().startswith("- ") and offset is None:
            offset = max(ib - ia, 0)
        elif not b.lstrip().startswith("- ") and ib > ia and mapping is None:
            mapping = ib - ia
        if mapping is not None and offset is not None:
            break
    return mapping or 2, 2 if offset is None else offset


def load_properties(path: Path) -> tuple[Any, Any]:
    """(round-trip document, configured YAML) of a properties file; a new document when it does not exist."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    yaml = _yaml_rt()
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportSpecError(f"{path}: cannot be read as YAML ({first_line(exc)})") from None
    if not text.strip():
        yaml.indent(mapping=2, sequence=4, offset=2)
        doc = CommentedMap()
        doc["version"] = 2
        return doc, yaml
    mapping, offset = guess_indent(text)
    yaml.indent(mapping=mapping, sequence=mapping + offset, offset=offset)
    try:
        doc = yaml.load(text)
    except (YAMLError, RecursionError) as exc:
        raise ImportSpecError(f"{path}: cannot be read as YAML ({first_line(exc)})") from None
    if not isinstance(doc, dict):
        raise ImportSpecError(f"{path}: not a dbt properties file (expected a mapping with `version: 2`)")
    return doc, yaml


def dump_properties(doc: Any, yaml: Any) -> str:
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()


def yaml_node(value: Any) -> Any:
    """Plain data as ruamel nodes to dump: multi-line strings as literal blocks, and strings a YAML 1.1
    reader (dbt, gcloud) would take for something else quoted."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import LiteralScalarString, SingleQuotedScalarString

    if isinstance(value, (CommentedMap, CommentedSeq)):
        return value  # already a node of a document (kept config): its style and comments stay
    if isinstance(value, Mapping):
        out = CommentedMap()
        for k, v in value.items():
            out[k] = yaml_node(v)
        return out
    if isinstance(value, list):
        return CommentedSeq([yaml_node(v) for v in value])
    if isinstance(value, str) and "\n" in value:
        return LiteralScalarString(value)
    if isinstance(value, str) and _yaml11_not_a_string(value):
        return SingleQuotedScalarString(value)
    return value


def _yaml11_not_a_string(value: str) -> bool:
    """Whether dbt's YAML 1.1 reader would take this plain scalar for something else (yes, no, on,
    1_000, 0o7...); ruamel writes YAML 1.2 and leaves those unquoted."""
    import yaml

    tag: str = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))
    return tag != "tag:yaml.org,2002:str"


# ---------------------------------------------------------------- rules already declared


@dataclass
class Declared:
    """A dataplex_dq rule already in the entry: a per-rule test, or one rule of a data_quality_scan."""

    name: str
    container: Any  # the list that holds it (a tests list, or a scan's rules)
    item: Any


def _test_lists(entry: Any) -> Iterator[Any]:
    for key in TEST_KEYS:
        if isinstance(entry.get(key), list):
            yield entry[key]
    for column in entry.get("columns") or []:
        if isinstance(column, dict):
            for key in TEST_KEYS:
                if isinstance(column.get(key), list):
                    yield column[key]


def _test_of(item: Any) -> tuple[str | None, Any]:
    """(dataplex_dq test name, body) of a tests-list item, or (None, None)."""
    if isinstance(item, str) and item.startswith(f"{PACKAGE}."):
        return item[len(PACKAGE) + 1 :], {}
    if isinstance(item, dict) and len(item) >= 1:
        key = next(iter(item))
        if isinstance(key, str) and key.startswith(f"{PACKAGE}."):
            return key[len(PACKAGE) + 1 :], item[key] if isinstance(item[key], dict) else {}
    return None, None


def _arguments(body: Any) -> Any:
    return body.get("arguments") if isinstance(body.get("arguments"), dict) else body


def declared_rules(entry: Any) -> tuple[list[Declared], list[Any]]:
    """(named dataplex_dq rules of the entry, the data_quality_scan bodies)."""
    rules: list[Declared] = []
    scans: list[Any] = []
    for tests in _test_lists(entry):
        for item in tests:
            test, body = _test_of(item)
            if test is None:
                continue
            if test == "data_quality_scan":
                scans.append(body)
                for rule in _arguments(body).get("rules") or []:
                    if isinstance(rule, dict) and rule.get("name"):
                        rules.append(Declared(str(rule["name"]), _arguments(body)["rules"], rule))
            elif body.get("name"):
                rules.append(Declared(str(body["name"]), tests, item))
    return rules, scans


def declared_kinds(entry: Any) -> set[tuple[str, str | None]]:
    """(rule type, lower-case column or None) of every dataplex_dq rule the entry declares: per-rule tests
    (under a column, or with a `column` argument) and the rules of its data_quality_scans."""
    kinds: set[tuple[str, str | None]] = set()

    def add(rule_type: str | None, column: Any) -> None:
        if rule_type:
            kinds.add((rule_type, str(column).lower() if column else None))

    holders = [(entry, None), *[(c, c.get("name")) for c in entry.get("columns") or [] if isinstance(c, dict)]]
    for holder, column in holders:
        for key in TEST_KEYS:
            for item in holder.get(key) or [] if isinstance(holder.get(key), list) else []:
                test, body = _test_of(item)
                if test == "data_quality_scan":
                    for rule in _arguments(body).get("rules") or []:
                        if isinstance(rule, dict):
                            add(rule_type_of(rule), rule.get("column"))
                elif test is not None:
                    add(test, column or _arguments(body).get("column"))
    return kinds


# ---------------------------------------------------------------- the import


@dataclass
class ImportResult:
    path: Path
    section: str
    form: str
    added: list[tuple[str, str, str]] = field(default_factory=list)  # (rule, type, where)
    replaced: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sql_changes: list[tuple[str, str, str]] = field(default_factory=list)  # (where, before, after)
    sql_problems: list[tuple[str, str]] = field(default_factory=list)  # (where, why)
    table_hints: list[tuple[str, str]] = field(default_factory=list)  # (where, table)
    target_name: str = ""  # the model, seed, snapshot or source table (NAME.TABLE) that got the rules


def rule_count(entry: Any) -> int:
    """How many rules the entry declares: one per per-rule test, one per rule of a data_quality_scan (the
    anomaly_detection test declares none)."""
    count = 0
    for tests in _test_lists(entry):
        for item in tests:
            test, body = _test_of(item)
            if test == "data_quality_scan":
                rules = _arguments(body).get("rules")
                count += len(rules) if isinstance(rules, list) else 0
            elif test in RULE_TYPES:
                count += 1
    return count


#: The keys of a per-rule test that are the rule (name, description, its arguments); every other key of a
#: replaced test (config, severity, tags, meta, ...) is the user's and --force keeps it.
def _rule_keys(test: str) -> set[str]:
    known = RULE_TYPES.get(test)
    if test == "template_reference":
        return {"name", "description", "arguments", "column", "template_reference", *COMMON_ARGUMENTS}
    return {"name", "description", "arguments", "column", *COMMON_ARGUMENTS, *(known.arguments if known else ())}


def _rule_label(rule: Mapping[str, Any], index: int) -> str:
    return f"rule '{rule['name']}'" if rule.get("name") else f"rule {index + 1} ({rule_type_of(rule)})"


def _convert_sql(spec: dict[str, Any], dialect: str, result: ImportResult) -> None:
    """Transpile the spec's GoogleSQL in place; record changes, problems and table-name hints."""

    def one(holder: dict[str, Any], key: str, where: str, check_tables: bool) -> None:
        sql = holder.get(key)
        if not isinstance(sql, str):
            return
        if check_tables:
            for table in bigquery_tables(sql):
                result.table_hints.append((where, table))
        out = transpile(sql, dialect)
        if out.problem:
            result.sql_problems.append((where, out.problem))
        elif out.changed:
            result.sql_changes.append((where, sql, out.sql))
            holder[key] = out.sql

    one(spec, "row_filter", "row_filter", False)
    for i, rule in enumerate(spec.get("rules", [])):
        label = _rule_label(rule, i)
        for rt, key in (
            ("row_condition_expectation", "sql_expression"),
            ("table_condition_expectation", "sql_expression"),
            ("sql_assertion", "sql_statement"),
        ):
            if rt in rule:
                one(rule[rt], key, f"{label} {key}", True)
        for j, q in enumerate(rule.get("debug_queries", [])):
            one(q, "sql_statement", f"{label} debug query {j + 1}", True)


def _ordered_rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    """A scan rule with its keys in reading order."""
    rt = rule_type_of(rule) or ""
    order = [
        "name",
        "description",
        "column",
        "dimension",
        rt,
        "threshold",
        "ignore_null",
        "suspended",
        "debug_queries",
        "attributes",
    ]
    return {k: rule[k] for k in order if k in rule} | {k: v for k, v in rule.items() if k not in order}


def template_reference_arguments(ref: Mapping[str, Any]) -> dict[str, Any]:
    """A template_reference as a per-rule test's argument: {name, values: {parameter: text}} (Dataplex's
    {value: text} written as the text alone; the test takes both)."""
    out: dict[str, Any] = {"name": ref.get("name")}
    values = ref.get("values") or {}
    if values:
        out["values"] = {k: (v.get("value", "") if isinstance(v, Mapping) else v) for k, v in values.items()}
    return out


def _test_item(rule: Mapping[str, Any], label: str) -> tuple[str | None, dict[str, Any]]:
    """(column to put it under or None for the model, the tests-list item) of a per-rule test."""
    rt = rule_type_of(rule)
    assert rt is not None
    column = rule.get("column")
    args: dict[str, Any] = {}
    if rt in COLUMN_RULE_TYPES:
        if not column:
            raise ImportSpecError(f"{label}: a {rt} needs a column")
    elif column:
        args["column"] = column
    if rt == "template_reference":
        args["template_reference"] = template_reference_arguments(rule[rt])
    else:
        args.update(rule[rt])
    args.update({k: rule[k] for k in COMMON_ARGUMENTS if k in rule})
    body: dict[str, Any] = {}
    for key in ("name", "description"):
        if rule.get(key):
            body[key] = rule[key]
    if args:
        body["arguments"] = args
    item: Any = {f"{PACKAGE}.{rt}": body} if body else f"{PACKAGE}.{rt}"
    return (column if rt in COLUMN_RULE_TYPES else None), item


def _same_setting(key: str, a: Any, b: Any) -> bool:
    from dataplex_dq.proto import DataQualitySpec

    try:
        return normalize_message({key: a}, descriptor_of(DataQualitySpec)) == normalize_message(
            {key: b}, descriptor_of(DataQualitySpec)
        )
    except SpecError:
        return bool(a == b)


def _get_either(mapping: Any, key: str) -> tuple[str | None, Any]:
    """(the key as written, value) of a setting given in snake_case or camelCase; (None, None) if absent."""
    first, *rest = key.split("_")
    for k in (key, first + "".join(p.title() for p in rest)):
        if isinstance(mapping, dict) and k in mapping:
            return k, mapping[k]
    return None, None


def _entry(doc: Any, section: str, name: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if section == "sources":  # NAME.TABLE: the table's entry in the source's `tables`
        source, table = split_source(name)
        if not isinstance(doc.get("sources"), list):
            doc["sources"] = CommentedSeq()
        holder = next((e for e in doc["sources"] if isinstance(e, dict) and e.get("name") == source), None)
        if holder is None:
            holder = CommentedMap()
            holder["name"] = source
            doc["sources"].append(holder)
        if not isinstance(holder.get("tables"), list):
            holder["tables"] = CommentedSeq()
        return _entry({"tables": holder["tables"]}, "tables", table)
    if not isinstance(doc.get(section), list):
        doc[section] = CommentedSeq()
    for e in doc[section]:
        if isinstance(e, dict) and e.get("name") == name:
            return e
    entry = CommentedMap()
    entry["name"] = name
    doc[section].append(entry)
    return entry


def _column(entry: Any, name: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not isinstance(entry.get("columns"), list):
        entry["columns"] = CommentedSeq()
    for c in entry["columns"]:
        if isinstance(c, dict) and c.get("name") == name:
            return c
    for c in entry["columns"]:
        if isinstance(c, dict) and str(c.get("name", "")).lower() == name.lower():
            return c
    col = CommentedMap()
    col["name"] = name
    entry["columns"].append(col)
    return col


def _tests_list(holder: Any) -> Any:
    from ruamel.yaml.comments import CommentedSeq

    for key in TEST_KEYS:
        if isinstance(holder.get(key), list):
            return holder[key]
    holder["data_tests"] = CommentedSeq()
    return holder["data_tests"]


def _meta_settings(entry: Any, create: bool) -> Any:
    from ruamel.yaml.comments import CommentedMap

    if isinstance(entry.get("meta"), dict) and isinstance(entry["meta"].get(PACKAGE), dict):
        return entry["meta"][PACKAGE]
    if not create:
        config: Any = entry.get("config") if isinstance(entry.get("config"), dict) else {}
        meta: Any = config.get("meta") if isinstance(config.get("meta"), dict) else {}
        return meta.get(PACKAGE) if isinstance(meta.get(PACKAGE), dict) else {}
    if not isinstance(entry.get("config"), dict):
        entry["config"] = CommentedMap()
    if not isinstance(entry["config"].get("meta"), dict):
        entry["config"]["meta"] = CommentedMap()
    if not isinstance(entry["config"]["meta"].get(PACKAGE), dict):
        entry["config"]["meta"][PACKAGE] = CommentedMap()
    return entry["config"]["meta"][PACKAGE]


def merge_spec(
    doc: Any,
    section: str,
    model: str,
    *,
    loaded: LoadedSpec,
    spec: dict[str, Any],
    form: str,
    force: bool,
    result: ImportResult,
    regex: RegexCheck | None = None,
    templates: TemplateCheck | None = None,
) -> None:
    """Merge ``spec`` (normalized, SQL already converted) into the round-trip document ``doc``."""
    entry = _entry(doc, section, model)
    existing, scans = declared_rules(entry)
    by_name = {d.name: d for d in existing}
    rules = spec.get("rules", [])
    names = [r["name"] for r in rules if r.get("name")]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ImportSpecError(
            f"{loaded.source}: rule name {', '.join(repr(d) for d in duplicates)} appears more than once; names must "
            "be unique on a data source"
        )
    clashes = [n for n in names if n in by_name]
    if clashes and not force:
        listed = ", ".join(f"'{n}'" for n in clashes)
        raise ImportSpecError(
            f"{section[:-1]} '{model}' already declares rule{'s' if len(clashes) > 1 else ''} {listed} "
            f"({result.path}); "
            "nothing was written. Pass --force to replace them, or rename them in the spec"
        )
    problems = spec_problems(spec, regex=regex, other_rules=rule_count(entry) - len(clashes), templates=templates)
    if problems:
        more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else ""
        raise ImportSpecError(
            f"{loaded.source}: {problems[0].line(f'{section[:-1]} {model!r}')}{more}; nothing was written "
            "(dbt would refuse it at compile time)"
        )

    settings = {k: spec[k] for k in SCAN_SETTINGS if k in spec}
    if loaded.incremental_field:
        settings["incremental_field"] = loaded.incremental_field
    scan_body = scans[0] if scans else None
    setting_home = {k: ("meta" if form == "tests" or k == "incremental_field" else "scan") for k in settings}
    meta_now = _meta_settings(entry, create=False)
    conflicts = []
    for key, value in settings.items():
        holder = meta_now if setting_home[key] == "meta" else (_arguments(scan_body) if scan_body is not None else {})
        old_key, old = _get_either(holder, key)
        if old_key is not None and old is not None and not _same_setting(key, old, value):
            conflicts.append(key)
    if conflicts and not force:
        raise ImportSpecError(
            f"{section[:-1]} '{model}' already sets {', '.join(conflicts)} to another value ({result.path}); "
            "nothing was written. Pass --force to replace"
        )

    # what --force replaces keeps its place when it stays in the same list (a scan rule in the scan we merge
    # into, a per-rule test under the same column), and a replaced test keeps its own keys (config, severity,
    # tags, meta...); the rest is removed, and a tests list it leaves empty goes with it
    replace_in_place: dict[str, tuple[Any, int]] = {}
    kept_config: dict[str, dict[str, Any]] = {}
    for name in clashes:
        d = by_name[name]
        index = next(i for i, x in enumerate(d.container) if x is d.item)
        test, body = _test_of(d.item)
        if test is not None and test != "data_quality_scan" and d.container is not None:
            kept_config[name] = {k: v for k, v in body.items() if k not in _rule_keys(test)}
        replace_in_place[name] = (d.container, index)
        result.replaced.append(name)
    moved: list[tuple[Any, Any]] = []  # (container, item) replaced items that do not stay where they were

    for key, value in settings.items():
        if setting_home[key] == "meta":
            holder = _meta_settings(entry, create=True)
            old_key, _ = _get_either(holder, key)
            holder[old_key or key] = yaml_node(value)
    if form == "tests":
        for i, rule in enumerate(rules):
            label = _rule_label(rule, i)
            column, item = _test_item(rule, label)
            name = rule.get("name")
            if kept_config.get(name):
                key = next(iter(item))
                item[key] = {**item[key], **kept_config[name]}
                result.notes.append(f"rule '{name}' keeps the replaced test's {', '.join(kept_config[name])}")
            holder = _column(entry, column) if column else entry
            tests = _tests_list(holder)
            if name in replace_in_place and replace_in_place[name][0] is tests:
                container, index = replace_in_place.pop(name)
                _replace_test(container, index, item)
            else:
                tests.append(yaml_node(item))
            result.added.append(
                (
                    rule.get("name") or "(unnamed)",
                    rule_type_of(rule) or "",
                    f"column {column}" if column else section[:-1],
                )
            )
    else:
        if scan_body is None:
            from ruamel.yaml.comments import CommentedMap

            scan_body = CommentedMap()
            scan_body["name"] = f"{model}_scan"
            scan_body["arguments"] = CommentedMap()
            _tests_list(entry).append(yaml_node({f"{PACKAGE}.data_quality_scan": scan_body}))
            scan_body = _tests_list(entry)[-1][f"{PACKAGE}.data_quality_scan"]
        args = _arguments(scan_body)
        for key, value in settings.items():
            if setting_home[key] == "scan":
                old_key, _ = _get_either(args, key)
                args[old_key or key] = yaml_node(value)
        if not isinstance(args.get("rules"), list):
            from ruamel.yaml.comments import CommentedSeq

            args["rules"] = CommentedSeq()
        for rule in rules:
            node = yaml_node(_ordered_rule(rule))
            name = rule.get("name")
            if name in replace_in_place and replace_in_place[name][0] is args["rules"]:
                container, index = replace_in_place.pop(name)
                container[index] = node
            else:
                args["rules"].append(node)
            if kept_config.get(name):
                result.notes.append(
                    f"rule '{name}' replaces a per-rule test whose {', '.join(kept_config[name])} a rule of a "
                    "data_quality_scan cannot carry: set it on the scan test"
                )
            result.added.append(
                (
                    rule.get("name") or "(unnamed)",
                    rule_type_of(rule) or "",
                    f"data_quality_scan '{scan_body.get('name', '')}'",
                )
            )
    # replaced items that did not stay in place are removed (from the end, so the indexes hold)
    for container, index in sorted(replace_in_place.values(), key=lambda ci: -ci[1]):
        moved.append((container, container[index]))
        del container[index]
    _drop_emptied(entry, [c for c, _ in moved])
    result.settings = settings


def _replace_test(container: Any, index: int, item: dict[str, Any]) -> None:
    """Put a per-rule test in the place of the one it replaces; the same test edited in place (its
    comments and the keys that are not the rule stay), another rule type as a new item."""
    key, body = next(iter(item.items()))
    old = container[index]
    old_key = next(iter(old)) if isinstance(old, dict) else None
    if old_key != key or not isinstance(old[key], dict):
        container[index] = yaml_node(item)
        return
    old_body = old[key]
    test = key[len(PACKAGE) + 1 :]
    for k in [k for k in old_body if k in _rule_keys(test) and k not in body]:
        del old_body[k]
    for k, v in body.items():
        if k in _rule_keys(test) or k not in old_body:
            old_body[k] = yaml_node(v)


def _drop_emptied(entry: Any, emptied: list[Any]) -> None:
    """Remove a tests list (``data_tests: []``) that the import left empty."""
    holders = [entry, *[c for c in entry.get("columns") or [] if isinstance(c, dict)]]
    for holder in holders:
        for key in TEST_KEYS:
            value = holder.get(key)
            if isinstance(value, list) and not value and any(value is e for e in emptied):
                del holder[key]


def resolve_target(
    project_dir: Path,
    *,
    model: str | None,
    source: str | None,
    schema_file: Path | None,
    data_resource: str | None,
    notes: list[str],
) -> tuple[Target, str]:
    """(the properties file and section, the model or NAME.TABLE) the rules go to: --model, --source, or
    the source or model that reads the spec's BigQuery table (said in `notes`)."""
    if model and source:
        raise ImportSpecError("pass --model or --source, not both")
    if not model and not source:
        if not data_resource:
            raise ImportSpecError("the spec names no table (data.resource): pass --model or --source")
        found = find_by_resource(project_dir, data_resource)
        notes.append(f"the spec's table {data_resource} is {found.kind} '{found.name}' (found in {found.how})")
        model, source = (found.name, None) if found.kind == "model" else (None, found.name)
    if source:
        name, table = split_source(source)
        path = schema_file or source_file(project_dir, name, table)
        return Target(path, "sources"), source
    assert model is not None
    return find_target(project_dir, model, schema_file), model


def import_spec(
    spec_file: Path,
    model: str | None,
    *,
    form: str = "tests",
    dialect: str = "bigquery",
    schema_file: Path | None = None,
    force: bool = False,
    project_dir: Path = Path("."),
    source: str | None = None,
) -> ImportResult:
    """Read ``spec_file`` and merge its rules into ``model``'s (or source table ``source``'s, NAME.TABLE)
    properties file; with neither, into the source or model reading the spec's table. Returns what was done."""
    loaded = load_spec_file(spec_file)
    return import_loaded(
        loaded, model, form=form, dialect=dialect, schema_file=schema_file, force=force,
        project_dir=project_dir, source=source,
    )  # fmt: skip


def import_loaded(
    loaded: LoadedSpec,
    model: str | None,
    *,
    form: str = "tests",
    dialect: str = "bigquery",
    schema_file: Path | None = None,
    force: bool = False,
    project_dir: Path = Path("."),
    source: str | None = None,
) -> ImportResult:
    """:func:`import_spec` of a spec already read (import-contract builds one from a data contract)."""
    import copy

    notes = list(loaded.notes)
    target, model = resolve_target(
        Path(project_dir),
        model=model,
        source=source,
        schema_file=Path(schema_file) if schema_file else None,
        data_resource=loaded.data_resource,
        notes=notes,
    )
    result = ImportResult(target.path, target.section, form, notes=notes, target_name=model)
    spec = copy.deepcopy(loaded.spec)
    _convert_sql(spec, dialect, result)
    doc, yaml = load_properties(target.path)
    merge_spec(
        doc,
        target.section,
        model,
        loaded=loaded,
        spec=spec,
        form=form,
        force=force,
        result=result,
        regex=regex_check(Path(project_dir)),
        templates=rule_template_check(Path(project_dir)),
    )
    text = dump_properties(doc, yaml)
    target.path.parent.mkdir(parents=True, exist_ok=True)
    target.path.write_text(text, encoding="utf-8")
    return result


# ---------------------------------------------------------------- the warehouse of the target


def target_dialect(project_dir: Path, profiles_dir: Path | None, target: str | None) -> str | None:
    """The adapter type of the dbt target (duckdb, postgres, bigquery), read from profiles.yml as dbt
    finds it; None when it cannot be told without rendering Jinja."""
    project = _yaml_safe(project_dir / "dbt_project.yml") if (project_dir / "dbt_project.yml").exists() else {}
    profile_name = (project or {}).get("profile")
    dirs = [profiles_dir] if profiles_dir else []
    if os.environ.get("DBT_PROFILES_DIR"):
        dirs.append(Path(os.environ["DBT_PROFILES_DIR"]))
    dirs += [project_dir, Path.home() / ".dbt"]
    for d in dirs:
        path = Path(d) / "profiles.yml"
        if not path.exists():
            continue
        try:
            profiles = _yaml_safe(path) or {}
        except ImportSpecError:
            return None
        profile = profiles.get(profile_name) if isinstance(profiles, dict) else None
        if not isinstance(profile, dict):
            return None
        name = target or os.environ.get("DBT_TARGET") or profile.get("target")
        output = (profile.get("outputs") or {}).get(name) if isinstance(name, str) else None
        kind = output.get("type") if isinstance(output, dict) else None
        return kind if kind in DIALECTS else None
    return None


# ---------------------------------------------------------------- the command


@click.command("import-spec")
@click.argument("spec_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", "model", default=None, help="the model (or seed, snapshot) that gets the rules")
@click.option(
    "--source",
    "source",
    default=None,
    metavar="NAME.TABLE",
    help="the source table that gets the rules (default, without --model: the one reading the spec's table)",
)
@click.option(
    "--form",
    type=click.Choice(["tests", "scan"]),
    default="tests",
    show_default=True,
    help="per-rule tests under their columns, or one data_quality_scan",
)
@click.option(
    "--dialect",
    type=click.Choice(list(DIALECTS)),
    default=None,
    help="SQL dialect to write (default: the dbt target's warehouse)",
)
@click.option(
    "--schema-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="properties file to write (default: the one describing the model)",
)
@click.option("--force", is_flag=True, help="replace rules (and settings) the model already declares")
@dbt_options.project_dir()
@dbt_options.profiles_dir("directory of profiles.yml, to tell the dialect")
@dbt_options.target("dbt target, to tell the dialect")
def import_spec_command(
    *,
    spec_file: Path,
    model: str | None,
    source: str | None,
    form: str,
    dialect: str | None,
    schema_file: Path | None,
    force: bool,
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
) -> None:
    """Write the rules of a Dataplex DataQualitySpec file (YAML/JSON, bare, wrapped or a whole DataScan)
    into MODEL's schema.yml, keeping its comments and order.

    Exit codes: 0 written; 2 nothing written (bad spec, clash without --force, ...)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True)
    try:
        chosen = dialect or target_dialect(project_dir, profiles_dir, target)
        if chosen is None:
            chosen = "bigquery"
            console.print(
                "[yellow]note:[/yellow] could not tell the target's warehouse from profiles.yml; SQL is left as "
                "GoogleSQL (pass --dialect to transpile)"
            )
        result = import_spec(
            spec_file,
            model,
            form=form,
            dialect=chosen,
            schema_file=schema_file,
            force=force,
            project_dir=project_dir,
            source=source,
        )
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq import-spec failed:[/red] {escape(str(exc))}")
        raise SystemExit(2) from None
    print_import(result, result.target_name, chosen, console)


def print_import(result: ImportResult, model: str, dialect: str, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    how = "per-rule tests" if result.form == "tests" else "a data_quality_scan"
    console.print(
        f"Added {len(result.added)} rule{'s' if len(result.added) != 1 else ''} to {result.section[:-1]} "
        f"'{escape(model)}' in {escape(str(result.path))}, as {how}."
    )
    table = Table(show_edge=False)
    for col in ("rule", "type", "declared on"):
        table.add_column(col)
    for name, rule_type, where in result.added:
        table.add_row(escape(name), rule_type, escape(where))
    console.print(table)
    if result.replaced:
        console.print(f"Replaced (--force): {escape(', '.join(result.replaced))}.")
    for key, value in result.settings.items():
        home = "meta.dataplex_dq" if result.form == "tests" or key == "incremental_field" else "the scan's arguments"
        console.print(f"Setting {key} = {escape(repr(value))} in {home}.")
    for where, before, after in result.sql_changes:
        console.print(f"Transpiled to {dialect}: {escape(where)}: {escape(before)}  ->  {escape(after)}")
    for where, problem in result.sql_problems:
        console.print(
            f"[yellow]left as written:[/yellow] {escape(where)}: {escape(problem)}; adapt it for {dialect} by hand"
        )
    for where, table_name in result.table_hints:
        console.print(
            f"[yellow]check:[/yellow] {escape(where)} reads the table {escape(table_name)} by name; use ${{data()}} "
            "for the data source itself (row filter and sampling apply to it)"
        )
    for note in result.notes:
        console.print(f"note: {escape(note)}")
