"""The rule types: one registry for Python code.

The list of rule types, their proto JSON names and their arguments come from the proto descriptor (the
``rule_type`` oneof of ``DataQualityRule``, in proto order). What the proto does not say -- evaluated per
row or once over the scope, whether ``ignore_null`` applies, whether a column is required, the name
Dataplex shows -- is the one small table ``_FACTS`` below. The dbt macros keep the same facts in their
own registry macro (macros/validation.sql today).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from dataplex_dq.field_names import camel, is_repeated
from dataplex_dq.proto import DataQualityRule

__all__ = [
    "RULE_TYPES",
    "RULE_TYPE_OF_KEY",
    "ArgumentKind",
    "RuleType",
    "is_row_level",
    "rule_type_keys",
]

ArgumentKind = Literal["str", "bool", "list", "enum", "map", "message"]


@dataclass(frozen=True)
class RuleType:
    """One rule type: a field of the ``rule_type`` oneof, and what dataplex_dq knows about it."""

    name: str  # proto field name, snake_case: range_expectation
    json_name: str  # proto JSON name: rangeExpectation
    arguments: tuple[str, ...]  # fields of the rule type's message, proto order
    argument_kinds: Mapping[str, ArgumentKind]  # what each argument holds in proto JSON
    enum_values: Mapping[str, Mapping[str, int]]  # enum arguments: {argument: {value name: number}}
    row_level: bool  # evaluated per row (counts, pass ratio, threshold) or once over the scope
    takes_ignore_null: bool
    needs_column: bool
    display_name: str  # the export's `rule_type` column, as Dataplex writes it

    @property
    def evaluation_type(self) -> str:
        """The export's `rule_evaluation_type` column."""
        return "Per row" if self.row_level else "Aggregate"


# rule type -> (row-level, takes ignore_null, needs a column, Dataplex display name)
_FACTS: dict[str, tuple[bool, bool, bool, str]] = {
    "range_expectation": (True, True, True, "Range Check"),
    "non_null_expectation": (True, False, True, "Null check"),
    "set_expectation": (True, True, True, "Set check"),
    "regex_expectation": (True, True, True, "Regular expression check"),
    "uniqueness_expectation": (True, True, True, "Uniqueness Check"),
    "statistic_range_expectation": (False, False, True, "Statistic check"),
    "row_condition_expectation": (True, False, False, "Row condition"),
    "table_condition_expectation": (False, False, False, "Table condition"),
    "sql_assertion": (False, False, False, "SQL assertion"),
    "template_reference": (False, False, False, "Template reference"),
}


def _kind(field: FieldDescriptor) -> ArgumentKind:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return "map"
    if is_repeated(field):
        return "list"
    if field.type == FieldDescriptor.TYPE_ENUM:
        return "enum"
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "bool"
    if field.type == FieldDescriptor.TYPE_STRING:
        return "str"
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return "message"
    raise TypeError(f"DataQualityRule.{field.full_name}: a field type the registry does not know")


def _rule_type(field: FieldDescriptor) -> RuleType:
    message: Descriptor = field.message_type
    row_level, ignore_null, needs_column, display = _FACTS[field.name]
    return RuleType(
        name=field.name,
        json_name=camel(field.name),  # the proto's json_name (no json_name options in data_quality.proto)
        arguments=tuple(f.name for f in message.fields),
        argument_kinds=MappingProxyType({f.name: _kind(f) for f in message.fields}),
        enum_values=MappingProxyType(
            {
                f.name: MappingProxyType({v.name: v.number for v in f.enum_type.values})
                for f in message.fields
                if f.enum_type is not None
            }
        ),
        row_level=row_level,
        takes_ignore_null=ignore_null,
        needs_column=needs_column,
        display_name=display,
    )


def _registry() -> Mapping[str, RuleType]:
    oneof = DataQualityRule.DESCRIPTOR.oneofs_by_name["rule_type"]
    names = [f.name for f in oneof.fields]
    if set(names) != set(_FACTS):
        differ = sorted(set(names) ^ set(_FACTS))
        raise RuntimeError(f"rule_types._FACTS and the proto's rule_type oneof differ: {differ}")
    return MappingProxyType({f.name: _rule_type(f) for f in oneof.fields})


RULE_TYPES: Mapping[str, RuleType] = _registry()
"""Every rule type by its proto field name, in proto order (the order the scan macro looks for them)."""

RULE_TYPE_OF_KEY: Mapping[str, str] = MappingProxyType(
    {**{t.json_name: t.name for t in RULE_TYPES.values()}, **{t.name: t.name for t in RULE_TYPES.values()}}
)
"""A rule-type key as declared (snake_case or camelCase) -> the rule type's proto field name."""


def is_row_level(rule_type: str) -> bool:
    """Whether ``rule_type`` is evaluated per row; False for aggregates and unknown names."""
    known = RULE_TYPES.get(rule_type)
    return known is not None and known.row_level


def rule_type_keys(rule: Mapping[str, Any]) -> list[str]:
    """The rule types a declared rule sets (snake_case or camelCase keys), in proto order."""
    found = {RULE_TYPE_OF_KEY[k] for k in rule if isinstance(k, str) and k in RULE_TYPE_OF_KEY}
    return [t for t in RULE_TYPES if t in found]
