"""Assemble one ``google.cloud.dataplex.v1.DataQualityResult`` per data source.

Pure: takes the rule outcomes and the :class:`~dataplex_dq.run.scoring.ScoreCard` of one data source
and returns the proto. What goes where (docs/SEMANTICS.md §5 and §7):

* ``rules``: one ``DataQualityRuleResult`` per *evaluated* rule (PASSED / FAILED) in declaration
  order; suspended, errored and skipped rules are left out (they live in the export with their
  ``rule_status``). ``rule`` is the declared ``DataQualityRule`` (``rule_spec``); the rule's
  ``attributes`` are never put in the proto (the given ``data_quality.proto`` has no such field).
* ``dimensions``, ``columns``, ``score``, ``passed`` from the ScoreCard. ``score`` stays unset
  (``HasField("score")`` is false) when no rule was evaluated.

Float precision: the proto's ``score`` fields are 32-bit ``float``; 66.67 is stored as
66.66999816894531, and that is what ``result.score`` returns in Python. Proto JSON
(:func:`result_to_json`) prints float fields with the shortest representation that round-trips a
float32, so the JSON shows ``66.67``. The exact 2-decimal values are in the ScoreCard.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import msgspec
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from dataplex_dq.errors import DataplexDqError
from dataplex_dq.field_names import RULE_EXTENSIONS, is_repeated
from dataplex_dq.proto import (
    DataQualityColumnResult,
    DataQualityDimension,
    DataQualityDimensionResult,
    DataQualityResult,
    DataQualityRule,
    DataQualityRuleResult,
)
from dataplex_dq.run.incremental import JobWindow
from dataplex_dq.run.outcomes import RuleOutcome
from dataplex_dq.run.scoring import DimensionScore, ScoreCard

__all__ = [
    "AssembleError",
    "DebugValue",
    "build_result",
    "build_rule",
    "order_outcomes",
    "result_from_bytes",
    "result_from_json",
    "result_to_bytes",
    "result_to_json",
    "row_count_of",
]

DebugValue = tuple[str, str, Any]
"""One scalar of a debug query's row: ``(name, type, value)``; ``value`` is sent as text."""


class AssembleError(DataplexDqError, ValueError):
    """The outcomes cannot be turned into a DataQualityResult (names the rule and the problem)."""


def order_outcomes(outcomes: Iterable[RuleOutcome], test_order: Sequence[str] | None = None) -> list[RuleOutcome]:
    """Declaration order: by the caller's order of test unique_ids, then ``rule_index``.

    Tests missing from ``test_order`` (or all, when it is ``None``) follow in the order in which
    they first appear in ``outcomes``. The sort is stable.
    """
    items = list(outcomes)
    position = {tid: i for i, tid in enumerate(test_order or ())}
    first_seen: dict[str | None, int] = {}
    for item in items:
        first_seen.setdefault(item.test_unique_id, len(first_seen))

    def key(item: RuleOutcome) -> tuple[int, int, int]:
        tid = item.test_unique_id
        rank = position.get(tid, len(position)) if tid is not None else len(position)
        return (rank, first_seen[tid], item.rule_index)

    return sorted(items, key=key)


class _Field(NamedTuple):
    """How to set one proto field from proto JSON (read once per message type from its descriptor)."""

    name: str
    kind: str  # "message", "str", "bool", "float", "enum"
    repeated: bool
    oneof: str | None
    enum_numbers: Mapping[str, int]


_FIELDS_OF_CLASS: dict[type, dict[str, _Field]] = {}  # a cache (looked up by class: 5x faster than by descriptor)


def _fields(message: Any) -> dict[str, _Field]:
    """{snake_case or camelCase name: field} of a message's type, read from its descriptor once."""
    known = _FIELDS_OF_CLASS.get(type(message))
    if known is not None:
        return known
    out: dict[str, _Field] = {}
    for f in message.DESCRIPTOR.fields:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            kind = "map"  # TemplateReference.values
        elif f.message_type is not None:
            kind = "message"
        elif f.enum_type is not None:
            kind = "enum"
        else:
            kind = _SCALAR_KINDS[f.cpp_type]
        oneof = f.containing_oneof.name if f.containing_oneof is not None else None
        numbers = {v.name: v.number for v in f.enum_type.values} if f.enum_type is not None else {}
        out[f.name] = out[f.json_name] = _Field(f.name, kind, is_repeated(f), oneof, numbers)
    _FIELDS_OF_CLASS[type(message)] = out
    return out


_SCALAR_KINDS = {
    FieldDescriptor.CPPTYPE_STRING: "str",
    FieldDescriptor.CPPTYPE_BOOL: "bool",
    FieldDescriptor.CPPTYPE_DOUBLE: "float",
    FieldDescriptor.CPPTYPE_FLOAT: "float",
}
_SAME_TYPE = {"str": str, "bool": bool}  # kinds whose proto JSON value is set as given


