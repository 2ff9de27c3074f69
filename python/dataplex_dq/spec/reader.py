"""Read a Dataplex ``DataQualitySpec`` file, in every shape people keep one in.

Accepted (YAML or JSON; camelCase proto JSON names or snake_case proto names, mixed freely, at
every depth):

* a bare spec: ``{rules: [...], rowFilter: ..., samplingPercent: ...}``;
* a wrapped spec: ``{data_quality_spec: {...}}`` or ``{dataQualitySpec: {...}}``;
* a whole DataScan resource as ``gcloud dataplex datascans describe`` prints it, or as Terraform's
  ``google_dataplex_datascan`` holds it (nested blocks as one-element lists, unset blocks as
  ``[]``). ``executionSpec.field`` becomes ``incremental_field``; ``data.resource`` /
  ``data.entity`` is kept as :attr:`LoadedSpec.data_resource`; the rest of the resource
  (labels, trigger, state, times, last result...) is left out with a note.

Unset is unset, however it is spelled: explicit ``null``, ``''``, ``0`` (``threshold: 0`` and
``sampling_percent: 0`` mean "not set" in Dataplex), ``false``, ``[]``. Field names are resolved by
walking the descriptor of ``google.cloud.dataplex.v1.DataQualitySpec`` (our private pool), never by a
hand-kept list, and the result is checked by parsing it into the proto with ``json_format``. An
unknown field is a one-line :class:`SpecError` naming its path (``rules[2].rangeExpectation.minVal``).

One extension: ``attributes`` on a rule (a ``map<string, string>``, field 507 of Google's current
``DataQualityRule``, absent from the proto this project was given) is kept, as the dbt tests take it.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from google.protobuf import descriptor as _descriptor
from google.protobuf import json_format
from google.protobuf.message import Message

from dataplex_dq import rule_types
from dataplex_dq.errors import DataplexDqError
from dataplex_dq.field_names import DATASCAN_FIELDS, RULE_EXTENSIONS
from dataplex_dq.proto import DataQualityRule, DataQualitySpec

__all__ = [
    "RULE_EXTENSIONS",
    "RULE_TYPES",
    "SCAN_SETTINGS",
    "LoadedSpec",
    "SpecError",
    "load_spec_file",
    "normalize_message",
    "normalize_rule",
    "normalize_spec",
    "parse_spec",
    "rule_type_of",
    "spec_to_dict",
    "spec_to_proto",
]

FD = _descriptor.FieldDescriptor


def descriptor_of(message: type[Message]) -> _descriptor.Descriptor:
    """A message class's descriptor. The stubs type protobuf's C implementation (upb) apart from
    ``descriptor.Descriptor``; it is the same API, so this names it once."""
    return cast(_descriptor.Descriptor, message.DESCRIPTOR)


#: The rule types: the fields of DataQualityRule's ``rule_type`` oneof, in proto order.
RULE_TYPES: tuple[str, ...] = tuple(rule_types.RULE_TYPES)

#: Scan-level fields of DataQualitySpec (everything but ``rules``), in proto order.
SCAN_SETTINGS: tuple[str, ...] = tuple(f.name for f in DataQualitySpec.DESCRIPTOR.fields if f.name != "rules")

_WRAPPER_KEYS = ("data_quality_spec", "dataQualitySpec")

# Fields of Google's current API that the given proto lacks and dataplex_dq does not support: a clear
# error rather than "unknown field" (message name, snake_case field) -> why.
_UNSUPPORTED = {
    (
        "DataQualitySpec",
        "filter",
    ): "Dataplex's rule filter (run a subset of the rules) is not supported; remove it and keep the rules you want",
    (
        "DataQualitySpec",
        "enable_catalog_based_rules",
    ): "rules from Knowledge Catalog aspects are not supported; list the rules in `rules`",
}
# Output-only fields a `gcloud ... describe` may print inside the spec: dropped.
_OUTPUT_ONLY = {("DataQualityRule", "rule_source")}

# Fields of a DataScan resource (REST / gcloud describe, and Terraform's google_dataplex_datascan) that
# import leaves out (listed in a note when set): all of field_names.DATASCAN_FIELDS but those it maps
# (`data`, `execution_spec`), reads (`data_quality_spec`) or refuses (a profile scan's), plus Terraform's own.
_DATASCAN_IGNORED = frozenset(DATASCAN_FIELDS) - {
    "data",
    "execution_spec",
    "data_quality_spec",
    "data_profile_spec",
    "data_profile_result",
} | {"data_scan_id", "location", "project", "id", "effective_labels", "terraform_labels", "timeouts"}

_UNSET = object()


class SpecError(DataplexDqError, ValueError):
    """A spec file cannot be read as a DataQualitySpec (one line: the file, the field path, what is wrong)."""


@dataclass(frozen=True)
class LoadedSpec:
    """A DataQualitySpec read from a file.

    ``spec`` is the proto JSON of the spec with snake_case names and only the fields that are set
    (what ``json_format.MessageToDict(..., preserving_proto_field_name=True)`` would give), plus the
    rules' ``attributes`` extension. Bounds and set values are strings, as in the proto."""

    source: str
    spec: dict[str, Any]
    shape: str = "spec"  # "spec" (bare), "wrapped" (data_quality_spec:), "datascan" (a DataScan resource)
    incremental_field: str | None = None
    data_resource: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def rules(self) -> list[dict[str, Any]]:
        return list(self.spec.get("rules", []))

    @property
    def settings(self) -> dict[str, Any]:
        """The scan-level settings that are set (row_filter, sampling_percent, post_scan_actions...)."""
        return {k: self.spec[k] for k in SCAN_SETTINGS if k in self.spec}

    def to_proto(self) -> DataQualitySpec:
        return spec_to_proto(self.spec)


