"""A ScoreCard computed in Python from rule outcomes: the definition of docs/SEMANTICS.md §7, for tests that
need a ScoreCard fixture and for test_scoring's property tests.

The product no longer scores in Python: the scores are computed once, in SQL, by the package's writer
(macros/results/on_run_end.sql, with score_percent and the group scores of macros/results/result_model_helpers.sql)
and read back by dataplex_dq/run/recorded.py. The integration tests check that the SQL's scores equal this
definition.

* score = 100 x passed rules / evaluated rules (:func:`dataplex_dq.run.scoring.percent`); ``None`` without
  evaluated rules;
* passed = at least one rule was evaluated and none failed;
* one DimensionScore per dimension with at least one evaluated rule, one ColumnScore per column with at least
  one evaluated rule (with per-dimension scores over that column's rules);
* row-weighted: 100 x sum(passed_count) / sum(evaluated_count) over the evaluated row-level rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.outcomes import RuleOutcome
from dataplex_dq.run.scoring import ColumnScore, DimensionScore, ScoreCard, percent


def _score(passed: int, total: int) -> float | None:
    value = percent(passed, total)
    return None if value is None else float(value)


def _groups(
    rules: Sequence[RuleOutcome], key: Callable[[RuleOutcome], str | None]
) -> list[tuple[str, list[RuleOutcome], int, float]]:
    """(key, rules, passed rules, score) per key with at least one rule, sorted by key."""
    groups: dict[str, list[RuleOutcome]] = {}
    for rule in rules:
        k = key(rule)
        if k is not None:
            groups.setdefault(k, []).append(rule)
    out = []
    for k in sorted(groups):
        members = groups[k]
        passed = sum(1 for r in members if r.status is RuleStatus.PASSED)
        score = _score(passed, len(members))
        assert score is not None
        out.append((k, members, passed, score))
    return out


def _dimension_scores(rules: Sequence[RuleOutcome]) -> tuple[DimensionScore, ...]:
    return tuple(
        DimensionScore(
            name=name, score=score, passed=passed == len(members), rule_count=len(members), passed_count=passed
        )
        for name, members, passed, score in _groups(rules, lambda r: r.dimension)
    )


def _column_scores(rules: Sequence[RuleOutcome]) -> tuple[ColumnScore, ...]:
    return tuple(
        ColumnScore(
            column=column,
            score=score,
            passed=passed == len(members),
            rule_count=len(members),
            passed_count=passed,
            dimensions=_dimension_scores(members),
        )
        for column, members, passed, score in _groups(rules, lambda r: r.column)
    )


def score_rules(outcomes: Iterable[RuleOutcome]) -> ScoreCard:
    """Score the rules of ONE data source (raises ``ValueError`` if they name several)."""
    rules = list(outcomes)
    sources = {r.data_source for r in rules if r.data_source is not None}
    if len(sources) > 1:
        raise ValueError(f"score_rules takes one data source, got {', '.join(sorted(sources))}")

    evaluated = [r for r in rules if r.is_evaluated]
    passed = sum(1 for r in evaluated if r.status is RuleStatus.PASSED)
    counts = {status: sum(1 for r in rules if r.status is status) for status in RuleStatus}

    rows_evaluated = rows_passed = 0
    for rule in evaluated:
        if rule.is_row_level and rule.metrics is not None:
            rows_evaluated += rule.metrics.evaluated_count or 0
            rows_passed += rule.metrics.passed_count or 0

    return ScoreCard(
        score=_score(passed, len(evaluated)),
        passed=bool(evaluated) and passed == len(evaluated),
        dimensions=_dimension_scores(evaluated),
        columns=_column_scores(evaluated),
        row_weighted_score=_score(rows_passed, rows_evaluated),
        rows_evaluated=rows_evaluated,
        rows_passed=rows_passed,
        total_rules=len(rules),
        evaluated_rules=len(evaluated),
        passed_rules=passed,
        failed_rules=counts[RuleStatus.FAILED],
        suspended_rules=counts[RuleStatus.SUSPENDED],
        errored_rules=counts[RuleStatus.ERROR],
        skipped_rules=counts[RuleStatus.SKIPPED],
        has_errors=counts[RuleStatus.ERROR] + counts[RuleStatus.SKIPPED] > 0,
    )