def _scalar(f: _Field, value: Any, where: str) -> Any:
    """``value`` checked against the field's type (as strictly as json_format.ParseDict)."""
    kind, t = f.kind, type(value)
    if _SAME_TYPE.get(kind) is t:
        return value
    if kind == "float" and t in (float, int):
        return float(value)
    if kind == "enum" and t is str and value in f.enum_numbers:
        return f.enum_numbers[value]
    if kind == "enum" and t is int and value in f.enum_numbers.values():
        return value
    want = {"str": "a string", "bool": "true or false", "float": "a number", "enum": " or ".join(f.enum_numbers)}
    raise AssembleError(f"{where}.{f.name}: expected {want[kind]}, got {value!r}")


def _fill(message: Any, spec: Mapping[str, Any], where: str) -> None:
    """Set ``message`` from a proto JSON mapping (snake_case or camelCase names), walking its descriptor."""
    fields = _fields(message)
    oneof_set = None
    for key, value in spec.items():
        f = fields.get(key)
        if f is None:
            raise AssembleError(f"{where}: no field {key!r}")
        name, kind, repeated, oneof, _ = f
        if name != key and name in spec:
            raise AssembleError(f"{where}: {name} given twice ({name} and {key})")
        if oneof is not None:
            if oneof_set is not None:
                raise AssembleError(f"{where}: two {oneof} fields ({oneof_set} and {name}); a rule has one")
            oneof_set = name
        if value is None:
            continue
        if _SAME_TYPE.get(kind) is type(value) and not repeated:
            setattr(message, name, value)  # the common case: a string or a boolean
        elif kind != "message" and not repeated:
            setattr(message, name, _scalar(f, value, where))
        elif not repeated:
            if type(value) is not dict and not isinstance(value, Mapping):
                raise AssembleError(f"{where}.{name}: expected an object, got {value!r}")
            sub = getattr(message, name)
            sub.SetInParent()
            _fill(sub, value, f"{where}.{name}")
        elif kind == "map":
            if not isinstance(value, Mapping):
                raise AssembleError(f"{where}.{name}: expected an object, got {value!r}")
            target = getattr(message, name)
            for k, v in value.items():
                if isinstance(v, Mapping):
                    _fill(target[str(k)], v, f"{where}.{name}.{k}")
                else:
                    target[str(k)] = v
        elif type(value) is not list:
            raise AssembleError(f"{where}.{name}: expected a list, got {value!r}")
        elif kind != "message":
            getattr(message, name).extend([_scalar(f, item, where) for item in value])
        else:
            target = getattr(message, name)
            for item in value:
                if not isinstance(item, Mapping):
                    raise AssembleError(f"{where}.{name}: expected an object, got {item!r}")
                _fill(target.add(), item, f"{where}.{name}")


def build_rule(outcome: RuleOutcome) -> DataQualityRule:
    """The declared ``DataQualityRule`` of an outcome, built from its ``rule_spec`` (proto JSON,
    snake_case or camelCase) by walking the proto descriptor -- the one way a rule proto is built.

    Unknown keys and ill-typed values are errors, except ``attributes`` (dropped: not in the given
    proto). An empty ``rule_spec`` gives the rule from the identity (type, column, dimension).
    """
    spec = {k: v for k, v in outcome.rule_spec.items() if k not in RULE_EXTENSIONS} or {
        outcome.rule_type: {},
        "column": outcome.column,
        "dimension": outcome.dimension,
    }
    rule = DataQualityRule()
    _fill(rule, spec, f"rule {outcome.rule_name}: invalid rule_spec at DataQualityRule")
    set_type = rule.WhichOneof("rule_type")
    if set_type != outcome.rule_type:
        raise AssembleError(
            f"rule {outcome.rule_name}: rule_spec declares {set_type or 'no rule type'}, "
            f"the metrics row says {outcome.rule_type}"
        )
    if not rule.name:
        rule.name = outcome.rule_name
    return rule


def _rule_result(outcome: RuleOutcome, debug_results: Sequence[Sequence[DebugValue]] | None) -> DataQualityRuleResult:
    metrics = outcome.metrics
    assert metrics is not None  # evaluated outcomes always have one
    result = DataQualityRuleResult(rule=build_rule(outcome), passed=bool(outcome.passed))
    if outcome.is_row_level:
        if metrics.evaluated_count is not None:
            result.evaluated_count = metrics.evaluated_count
        if metrics.passed_count is not None:
            result.passed_count = metrics.passed_count
        if metrics.pass_ratio is not None:
            result.pass_ratio = metrics.pass_ratio
        if metrics.failing_rows_query is not None:
            result.failing_rows_query = metrics.failing_rows_query
    if metrics.null_count is not None:
        result.null_count = metrics.null_count
    if outcome.rule_type in ("sql_assertion", "template_reference") and metrics.assertion_row_count is not None:
        result.assertion_row_count = metrics.assertion_row_count
    for result_set in debug_results or ():
        out_set = result.debug_queries_result_sets.add()
        for name, type_, value in result_set:
            out_set.results.add(name=str(name), type=str(type_), value=_debug_text(value))
    return result