# ---------------------------------------------------------------- descriptor walk


def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()


def _fields_by_key(desc: _descriptor.Descriptor) -> dict[str, FD]:
    out: dict[str, FD] = {}
    for f in desc.fields:
        out[f.name] = f
        out[f.json_name] = f
    return out


def _where(path: str) -> str:
    return path or "the spec"


def _type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _number_text(value: int | float) -> str:
    return str(value) if isinstance(value, int) else repr(value)


def _scalar(value: Any, f: FD, path: str) -> Any:
    """A scalar field's value, or _UNSET for the proto3 default (unset)."""
    t = f.type
    if t == FD.TYPE_STRING:
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (int, float)):
            value = _number_text(value)
        if not isinstance(value, str):
            raise SpecError(f"{path}: expected a string, got {_type_name(value)}")
        return value if value != "" else _UNSET
    if t == FD.TYPE_BOOL:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"
        if not isinstance(value, bool):
            raise SpecError(f"{path}: expected true or false, got {_type_name(value)} {value!r}")
        return value if value else _UNSET
    if t == FD.TYPE_ENUM:
        enum = f.enum_type
        if isinstance(value, int) and not isinstance(value, bool):
            ev = enum.values_by_number.get(value)
        elif isinstance(value, str):
            ev = enum.values_by_name.get(value.upper())
        else:
            ev = None
        if ev is None:
            names = ", ".join(v.name for v in enum.values if v.number)
            raise SpecError(f"{path}: {value!r} is not one of {names}")
        return ev.name if ev.number else _UNSET
    if t in (
        FD.TYPE_FLOAT,
        FD.TYPE_DOUBLE,
        FD.TYPE_INT32,
        FD.TYPE_INT64,
        FD.TYPE_UINT32,
        FD.TYPE_UINT64,
        FD.TYPE_SINT32,
        FD.TYPE_SINT64,
    ):
        if isinstance(value, str):
            try:
                value = float(value) if t in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE) else int(value)
            except ValueError:
                raise SpecError(f"{path}: expected a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SpecError(f"{path}: expected a number, got {_type_name(value)}")
        return value if value != 0 else _UNSET
    raise SpecError(f"{path}: field type {t} is not supported")  # pragma: no cover - not in DataQualitySpec


def _block(value: Any, path: str) -> Any:
    """Terraform keeps a nested block as a one-element list, an absent one as []."""
    if isinstance(value, list):
        if not value:
            return None
        if len(value) > 1:
            raise SpecError(f"{path}: expected one block, got a list of {len(value)}")
        return value[0]
    return value


def _map_value(value: Any, f: FD, path: str) -> Any:
    """A proto map (TemplateReference.values): {key: value}; a message value with one field (Dataplex's
    ParameterValue, {value: text}) may be given as that field's value alone."""
    value = _block(value, path)
    if not isinstance(value, Mapping):
        raise SpecError(f"{path}: expected a mapping, got {_type_name(value)}")
    entry = f.message_type.fields_by_name["value"]
    out: dict[str, Any] = {}
    for k, v in value.items():
        item_path = f"{path}.{k}"
        if v is None:
            raise SpecError(f"{item_path}: null in a mapping")
        if entry.type == FD.TYPE_MESSAGE:
            inner = entry.message_type.fields
            given = {inner[0].name: v} if not isinstance(v, (Mapping, list)) and len(inner) == 1 else v
            out[str(k)] = normalize_message(given, entry.message_type, item_path)
        else:
            out[str(k)] = _scalar(v, entry, item_path)
    return out if out else _UNSET


def _field_value(value: Any, f: FD, path: str) -> Any:
    if value is None:
        return _UNSET
    if f.message_type is not None and f.message_type.GetOptions().map_entry:
        return _map_value(value, f, path)
    if f.is_repeated:
        if not isinstance(value, (list, tuple)):
            raise SpecError(f"{path}: expected a list, got {_type_name(value)}")
        out: list[Any] = []
        for i, item in enumerate(value):
            item_path = f"{path}[{i}]"
            if item is None:
                raise SpecError(f"{item_path}: null in a list")
            if f.type == FD.TYPE_MESSAGE:
                out.append(normalize_message(item, f.message_type, item_path))
            else:
                v = _scalar(item, f, item_path)
                out.append("" if v is _UNSET and f.type == FD.TYPE_STRING else v)
        return out if out else _UNSET
    if f.type == FD.TYPE_MESSAGE:
        value = _block(value, path)
        if value is None:
            return _UNSET
        return normalize_message(value, f.message_type, path)
    return _scalar(value, f, path)


def _attributes(value: Any, path: str) -> Any:
    if value is None:
        return _UNSET
    value = _block(value, path)
    if not isinstance(value, Mapping):
        raise SpecError(f"{path}: expected a mapping of string keys to string values, got {_type_name(value)}")
    out = {}
    for k, v in value.items():
        if v is None or isinstance(v, (dict, list)):
            raise SpecError(f"{path}.{k}: attribute values must be strings")
        out[str(k)] = (
            "true"
            if v is True
            else "false"
            if v is False
            else _number_text(v)
            if isinstance(v, (int, float))
            else str(v)
        )
    return out if out else _UNSET


#: TemplateReference's output-only fields (a result's resolved SQL and template), left out of a spec.
_TEMPLATE_RESULT_FIELDS = ("resolved_sql", "rule_template")


def normalize_message(value: Any, desc: _descriptor.Descriptor, path: str = "") -> dict[str, Any]:
    """``value`` (a mapping in either casing) as proto JSON with snake_case names and only set fields.

    Raises :class:`SpecError` for an unknown field (with a close match when there is one), a field
    given twice in both casings, or a value of the wrong type."""
    value = _block(value, path)
    if not isinstance(value, Mapping):
        raise SpecError(f"{_where(path)}: expected a mapping ({desc.name}), got {_type_name(value)}")
    fields = _fields_by_key(desc)
    is_rule = desc.full_name == DataQualityRule.DESCRIPTOR.full_name
    out: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for raw_key, item in value.items():
        key = str(raw_key)
        sub = f"{path}.{key}" if path else key
        f = fields.get(key)
        if f is None and is_rule and _snake(key) in RULE_EXTENSIONS:
            name, v = _snake(key), _attributes(item, sub)
        elif f is None and (desc.name, _snake(key)) in _OUTPUT_ONLY:
            continue
        elif f is None and (desc.name, _snake(key)) in _UNSUPPORTED:
            if item in (None, False, "", [], {}):
                continue
            raise SpecError(f"{sub}: {_UNSUPPORTED[(desc.name, _snake(key))]}")
        elif f is None:
            known = sorted({f.json_name for f in desc.fields} | ({"attributes"} if is_rule else set()))
            close = difflib.get_close_matches(key, known + [f.name for f in desc.fields], n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"
            raise SpecError(f"unknown field '{sub}' in {desc.name}{hint}")
        elif desc.name == "TemplateReference" and f.name in _TEMPLATE_RESULT_FIELDS:
            continue  # output only: what Dataplex resolved for a result, never part of a spec
        else:
            name, v = f.name, _field_value(item, f, sub)
        if name in seen:
            raise SpecError(f"{sub}: '{name}' is given twice ('{seen[name]}' and '{key}')")
        seen[name] = key
        if v is not _UNSET:
            out[name] = v
    return out


# ---------------------------------------------------------------- spec and rules


def rule_type_of(rule: Mapping[str, Any]) -> str | None:
    """The rule-type field set on a normalized rule (snake_case), or None."""
    return next((t for t in RULE_TYPES if t in rule), None)


def normalize_rule(value: Any, path: str = "rule") -> dict[str, Any]:
    """One DataQualityRule, normalized; exactly one rule type is required."""
    rule = normalize_message(value, descriptor_of(DataQualityRule), path)
    _check_rule_type(rule, path)
    return rule


def _check_rule_type(rule: Mapping[str, Any], path: str) -> None:
    types = [t for t in RULE_TYPES if t in rule]
    if not types:
        raise SpecError(f"{path}: no rule type; give one of {', '.join(RULE_TYPES)}")
    if len(types) > 1:
        raise SpecError(f"{path}: more than one rule type ({', '.join(types)}); a rule has exactly one")


def normalize_spec(value: Any, path: str = "") -> dict[str, Any]:
    """A bare DataQualitySpec mapping, normalized and validated against the proto."""
    spec = normalize_message(value, descriptor_of(DataQualitySpec), path)
    rules_path = f"{path}.rules" if path else "rules"
    if not spec.get("rules"):
        raise SpecError(
            f"{path + ': ' if path else ''}no rules (a DataQualitySpec needs at least one rule under `rules`)"
        )
    for i, rule in enumerate(spec["rules"]):
        _check_rule_type(rule, f"{rules_path}[{i}]")
    spec_to_proto(spec, path)
    return spec


def _strip_extensions(spec: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(spec)
    if "rules" in out:
        out["rules"] = [{k: v for k, v in r.items() if k not in RULE_EXTENSIONS} for r in out["rules"]]
    return out


def spec_to_proto(spec: Mapping[str, Any], path: str = "") -> DataQualitySpec:
    """Parse a normalized spec dict into the proto (extensions left out); SpecError when it does not fit."""
    message = DataQualitySpec()
    try:
        json_format.ParseDict(_strip_extensions(spec), message)
    except json_format.ParseError as exc:
        raise SpecError(f"{_where(path)}: not a valid DataQualitySpec: {str(exc).splitlines()[0]}") from None
    return message


def spec_to_dict(spec: Mapping[str, Any], *, camel_case: bool = True) -> dict[str, Any]:
    """A normalized spec as proto JSON (camelCase by default, as gcloud and the REST API print it),
    validated by a round trip through the proto, with the rules' attributes put back."""
    message = spec_to_proto(spec)
    out = json_format.MessageToDict(message, preserving_proto_field_name=not camel_case)
    for rule, original in zip(out.get("rules", []), spec.get("rules", []), strict=True):
        for ext in RULE_EXTENSIONS:
            if original.get(ext):
                rule[ext] = dict(original[ext])
    return out


# ---------------------------------------------------------------- shapes


def _datascan(value: Mapping[str, Any], source: str) -> tuple[Any, str | None, str | None, list[str]]:
    """(the spec value, incremental field, data resource, notes) of a DataScan resource."""
    spec_value: Any = None
    incremental_field = data_resource = None
    notes: list[str] = []
    ignored: list[str] = []
    for key, item in value.items():
        name = _snake(str(key))
        if name == "data_quality_spec":
            spec_value = _block(item, str(key))
        elif name == "data":
            data = _block(item, str(key)) or {}
            if not isinstance(data, Mapping):
                raise SpecError(f"{source}: {key}: expected a mapping with `resource` or `entity`")
            data_resource = data.get("resource") or data.get("entity") or None
            if data_resource:
                notes.append(f"the scan ran on {data_resource}; here the rules apply to the dbt model")
        elif name == "execution_spec":
            spec = _block(item, str(key)) or {}
            if not isinstance(spec, Mapping):
                raise SpecError(f"{source}: {key}: expected a mapping")
            for k, v in spec.items():
                kn = _snake(str(k))
                if kn == "field":
                    incremental_field = v or None
                elif kn == "trigger":
                    if _block(v, k):
                        notes.append(
                            f"{key}.{k} is left out: dbt runs the rules on every build (schedule the dbt job instead)"
                        )
                else:
                    raise SpecError(f"{source}: unknown field '{key}.{k}' in the DataScan's executionSpec")
        elif name in ("data_profile_spec", "data_discovery_spec", "data_documentation_spec"):
            if _block(item, str(key)):
                raise SpecError(f"{source}: this DataScan has a {key}, not a data quality spec")
        elif name in ("data_profile_result", "data_discovery_result"):
            continue
        elif name in _DATASCAN_IGNORED:
            if item not in (None, "", [], {}):
                ignored.append(str(key))
        else:
            raise SpecError(f"{source}: unknown field '{key}' in the DataScan resource")
    if ignored:
        notes.append(f"not part of the rules, left out: {', '.join(ignored)}")
    return spec_value, incremental_field, data_resource, notes


def parse_spec(value: Any, source: str = "<spec>") -> LoadedSpec:
    """A spec already parsed from YAML/JSON, in any accepted shape."""
    if not isinstance(value, Mapping):
        raise SpecError(f"{source}: expected a mapping (a DataQualitySpec), got {_type_name(value)}")
    wrapper = next((k for k in value if str(k) in _WRAPPER_KEYS or _snake(str(k)) == "data_quality_spec"), None)
    try:
        if wrapper is None:
            return LoadedSpec(source, normalize_spec(value))
        if len(value) == 1:
            return LoadedSpec(
                source, normalize_spec(_block(value[wrapper], str(wrapper)), str(wrapper)), shape="wrapped"
            )
        spec_value, incremental_field, data_resource, notes = _datascan(value, source)
        if incremental_field:
            notes.append(
                f"the scan's incremental field {incremental_field!r} becomes meta.dataplex_dq.incremental_field"
            )
        return LoadedSpec(
            source,
            normalize_spec(spec_value, str(wrapper)),
            shape="datascan",
            incremental_field=incremental_field,
            data_resource=data_resource,
            notes=tuple(notes),
        )
    except SpecError as exc:
        message = str(exc)
        raise SpecError(message if message.startswith(source) else f"{source}: {message}") from None


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{path}: not a text file (byte {exc.start} is not UTF-8); expected a DataQualitySpec in YAML or JSON"
        ) from None
    if "\x00" in text:
        raise SpecError(f"{path}: not a text file (it holds NUL bytes); expected a DataQualitySpec in YAML or JSON")
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return YAML(typ="safe", pure=True).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise SpecError(f"{path}: not valid YAML: {exc.problem or exc.context}{where}") from None
    except YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None


#: Deepest nesting a spec file may have: a DataQualitySpec is at most ~8 levels deep (a DataScan in
#: Terraform's state a few more); anything deeper is refused before it is walked.
MAX_DEPTH = 64


def _depth_problem(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests mappings and lists deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False


def load_spec_file(path: str | Path) -> LoadedSpec:
    """Read a spec file (``.json`` as JSON, anything else as YAML) in any accepted shape. Whatever is wrong
    with the file is one :class:`SpecError` line naming it (never a traceback: a binary file, a file nested
    deeper than any spec, ...)."""
    path = Path(path)
    try:
        value = _read(path)
    except RecursionError:
        value = _UNSET
    if value is _UNSET or _depth_problem(value):
        raise SpecError(
            f"{path}: nested more than {MAX_DEPTH} levels deep; a DataQualitySpec is a few levels deep, this is not one"
        )
    return parse_spec(value, str(path))
