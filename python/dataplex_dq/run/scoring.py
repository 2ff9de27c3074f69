"""The scores of one data source's job (docs/SEMANTICS.md §7): the types every output reads, and
:func:`percent`, the rounding of a score.

The scores are computed once, in SQL, by the package's writer (macros/results/on_run_end.sql, with
``score_percent`` and the group scores of macros/results/result_model_helpers.sql) and read back into a
:class:`ScoreCard` by :mod:`dataplex_dq.run.recorded`. What they are:

* the unit is the rule, not the row. Only *evaluated* rules count (status PASSED or FAILED);
  SUSPENDED, ERROR, SKIPPED and TRAINING rules are left out of every numerator and denominator;
* score = 100 x passed rules / evaluated rules, rounded half away from zero to 2 decimals on the
  exact fraction (2 of 3 -> 66.67, 1 of 3 -> 33.33, 1 of 8 -> 12.5); ``None`` without evaluated
  rules;
* passed = at least one rule was evaluated and none failed. A job whose rules were all skipped,
  errored or suspended is *not evaluated*: ``passed`` is ``False``, ``score`` ``None`` and
  ``evaluated`` ``False`` (never a vacuous pass, issue 17);
* one :class:`DimensionScore` per dimension with at least one evaluated rule (rules without a
  dimension are in no dimension); one :class:`ColumnScore` per column with at least one evaluated
  rule, with per-dimension scores over that column's rules;
* the row-weighted extension: 100 x sum(passed_count) / sum(evaluated_count) over the evaluated
  row-level rules, same rounding, ``None`` when the sum of evaluated_count is 0.

:func:`percent` is that rounding in Python, for what the outputs compute themselves from recorded
scores (diff.py, html_report.py).

Scores are Python floats holding the exact 2-decimal value (``66.67``). ``DataQualityResult.score``
is a 32-bit ``float`` in the proto, where 66.67 is stored as 66.66999816894531; proto JSON prints
it back as 66.67 (see :mod:`dataplex_dq.run.assemble`). Use the ScoreCard values, not the proto's, for
exports and comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "ColumnScore",
    "DimensionScore",
    "ScoreCard",
    "percent",
]


def percent(numerator: int, denominator: int) -> Decimal | None:
    """``100 * numerator / denominator`` rounded half away from zero to 2 decimals, exactly.

    Equal to ``Decimal(Fraction(100 * numerator, denominator)).quantize(Decimal("0.01"),
    ROUND_HALF_UP)`` computed in integer arithmetic, so no binary or 28-digit rounding can move a
    value across a .xx5 boundary. ``None`` when ``denominator`` is 0.
    """
    if denominator < 0 or numerator < 0:
        raise ValueError(f"percent({numerator}, {denominator}): negative count")
    if numerator > denominator:
        raise ValueError(f"percent({numerator}, {denominator}): numerator above denominator")
    if denominator == 0:
        return None
    # hundredths of a percent = round_half_up(10000 * n / d) = floor((2 * 10000 * n + d) / (2 * d))
    hundredths = (20000 * numerator + denominator) // (2 * denominator)
    return Decimal(hundredths).scaleb(-2)


@dataclass(frozen=True)
class DimensionScore:
    """Rule-count score of one dimension (job level, or within one column)."""

    name: str
    score: float
    passed: bool
    rule_count: int
    passed_count: int


@dataclass(frozen=True)
class ColumnScore:
    """Rule-count score of one column, with its per-dimension scores (sorted by name)."""

    column: str
    score: float
    passed: bool
    rule_count: int
    passed_count: int
    dimensions: tuple[DimensionScore, ...]

    def dimension(self, name: str) -> DimensionScore | None:
        return next((d for d in self.dimensions if d.name == name), None)


@dataclass(frozen=True)
class ScoreCard:
    """Scores and counts of one data source's job.

    ``score`` is ``None`` when no rule was evaluated; ``passed`` is then ``False`` and
    ``evaluated`` ``False``: the job is "not evaluated" (exported with ``passed`` NULL).
    ``has_errors`` is true when a rule errored or was skipped (the job "succeeded with errors").
    ``row_weighted_score`` is the extension (percentage 0-100), ``None`` when no row-level rule
    evaluated any row. ``dimensions`` are sorted by name, ``columns`` by column.
    """

    score: float | None
    passed: bool
    dimensions: tuple[DimensionScore, ...]
    columns: tuple[ColumnScore, ...]
    row_weighted_score: float | None
    rows_evaluated: int
    rows_passed: int
    total_rules: int
    evaluated_rules: int
    passed_rules: int
    failed_rules: int
    suspended_rules: int
    errored_rules: int
    skipped_rules: int
    has_errors: bool

    @property
    def evaluated(self) -> bool:
        """At least one rule was evaluated (PASSED or FAILED)."""
        return self.evaluated_rules > 0

    @property
    def status(self) -> str:
        """PASSED, FAILED or NOT_EVALUATED (no rule evaluated: all skipped, errored or suspended)."""
        if not self.evaluated:
            return "NOT_EVALUATED"
        return "PASSED" if self.passed else "FAILED"

    def dimension(self, name: str) -> DimensionScore | None:
        return next((d for d in self.dimensions if d.name == name), None)

    def column(self, name: str) -> ColumnScore | None:
        return next((c for c in self.columns if c.column == name), None)

    def job_dimension_result(self) -> dict[str, dict[str, Any]]:
        """The export's ``job_dimension_result``: ``{"DIM": {"passed": bool, "score": num}}``."""
        return {d.name: {"passed": d.passed, "score": d.score} for d in self.dimensions}
