"""Assemble one ``google.cloud.dataplex.v1.DataQualityResult`` per data source.

Pure: takes the rule outcomes and the :class:`~dataplex_dq.scoring.ScoreCard` of one data source
and returns the proto. What goes where (SPEC section 4 and 5):

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

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from google.protobuf import json_format

from dataplex_dq.errors import DataplexDqError
from dataplex_dq.metrics import RuleOutcome
from dataplex_dq.proto import (
    DataQualityColumnResult,
    DataQualityDimension,
    DataQualityDimensionResult,
    DataQualityResult,
    DataQualityRule,
    DataQualityRuleResult,
)
from dataplex_dq.scoring import DimensionScore, ScoreCard

__all__ = [
    "AssembleError",
    "DebugValue",
    "IncrementalWindow",
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

# keys a rule_spec may carry that the given DataQualityRule does not have (they travel separately)
_NON_PROTO_RULE_KEYS = ("attributes",)


class AssembleError(DataplexDqError, ValueError):
    """The outcomes cannot be turned into a DataQualityResult (names the rule and the problem)."""


@dataclass(frozen=True)
class IncrementalWindow:
    """The incremental window scanned: ``ScannedData.incremental_field``."""

    field: str
    start: str | datetime
    end: str | datetime


def _text(value: str | datetime) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


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


_RULE_SCALARS = {
    "name": str,
    "description": str,
    "column": str,
    "dimension": str,
    "threshold": float,
    "ignore_null": bool,
    "suspended": bool,
}
_RULE_TYPE_FIELDS = {
    "range_expectation": {"min_value": str, "max_value": str, "strict_min_enabled": bool, "strict_max_enabled": bool},
    "non_null_expectation": {},
    "set_expectation": {"values": list},
    "regex_expectation": {"regex": str},
    "uniqueness_expectation": {},
    "statistic_range_expectation": {
        "statistic": "enum",
        "min_value": str,
        "max_value": str,
        "strict_min_enabled": bool,
        "strict_max_enabled": bool,
    },
    "row_condition_expectation": {"sql_expression": str},
    "table_condition_expectation": {"sql_expression": str},
    "sql_assertion": {"sql_statement": str},
}


def _build_rule_fast(spec: Mapping[str, Any], rule: DataQualityRule) -> bool:
    """Fill ``rule`` from a snake_case spec of the shape the macros write, without json_format
    (ten times faster for large projects). Returns False -- leaving the caller to use
    ``ParseDict`` and its precise errors -- on anything outside that shape."""
    for key, value in spec.items():
        kind = _RULE_SCALARS.get(key)
        if kind is not None:
            if value is None:
                continue
            if type(value) is not kind and not (kind is float and type(value) is int):
                return False
            setattr(rule, key, value)
        elif key in _RULE_TYPE_FIELDS:
            if not isinstance(value, dict):
                return False
            sub = getattr(rule, key)
            sub.SetInParent()
            fields = _RULE_TYPE_FIELDS[key]
            for k, v in value.items():
                want = fields.get(k)
                if want is None:
                    return False
                if want == "enum":
                    if not isinstance(v, str) or v not in sub.DESCRIPTOR.fields_by_name[k].enum_type.values_by_name:
                        return False
                    setattr(sub, k, sub.DESCRIPTOR.fields_by_name[k].enum_type.values_by_name[v].number)
                elif want is list:
                    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                        return False
                    getattr(sub, k).extend(v)
                elif type(v) is not want:
                    return False
                else:
                    setattr(sub, k, v)
        elif key == "debug_queries":
            if not isinstance(value, list):
                return False
            for q in value:
                if not isinstance(q, dict) or set(q) - {"description", "sql_statement"}:
                    return False
                if not all(isinstance(x, str) for x in q.values() if x is not None):
                    return False
                rule.debug_queries.add(**{k: x for k, x in q.items() if x is not None})
        else:
            return False
    return True


def build_rule(outcome: RuleOutcome) -> DataQualityRule:
    """The declared ``DataQualityRule`` of an outcome, parsed from its ``rule_spec``.

    Unknown keys are errors (``ignore_unknown_fields=False``), except ``attributes``, which is
    dropped. With an empty ``rule_spec`` the rule is rebuilt from the identity (name, type,
    column, dimension).
    """
    spec = {k: v for k, v in outcome.rule_spec.items() if k not in _NON_PROTO_RULE_KEYS}
    rule = DataQualityRule()
    if spec:
        if not _build_rule_fast(spec, rule):
            rule.Clear()
            try:
                json_format.ParseDict(copy.deepcopy(spec), rule, ignore_unknown_fields=False)
            except json_format.ParseError as exc:
                raise AssembleError(f"rule {outcome.rule_name}: invalid rule_spec: {exc}") from None
        set_type = rule.WhichOneof("rule_type")
        if set_type != outcome.rule_type:
            raise AssembleError(
                f"rule {outcome.rule_name}: rule_spec declares {set_type or 'no rule type'}, "
                f"the metrics row says {outcome.rule_type}"
            )
    else:
        getattr(rule, outcome.rule_type).SetInParent()
        if outcome.column is not None:
            rule.column = outcome.column
        if outcome.dimension is not None:
            rule.dimension = outcome.dimension
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
    if outcome.rule_type == "sql_assertion" and metrics.assertion_row_count is not None:
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
    incremental: IncrementalWindow | None = None,
    test_order: Sequence[str] | None = None,
    debug_results: Mapping[str, Sequence[Sequence[DebugValue]]] | None = None,
) -> DataQualityResult:
    """The ``DataQualityResult`` of one data source.

    ``outcomes`` and ``scorecard`` (from :func:`dataplex_dq.scoring.score_rules` over the same
    outcomes) describe one data source. ``row_count`` is rows in scope (``None`` leaves it 0; see
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
    names = [o.rule_name for o in evaluated]
    duplicates = sorted({n for n in names if names.count(n) > 1})
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
        window.start = _text(incremental.start)
        window.end = _text(incremental.end)
    return result


def result_to_json(result: DataQualityResult, *, include_defaults: bool = False) -> str:
    """Standard proto JSON: camelCase names, int64 as strings, keys sorted, indented by 2.

    Float fields print as the shortest text that round-trips the float32 (``66.67``). As in proto3
    JSON, fields at their default (``"passed": false``, zero counts) are omitted unless
    ``include_defaults`` (then every field without presence is printed; unset ``optional``
    fields such as ``score`` stay omitted either way).
    """
    return json_format.MessageToJson(
        result,
        preserving_proto_field_name=False,
        sort_keys=True,
        indent=2,
        always_print_fields_with_no_presence=include_defaults,
    )


def result_from_json(text: str) -> DataQualityResult:
    return json_format.Parse(text, DataQualityResult(), ignore_unknown_fields=False)


def result_to_bytes(result: DataQualityResult) -> bytes:
    """Binary wire format, deterministic (stable bytes for equal messages)."""
    return result.SerializeToString(deterministic=True)


def result_from_bytes(data: bytes) -> DataQualityResult:
    return DataQualityResult.FromString(data)
