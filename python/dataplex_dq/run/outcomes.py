"""A rule's outcome: its identity (name, type, column, the rule as declared) with its status.

The report builds them from the results table (run/recorded.py, ``outcome_of``), where the package's SQL
recorded each rule's metrics row with dbt's run result. Two ways to build a :class:`RuleOutcome`:

* a rule that was evaluated (PASSED, FAILED; also SUSPENDED, TRAINING) has its metrics:
  ``RuleOutcome.from_metrics(RuleMetrics.from_row(row))``;
* a rule whose test errored or was skipped has none: ``RuleOutcome.not_evaluated(identity,
  RuleStatus.ERROR, message)``, with ``identity = RuleIdentity.from_rule_spec(spec, data_source=...,
  test_unique_id=..., ...)``.

:func:`combine` does both from the artifacts and the metrics rows of an invocation (the report no longer
uses it; integration_tests/benchmarks/bench_scan.py does).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dataplex_dq.errors import StaleArtifactsError
from dataplex_dq.record.artifacts import MAX_TEST_NAME, Artifacts, RuleTest, short_test_name
from dataplex_dq.record.declared import declared_rules
from dataplex_dq.rule_types import RULE_TYPES, is_row_level, rule_type_keys
from dataplex_dq.run.metrics import EVALUATED_STATUSES, MetricsRowError, RuleMetrics, RuleStatus, blank_to_none

__all__ = [
    "RuleIdentity",
    "RuleOutcome",
    "combine",
    "rule_status_from_dbt",
    "rule_type_of_spec",
    "short_message",
    "short_test_name",
    "well_typed_rule",
]


def rule_status_from_dbt(dbt_status: str) -> RuleStatus | None:
    """Map a dbt test status (``run_results.json``) to a rule status when dbt alone decides it.

    ``error`` (and ``runtime error``) -> ERROR, ``skipped`` -> SKIPPED. For ``pass``, ``fail`` and
    ``warn`` the outcome is in the metrics row (a ``warn`` is a failed rule of severity warn, a
    ``pass`` may be a suspended rule), so ``None`` is returned: build the outcome with
    :meth:`RuleOutcome.from_metrics`. Raises ``ValueError`` on an unknown status.
    """
    status = dbt_status.strip().lower()
    if status in {"error", "runtime error", "runtimeerror"}:
        return RuleStatus.ERROR
    if status == "skipped":
        return RuleStatus.SKIPPED
    if status in {"pass", "fail", "warn", "success"}:
        return None
    raise ValueError(f"unknown dbt test status {dbt_status!r}")


def rule_type_of_spec(spec: Mapping[str, Any]) -> str:
    """The ``rule_type`` oneof field set in a ``DataQualityRule`` dict (snake_case or camelCase)."""
    found = rule_type_keys(spec)
    if len(found) != 1:
        name = spec.get("name", "<unnamed>")
        what = "no rule type" if not found else f"several rule types ({', '.join(sorted(found))})"
        raise MetricsRowError(f"rule {name}: {what}")
    return found[0]


def _identity_of_metrics(
    metrics: RuleMetrics, spec: dict[str, Any] | None = None, attributes: dict[str, str] | None = None
) -> dict[str, Any]:
    """The RuleIdentity fields a metrics row records (its ``rule_spec`` fills a NULL column or dimension);
    ``spec`` and ``attributes``: its rule_spec and rule_attributes already parsed, when the caller has them."""
    spec = metrics.rule_spec_dict() if spec is None else spec
    return {
        "rule_name": metrics.rule_name,
        "rule_type": metrics.rule_type,
        "data_source": metrics.dq_data_source,
        "test_unique_id": metrics.dq_test_unique_id,
        "rule_index": metrics.rule_index or 0,
        "column": metrics.rule_column if metrics.rule_column is not None else spec.get("column"),
        "dimension": metrics.rule_dimension if metrics.rule_dimension is not None else spec.get("dimension"),
        "rule_spec": spec,
        "attributes": metrics.attributes() if attributes is None else attributes,
    }


@dataclass(frozen=True, kw_only=True)
class RuleIdentity:
    """What identifies a rule and how it was declared, with or without a metrics row.

    ``rule_spec`` is the rule as a ``DataQualityRule`` dict in proto JSON (snake_case as written by
    the macros; camelCase also parses). ``attributes`` never go into the proto (the given
    ``data_quality.proto`` has no ``attributes`` field); they travel here, to the export.
    """

    rule_name: str
    rule_type: str
    data_source: str | None
    test_unique_id: str | None
    rule_index: int = 0
    column: str | None = None
    dimension: str | None = None
    rule_spec: dict[str, Any] = field(default_factory=dict, hash=False)
    attributes: dict[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.rule_type not in RULE_TYPES:
            raise MetricsRowError(f"rule {self.rule_name}: unknown rule type {self.rule_type!r}")
        # "" means "none" for column and dimension
        object.__setattr__(self, "column", blank_to_none(self.column))
        object.__setattr__(self, "dimension", blank_to_none(self.dimension))

    @classmethod
    def of_metrics(cls, metrics: RuleMetrics) -> RuleIdentity:
        """The identity a metrics row records (its ``rule_spec`` fills a NULL column or dimension)."""
        return RuleIdentity(**_identity_of_metrics(metrics))

    @classmethod
    def from_rule_spec(
        cls,
        spec: Mapping[str, Any],
        *,
        data_source: str | None,
        test_unique_id: str | None,
        rule_index: int = 0,
        rule_name: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> RuleIdentity:
        """From a declared ``DataQualityRule`` dict (e.g. rebuilt from a manifest test node).

        ``rule_name`` overrides ``spec["name"]`` (for derived names); ``attributes`` default to an
        ``attributes`` key of ``spec`` if there is one (it is kept out of ``rule_spec``).
        """
        spec_dict = dict(spec)
        spec_attributes = spec_dict.pop("attributes", None)
        name = rule_name or spec_dict.get("name")
        if not name:
            raise MetricsRowError(f"a rule of {test_unique_id or data_source or 'an unknown test'} has no name")
        spec_dict.setdefault("name", name)
        attrs = attributes if attributes is not None else (spec_attributes or {})
        return RuleIdentity(
            rule_name=str(name),
            rule_type=rule_type_of_spec(spec_dict),
            data_source=data_source,
            test_unique_id=test_unique_id,
            rule_index=rule_index,
            column=spec_dict.get("column"),
            dimension=spec_dict.get("dimension"),
            rule_spec=spec_dict,
            attributes={str(k): str(v) for k, v in dict(attrs).items()},
        )

    @property
    def is_row_level(self) -> bool:
        return is_row_level(self.rule_type)

    @property
    def description(self) -> str | None:
        return blank_to_none(self.rule_spec.get("description"))


@dataclass(frozen=True, kw_only=True)
class RuleOutcome(RuleIdentity):
    """A rule (its identity) after combining its metrics row (if any) with dbt's run result.

    ``metrics`` is set for PASSED / FAILED / SUSPENDED rules and ``None`` for ERROR / SKIPPED ones.
    ``message`` is dbt's message (errors, skips); optional otherwise.
    """

    status: RuleStatus
    metrics: RuleMetrics | None = None
    message: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if type(self.status) is not RuleStatus:
            object.__setattr__(self, "status", RuleStatus(self.status))
        if self.metrics is None and self.status in EVALUATED_STATUSES:
            raise MetricsRowError(f"rule {self.rule_name}: status {self.status} needs a metrics row")

    @classmethod
    def from_metrics(
        cls,
        metrics: RuleMetrics,
        *,
        message: str | None = None,
        rule_spec: dict[str, Any] | None = None,
        attributes: dict[str, str] | None = None,
    ) -> RuleOutcome:
        """A rule that dbt evaluated: status and identity from its metrics row (``rule_spec`` and ``attributes``:
        its rule_spec and rule_attributes already parsed, to save parsing them again).

        The caller checks that ``metrics.dq_invocation_id`` is the invocation being reported (a
        store_failures table may still hold the row of an earlier run when the test errored).
        """
        identity = _identity_of_metrics(metrics, rule_spec, attributes)
        return RuleOutcome(**identity, status=metrics.status, metrics=metrics, message=message)

    @classmethod
    def not_evaluated(cls, identity: RuleIdentity, status: RuleStatus | str, message: str | None = None) -> RuleOutcome:
        """A rule without a metrics row: ERROR, SKIPPED (or SUSPENDED, known from the manifest)."""
        status = RuleStatus(status)
        if status in EVALUATED_STATUSES:
            raise MetricsRowError(f"rule {identity.rule_name}: a {status} rule is built with from_metrics")
        return RuleOutcome(**vars(identity), status=status, metrics=None, message=message)

    @property
    def is_evaluated(self) -> bool:
        """PASSED or FAILED: the rule counts in scores and in ``DataQualityResult.rules``."""
        return self.status in EVALUATED_STATUSES

    @property
    def passed(self) -> bool | None:
        """True / False for evaluated rules, None otherwise."""
        return self.status is RuleStatus.PASSED if self.is_evaluated else None

    @property
    def threshold(self) -> float | None:
        """Effective threshold of a row-level rule (0 or unset -> 1.0); None for aggregates."""
        if not self.is_row_level:
            return None
        if self.metrics is not None and self.metrics.rule_threshold is not None:
            return self.metrics.rule_threshold
        declared = self.rule_spec.get("threshold")
        value = float(declared) if declared is not None and declared != "" else 0.0
        return value if value else 1.0


# --------------------------------------------------------------------------- one outcome per rule


def _well_typed(key: str, value: Any) -> bool:
    """Whether a declared rule field has the type the proto needs: a test that errored may declare
    anything (`threshold: [0.5]`, `debug_queries: "select 1"`), and its rule must still be reported."""
    if key == "threshold":
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if key in ("ignore_null", "suspended"):
        return isinstance(value, bool)
    if key in ("dimension", "description", "column", "name"):
        return isinstance(value, str)
    if key == "debug_queries":
        return isinstance(value, list) and all(isinstance(q, dict) for q in value)
    if key == "attributes":
        return isinstance(value, dict)
    if key in RULE_TYPES:
        return isinstance(value, dict)
    return True


def well_typed_rule(spec: dict[str, Any]) -> dict[str, Any]:
    """A declared rule without its ill-typed fields (an errored test is reported, never crashes the report)."""
    return {k: (v if _well_typed(k, v) else {}) for k, v in spec.items() if _well_typed(k, v) or k in RULE_TYPES}


MAX_MESSAGE = 2000


def short_message(message: str | None, test: RuleTest) -> str | None:
    """dbt's message of a test, with a long generated test name (and unique_id) shortened and the
    whole bounded (a warehouse error can quote the whole compiled SQL)."""
    if not message:
        return message
    if len(test.name) > MAX_TEST_NAME:
        message = message.replace(test.unique_id, short_test_name(test)).replace(test.name, short_test_name(test))
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def combine(
    artifacts: Artifacts, metrics: Sequence[RuleMetrics], fetch_errors: dict[str, str] | None = None
) -> list[RuleOutcome]:
    """One outcome per rule of every dataplex_dq test that ran in the last invocation (a test whose
    metrics could not be read, in ``fetch_errors``, is an ERROR with the warehouse's message)."""
    fetch_errors = fetch_errors or {}
    by_test: dict[str, list[RuleMetrics]] = defaultdict(list)
    stale = []
    for m in metrics:
        if m.dq_invocation_id != artifacts.invocation_id:
            stale.append(m)
            continue
        by_test[m.dq_test_unique_id or ""].append(m)
    outcomes: list[RuleOutcome] = []
    for test in artifacts.ran_tests():
        run = artifacts.runs[test.unique_id]
        status = rule_status_from_dbt(run.status)
        rows = sorted(by_test.get(test.unique_id, []), key=lambda m: m.rule_index or 0)
        message: str | None
        if status is None and not rows and test.unique_id in fetch_errors:
            status, message = RuleStatus.ERROR, f"cannot read the metrics of this test: {fetch_errors[test.unique_id]}"
        elif status is None and not rows:
            old = next((m for m in stale if m.dq_test_unique_id == test.unique_id), None)
            if old is not None:
                raise StaleArtifactsError(
                    f"the metrics row of test {short_test_name(test)} comes from dbt invocation "
                    f"{old.dq_invocation_id}, but run_results.json is from {artifacts.invocation_id}: "
                    "the warehouse and the artifacts disagree (another target, or a run in between). "
                    "Run `dbt build` again with this target, then `dataplex-dq report`."
                )
            status = RuleStatus.ERROR
            message = (
                f"dbt reported `{run.status}` but the test left no metrics row in "
                f"{test.relation_name or 'the warehouse'}: "
                "keep `store_failures` enabled for dataplex_dq tests"
            )
            rows = []
        else:
            message = short_message(run.message, test)
        if rows:
            outcomes.extend(RuleOutcome.from_metrics(m, message=None) for m in rows)
            continue
        for index, declared in declared_rules(test):
            spec = well_typed_rule(declared)
            if test.test_name == "anomaly_detection" and not rule_type_keys(spec):
                # its checks are named only when it runs: the test stands for them, as the anomaly check
                # it is (the rule type of its volume check), so every output reports it (as the writer does)
                spec = {**spec, "table_condition_expectation": {}, "attributes": {"anomaly_check": "anomaly_detection"}}
            identity = RuleIdentity.from_rule_spec(
                spec, data_source=test.data_source_id, test_unique_id=test.unique_id, rule_index=index
            )
            # a suspended rule is never evaluated: it stays SUSPENDED when its test errored or was skipped
            rule_status = RuleStatus.SUSPENDED if spec.get("suspended") is True else (status or RuleStatus.ERROR)
            outcomes.append(
                RuleOutcome.not_evaluated(
                    identity, rule_status, message=None if rule_status == RuleStatus.SUSPENDED else message
                )
            )
    return outcomes
