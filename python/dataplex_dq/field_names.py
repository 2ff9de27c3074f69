"""The one map of a Dataplex spec's field names: proto JSON (camelCase) and proto (snake_case) names of
DataQualitySpec and every message under it, derived from the proto descriptor, plus the fields of the
DataScan resource a spec comes wrapped in (`gcloud dataplex datascans describe`), which is not part
of the protos this project has.

Python uses it directly (:func:`snake_keys`); the dbt macros use the same map, generated from here
into macros/spec_fields.sql by scripts/gen_spec_fields.py (a test fails when that file is stale)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from dataplex_dq.proto import DataQualitySpec

#: DataScan resource fields (google.cloud.dataplex.v1.DataScan) around a data quality spec.
DATASCAN_FIELDS = (
    "name",
    "uid",
    "description",
    "display_name",
    "labels",
    "state",
    "create_time",
    "update_time",
    "data",
    "execution_spec",
    "execution_status",
    "type",
    "data_quality_spec",
    "data_profile_spec",
    "data_quality_result",
    "data_profile_result",
)
#: Sub-fields of DataScan.data and DataScan.execution_spec (DataSource, ExecutionSpec, Trigger).
DATASCAN_SUB_FIELDS = ("entity", "resource", "field", "trigger", "on_demand", "schedule", "cron")
#: DataQualityRule fields Google's current API has and the given proto lacks (kept as extensions).
RULE_EXTENSIONS = ("attributes",)
#: Mappings whose keys are the user's, never field names (a template's parameters: `values`,
#: `input_parameters`; `values` of a set_expectation is a list of scalars, left as it is either way).
FREE_KEYS = ("attributes", "labels", "values", "input_parameters")


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(p[:1].upper() + p[1:] for p in rest)


def spec_field(mapping: Any, key: str) -> Any:
    """A field of a spec mapping under its snake_case ``key`` or its camelCase (proto JSON) name; None when
    ``mapping`` is no mapping or has neither."""
    if not isinstance(mapping, Mapping):
        return None
    value = mapping.get(key)
    return value if value is not None else mapping.get(camel(key))


def singular_messages() -> list[str]:
    """snake_case names of the non-repeated message fields of the spec tree (and of the DataScan):
    Terraform's state holds each as a list of one element, or [] when unset."""
    out: set[str] = {"data_quality_spec", "data", "execution_spec", "trigger", "on_demand", "schedule"}
    seen: set[str] = set()

    def walk(desc: Any) -> None:
        if desc.full_name in seen:
            return
        seen.add(desc.full_name)
        for f in desc.fields:
            if f.message_type is not None:
                if not is_repeated(f):
                    out.add(f.name)
                walk(f.message_type)

    walk(DataQualitySpec.DESCRIPTOR)
    return sorted(out)


def is_repeated(f: FieldDescriptor) -> bool:
    """Whether a proto field is repeated (protobuf 5 and 6: `is_repeated`; older: `label`)."""
    repeated = getattr(f, "is_repeated", None)
    return bool(repeated) if repeated is not None else f.label == f.LABEL_REPEATED


def field_names() -> dict[str, str]:
    """{camelCase or snake_case name: snake_case name} of every field of the spec tree, sorted."""
    out: dict[str, str] = {}
    seen: set[str] = set()

    def walk(desc: Any) -> None:
        if desc.full_name in seen:
            return
        seen.add(desc.full_name)
        for f in desc.fields:
            out[f.json_name] = f.name
            out[f.name] = f.name
            if f.message_type is not None:
                walk(f.message_type)

    walk(DataQualitySpec.DESCRIPTOR)
    for name in DATASCAN_FIELDS + DATASCAN_SUB_FIELDS + RULE_EXTENSIONS:
        out.setdefault(camel(name), name)
        out.setdefault(name, name)
    return dict(sorted(out.items()))


_NAMES = field_names()
_SINGULAR = frozenset(singular_messages())


def snake_keys(value: Any) -> Any:
    """``value`` with every known field name in snake_case at every depth; explicit nulls and empty
    strings left out (proto3: unset); a message field held as a list of one mapping (Terraform's
    blocks) unwrapped, as [] left out; the keys of `attributes` and `labels` kept as given."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, given in value.items():
            key = _NAMES.get(k, k) if isinstance(k, str) else k
            v = given
            if key in _SINGULAR and isinstance(v, list) and len(v) <= 1 and all(isinstance(x, Mapping) for x in v):
                v = v[0] if v else None
            if v is None or v == "":
                continue
            out[key] = v if key in FREE_KEYS else snake_keys(v)
        return out
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


def is_snake(name: str) -> bool:
    return bool(re.fullmatch(r"[a-z0-9_]+", name))