def _debug_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _dimension_result(score: DimensionScore) -> DataQualityDimensionResult:
    return DataQualityDimensionResult(
        dimension=DataQualityDimension(name=score.name), passed=score.passed, score=score.score
    )


def row_count_of(outcomes: Iterable[RuleOutcome]) -> int | None:
    """Rows in scope from the metrics rows (the largest ``row_count``); ``None`` without any."""
    counts = [o.metrics.row_count for o in outcomes if o.metrics is not None and o.metrics.row_count is not None]
    return max(counts) if counts else None


def build_result(
    outcomes: Iterable[RuleOutcome],
    scorecard: ScoreCard,
    *,
    row_count: int | None,
    incremental: JobWindow | None = None,
    test_order: Sequence[str] | None = None,
    debug_results: Mapping[str, Sequence[Sequence[DebugValue]]] | None = None,
) -> DataQualityResult:
    """The ``DataQualityResult`` of one data source.

    ``outcomes`` and ``scorecard`` (the scores the package's SQL recorded for the same job, read by
    :mod:`dataplex_dq.run.recorded`) describe one data source. ``row_count`` is rows in scope (``None`` leaves it 0; see
    :func:`row_count_of`). ``test_order`` is the declaration order of the test unique_ids (see
    :func:`order_outcomes`). ``debug_results`` maps a rule name to its debug queries' result sets,
    each a sequence of ``(name, type, value)``.
    """
    ordered = order_outcomes(outcomes, test_order)
    evaluated = [o for o in ordered if o.is_evaluated]
    if len(evaluated) != scorecard.evaluated_rules:
        raise AssembleError(
            f"the scorecard counts {scorecard.evaluated_rules} evaluated rules, the outcomes have {len(evaluated)}"
        )
    names = Counter(o.rule_name for o in evaluated)
    duplicates = sorted(n for n, times in names.items() if times > 1)  # (names.count per name: 500² per source)
    if duplicates:
        raise AssembleError(f"rule names used more than once: {', '.join(duplicates)}")
    unknown = sorted(set(debug_results or {}) - set(names))
    if unknown:
        raise AssembleError(f"debug results for rules that were not evaluated: {', '.join(unknown)}")

    result = DataQualityResult(passed=scorecard.passed)
    if scorecard.score is not None:
        result.score = scorecard.score
    if row_count is not None:
        result.row_count = row_count
    for outcome in evaluated:
        result.rules.append(_rule_result(outcome, (debug_results or {}).get(outcome.rule_name)))
    for dimension in scorecard.dimensions:
        result.dimensions.append(_dimension_result(dimension))
    for column in scorecard.columns:
        result.columns.append(
            DataQualityColumnResult(
                column=column.column,
                score=column.score,
                passed=column.passed,
                dimensions=[_dimension_result(d) for d in column.dimensions],
            )
        )
    if incremental is not None:
        window = result.scanned_data.incremental_field
        window.field = incremental.field
        window.start = incremental.start or ""
        window.end = incremental.end or ""
    return result


def result_to_json(result: DataQualityResult, *, include_defaults: bool = False) -> str:
    """Standard proto JSON: camelCase names, int64 as strings, keys sorted, indented by 2.

    Float fields print as the shortest text that round-trips the float32 (``66.67``). As in proto3
    JSON, fields at their default (``"passed": false``, zero counts) are omitted unless
    ``include_defaults`` (then every field without presence is printed; unset ``optional``
    fields such as ``score`` stay omitted either way).
    """
    # the bytes of json_format.MessageToJson(result, sort_keys=True, indent=2), whose indenting is json's pure-Python
    # encoder (~45% of it for a 10,000-rule report): the same dict, json's C encoder, msgspec's C re-indenting
    doc = json_format.MessageToDict(
        result, preserving_proto_field_name=False, always_print_fields_with_no_presence=include_defaults
    )
    return msgspec.json.format(json.dumps(doc, sort_keys=True, separators=(",", ":")), indent=2)


def result_from_json(text: str) -> DataQualityResult:
    return json_format.Parse(text, DataQualityResult(), ignore_unknown_fields=False)


def result_to_bytes(result: DataQualityResult) -> bytes:
    """Binary wire format, deterministic (stable bytes for equal messages)."""
    return result.SerializeToString(deterministic=True)


def result_from_bytes(data: bytes) -> DataQualityResult:
    return DataQualityResult.FromString(data)
