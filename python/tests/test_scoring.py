"""Dataplex scores (docs/SEMANTICS.md §7) on hand-built rule outcomes: percent() (scoring.py, used by diff and the
HTML report) and the definition as scorecards.score_rules states it in Python (the product scores in SQL: the SQL's
score_percent and group scores are checked against it by the integration tests)."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from scorecards import score_rules

from dataplex_dq.run.metrics import RuleMetrics, RuleStatus
from dataplex_dq.run.outcomes import RuleIdentity, RuleOutcome
from dataplex_dq.run.scoring import ColumnScore, DimensionScore, ScoreCard, percent

SOURCE = "model.shop.orders"
ROW_LEVEL = "non_null_expectation"


def rule(
    name: str,
    status: RuleStatus | str,
    *,
    column: str | None = None,
    dimension: str | None = None,
    rule_type: str = ROW_LEVEL,
    evaluated: int | None = None,
    passed_rows: int | None = None,
    source: str = SOURCE,
) -> RuleOutcome:
    status = RuleStatus(status)
    spec: dict[str, object] = {"name": name, rule_type: {}}
    if column:
        spec["column"] = column
    if dimension:
        spec["dimension"] = dimension
    if status in (RuleStatus.ERROR, RuleStatus.SKIPPED):
        identity = RuleIdentity.from_rule_spec(spec, data_source=source, test_unique_id=f"test.shop.{name}")
        return RuleOutcome.not_evaluated(identity, status, f"{status} in dbt")
    row_level = rule_type not in {"sql_assertion", "table_condition_expectation"}
    if row_level and evaluated is None and status is not RuleStatus.SUSPENDED:
        evaluated = 10
        passed_rows = 10 if status is RuleStatus.PASSED else 5
    metrics = RuleMetrics(
        dq_invocation_id="inv",
        dq_test_unique_id=f"test.shop.{name}",
        dq_data_source=source,
        rule_index=0,
        rule_name=name,
        rule_type=rule_type,
        rule_column=column,
        rule_dimension=dimension,
        rule_suspended=status is RuleStatus.SUSPENDED,
        rule_status=str(status),
        evaluated_count=evaluated,
        passed_count=passed_rows,
        passed=status is not RuleStatus.FAILED,
        rule_spec=json.dumps(spec),
    )
    return RuleOutcome.from_metrics(metrics)


# --------------------------------------------------------------------------- percent()


@pytest.mark.parametrize(
    ("n", "d", "expected"),
    [
        (3, 5, "60.00"),
        (2, 3, "66.67"),
        (1, 3, "33.33"),
        (1, 8, "12.50"),
        (0, 7, "0.00"),
        (7, 7, "100.00"),
        (1, 6, "16.67"),
        (5, 6, "83.33"),
        (102, 110, "92.73"),
        # exact halves round up (away from zero): 100 * 1/16 = 6.25 exactly -> no rounding needed,
        # 100 * 1/1600 = 0.0625 -> 0.06; 100 * 1/800 = 0.125 -> 0.13 (float round() gives 0.12)
        (1, 800, "0.13"),
        (1, 1600, "0.06"),
        (3, 800, "0.38"),
        (1, 400000, "0.00"),
    ],
)
def test_percent(n: int, d: int, expected: str) -> None:
    assert percent(n, d) == Decimal(expected)
    exact = Decimal(Fraction(100 * n, d).numerator) / Decimal(Fraction(100 * n, d).denominator)
    assert percent(n, d) == exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def test_percent_matches_decimal_half_up_over_many_fractions() -> None:
    for d in range(1, 401):
        for n in range(d + 1):
            exact = Fraction(100 * n, d)
            expected = (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(
                Decimal("0.01"), rounding=ROUND_HALF_UP
            )
            assert percent(n, d) == expected, (n, d)


def test_percent_edges() -> None:
    assert percent(0, 0) is None
    with pytest.raises(ValueError):
        percent(4, 3)
    with pytest.raises(ValueError):
        percent(-1, 3)


# --------------------------------------------------------------------------- score_rules() (tests/scorecards.py)


def test_no_rules() -> None:
    card = score_rules([])
    assert card == ScoreCard(
        score=None,
        passed=False,  # not evaluated, never a vacuous pass
        dimensions=(),
        columns=(),
        row_weighted_score=None,
        rows_evaluated=0,
        rows_passed=0,
        total_rules=0,
        evaluated_rules=0,
        passed_rules=0,
        failed_rules=0,
        suspended_rules=0,
        errored_rules=0,
        skipped_rules=0,
        has_errors=False,
    )


def test_all_suspended() -> None:
    card = score_rules(
        [
            rule("a", "SUSPENDED", column="id", dimension="COMPLETENESS"),
            rule("b", "SUSPENDED", column="amount", dimension="VALIDITY"),
        ]
    )
    assert card.score is None and card.passed is False and card.status == "NOT_EVALUATED"
    assert card.dimensions == () and card.columns == ()
    assert card.row_weighted_score is None
    assert (card.evaluated_rules, card.suspended_rules, card.has_errors) == (0, 2, False)


def test_only_errored_rules_have_no_score_but_errors() -> None:
    card = score_rules([rule("a", "ERROR"), rule("b", "SKIPPED")])
    assert card.score is None and card.passed is False and card.has_errors is True
    assert (card.evaluated, card.status) == (False, "NOT_EVALUATED")
    assert (card.errored_rules, card.skipped_rules, card.total_rules) == (1, 1, 2)


def test_errored_rule_is_excluded_and_flags_the_job() -> None:
    card = score_rules(
        [
            rule("a", "PASSED", column="id", dimension="COMPLETENESS"),
            rule("b", "PASSED", column="id", dimension="UNIQUENESS"),
            rule("c", "ERROR", column="id", dimension="COMPLETENESS"),
        ]
    )
    assert card.score == 100.0 and card.passed is True
    assert card.has_errors is True and card.errored_rules == 1
    assert card.evaluated_rules == 2 and card.total_rules == 3
    assert card.dimension("COMPLETENESS") == DimensionScore("COMPLETENESS", 100.0, True, 1, 1)
    assert card.column("id") is not None and card.column("id").rule_count == 2  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("passed", "failed", "score"),
    [(3, 2, 60.0), (2, 1, 66.67), (1, 2, 33.33), (0, 4, 0.0), (4, 0, 100.0)],
)
def test_job_score(passed: int, failed: int, score: float) -> None:
    outcomes = [rule(f"p{i}", "PASSED") for i in range(passed)]
    outcomes += [rule(f"f{i}", "FAILED") for i in range(failed)]
    outcomes += [rule("s", "SUSPENDED"), rule("k", "SKIPPED")]  # never counted
    card = score_rules(outcomes)
    assert card.score == score
    assert card.passed is (failed == 0)
    assert (card.evaluated_rules, card.passed_rules, card.failed_rules) == (
        passed + failed,
        passed,
        failed,
    )


def test_custom_dimensions_and_rules_without_dimension() -> None:
    card = score_rules(
        [
            rule("fresh-1", "PASSED", dimension="TIMELINESS", rule_type="table_condition_expectation"),
            rule("fresh-2", "FAILED", dimension="TIMELINESS", rule_type="sql_assertion"),
            rule("fresh-3", "PASSED", dimension="TIMELINESS", rule_type="sql_assertion"),
            rule("valid-1", "PASSED", dimension="VALIDITY", column="amount"),
            rule("nodim-1", "FAILED"),  # in the job score, in no dimension
            rule("nodim-2", "PASSED", column="amount"),
            rule("susp", "SUSPENDED", dimension="ACCURACY"),  # no evaluated rule -> no dimension
        ]
    )
    assert card.score == 66.67  # 4 of 6
    assert card.passed is False
    assert card.dimensions == (
        DimensionScore("TIMELINESS", 66.67, False, 3, 2),
        DimensionScore("VALIDITY", 100.0, True, 1, 1),
    )
    assert card.job_dimension_result() == {
        "TIMELINESS": {"passed": False, "score": 66.67},
        "VALIDITY": {"passed": True, "score": 100.0},
    }
    # rules without a column are in no column
    assert [c.column for c in card.columns] == ["amount"]
    assert card.column("amount") == ColumnScore(
        "amount", 100.0, True, 2, 2, (DimensionScore("VALIDITY", 100.0, True, 1, 1),)
    )


def test_column_with_several_dimensions() -> None:
    card = score_rules(
        [
            rule("email-not-null", "PASSED", column="email", dimension="COMPLETENESS"),
            rule("email-format", "FAILED", column="email", dimension="VALIDITY"),
            rule("email-domain", "PASSED", column="email", dimension="VALIDITY"),
            rule("email-allowed", "FAILED", column="email", dimension="VALIDITY"),
            rule("email-unique", "PASSED", column="email", dimension="UNIQUENESS"),
            rule("email-extra", "PASSED", column="email"),
            rule("email-off", "SUSPENDED", column="email", dimension="ACCURACY"),
            rule("id-not-null", "PASSED", column="id", dimension="COMPLETENESS"),
        ]
    )
    email = card.column("email")
    assert email is not None
    assert (email.score, email.passed, email.rule_count, email.passed_count) == (66.67, False, 6, 4)
    assert email.dimensions == (
        DimensionScore("COMPLETENESS", 100.0, True, 1, 1),
        DimensionScore("UNIQUENESS", 100.0, True, 1, 1),
        DimensionScore("VALIDITY", 33.33, False, 3, 1),
    )
    assert email.dimension("ACCURACY") is None
    assert [c.column for c in card.columns] == ["email", "id"]
    assert card.column("id") == ColumnScore(
        "id", 100.0, True, 1, 1, (DimensionScore("COMPLETENESS", 100.0, True, 1, 1),)
    )
    # job level: COMPLETENESS over email + id
    assert card.dimension("COMPLETENESS") == DimensionScore("COMPLETENESS", 100.0, True, 2, 2)
    assert card.score == 71.43  # 5 of 7


def test_row_weighted_score() -> None:
    card = score_rules(
        [
            rule("a", "FAILED", column="x", evaluated=100, passed_rows=97),
            rule("b", "FAILED", column="y", evaluated=10, passed_rows=5),
            # aggregates, suspended, errored rules and empty row-level rules add nothing
            rule("c", "PASSED", rule_type="sql_assertion"),
            rule("d", "SUSPENDED", column="z"),
            rule("e", "ERROR", column="z"),
            rule("f", "PASSED", column="w", evaluated=0, passed_rows=0),
        ]
    )
    assert (card.rows_passed, card.rows_evaluated) == (102, 110)
    assert card.row_weighted_score == 92.73
    assert card.score == 50.0  # 2 of 4 evaluated rules


def test_row_weighted_score_none_without_evaluated_rows() -> None:
    card = score_rules(
        [
            rule("a", "PASSED", rule_type="table_condition_expectation"),
            rule("b", "PASSED", column="x", evaluated=0, passed_rows=0),
        ]
    )
    assert card.row_weighted_score is None and card.score == 100.0


def test_one_data_source_only() -> None:
    with pytest.raises(ValueError, match="one data source"):
        score_rules([rule("a", "PASSED"), rule("b", "PASSED", source="model.shop.customers")])


def test_all_skipped_job_is_not_evaluated_not_passed() -> None:
    """issue 17: nine rules skipped after an upstream failure used to make a job 'passed' (vacuous)."""
    card = score_rules([rule(f"r{i}", "SKIPPED", column="id", dimension="VALIDITY") for i in range(9)])
    assert (card.score, card.passed, card.evaluated, card.status) == (None, False, False, "NOT_EVALUATED")
    assert (card.skipped_rules, card.evaluated_rules, card.has_errors) == (9, 0, True)
    ok = score_rules([rule("a", "PASSED"), rule("b", "SKIPPED")])
    assert (ok.score, ok.passed, ok.status) == (100.0, True, "PASSED")
