"""run/recorded.py: results-table rows (as the package's SQL writes them: recorded_rows.py) -> the jobs every
output reads: outcomes, the scores the SQL computed, debug results, notification, job context."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from recorded_rows import BQ, INV, JOB, NOTIFIED, SOURCE, debug_query, rule_row

from dataplex_dq.record.declared import DeclaredRule
from dataplex_dq.run.assemble import build_result
from dataplex_dq.run.cost import QueryCost
from dataplex_dq.run.incremental import JobWindow
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.recorded import RecordedJob, recorded_jobs
from dataplex_dq.run.scoring import ColumnScore, DimensionScore


def rows() -> list[dict[str, Any]]:
    return [
        rule_row(
            "qty-range",
            "Range Check",
            "FAILED",
            rule_threshold_percent=90.0,
            rule_parameters=json.dumps({"max_value": "5"}),
            rule_rows_evaluated=8,
            rule_rows_passed=7,
            rule_rows_null=2,
            rule_failed_records_query="select * from db.main.items where not (qty <= 5)",
            rule_attributes=json.dumps({"owner": "shop"}),
            debug_queries=json.dumps(
                [
                    debug_query("largest", "select max(qty) as m from (scope)", ("m", "INTEGER", "100")),
                    debug_query(
                        "nulls",
                        "select count(*) as n, min(id) as i from (scope)",
                        ("n", "BIGINT", "2"),
                        ("i", "INTEGER", None),
                    ),
                ]
            ),
            dbt_test_cost=json.dumps({"execution_time": 1.5, "adapter_response": BQ}),
        ),
        rule_row(
            "qty-set",
            "Set check",
            "PASSED",
            rule_dimension="CONSISTENCY",
            rule_parameters=json.dumps({"values": ["1", "2"]}),
            rule_rows_evaluated=8,
            rule_rows_passed=8,
            # a passed rule's debug results are not reported (the writer runs them for failed rules)
            debug_queries=json.dumps([debug_query("d", "select 1 as one", ("one", "INTEGER", "1"))]),
        ),
        rule_row(
            "qty-mean",
            "Statistic check",
            "PASSED",
            rule_parameters=json.dumps({"statistic": "MEAN", "min_value": "0"}),
            rule_statistic_value=3.5,
        ),
        rule_row("qty-regex", "Regular expression check", "SUSPENDED", rule_parameters=json.dumps({"regex": "^1"})),
        rule_row(
            "qty-cond",
            "Row condition",
            "ERROR",
            rule_parameters=json.dumps({"sql_expression": "x > 0"}),
            rule_message="Binder Error: no such column x",
        ),
        # a skipped anomaly_detection test: its checks are named only when it runs, the writer records the test
        # as one rule of the rule type of its volume check (issue 29: it aborted every output)
        rule_row(
            "anomaly-detection-items",
            "Table condition",
            "SKIPPED",
            rule_column=None,
            rule_dimension=None,
            rule_threshold_percent=None,
            rule_attributes=json.dumps({"anomaly_check": "anomaly_detection"}),
            rule_message="skipped: an upstream node failed",
            dbt_test_unique_id="test.p.items-anomalies.1a2b",
        ),
    ]


def column_rows() -> list[dict[str, Any]]:
    """column_scores_sql's rows (macros/results/results_table.sql): per column, and per column and dimension."""
    return [
        {"data_quality_job_id": JOB, "column_name": "qty", "rule_dimension": None, "rules_evaluated": 3,
         "rules_passed": 2, "score": 66.67, "passed": False},
        {"data_quality_job_id": JOB, "column_name": "qty", "rule_dimension": "VALIDITY", "rules_evaluated": 2,
         "rules_passed": 1, "score": 50.0, "passed": False},
        {"data_quality_job_id": JOB, "column_name": "qty", "rule_dimension": "CONSISTENCY", "rules_evaluated": 1,
         "rules_passed": 1, "score": 100.0, "passed": True},
        # another job's column: not this job's
        {"data_quality_job_id": "job-other", "column_name": "id", "rule_dimension": None, "rules_evaluated": 1,
         "rules_passed": 0, "score": 0.0, "passed": False},
    ]  # fmt: skip


def _one(rows_: list[dict[str, Any]], declared: dict[tuple[str, str], DeclaredRule] | None = None) -> RecordedJob:
    (job,) = recorded_jobs(rows_, column_rows(), "duckdb", declared)
    return job


def test_the_job_context_is_what_the_rows_record():
    job = _one(rows()).job
    assert (job.invocation_id, job.data_source_id, job.data_source_name, job.resource_type) == (
        INV,
        SOURCE,
        "items",
        "seed",
    )
    assert (job.database, job.schema, job.identifier, job.adapter_type) == ("db", "main", "items", "duckdb")
    assert (job.start_time, job.end_time) == (
        datetime(2024, 1, 2, 3, 4, 5, 123456),
        datetime(2024, 1, 2, 3, 4, 7, 500000),
    )
    assert (job.rows_scanned, job.row_filter, job.sampling_percent) == (10, "id <> 99", None)
    assert job.labels == {"dbt_project": "p", "dbt_target": "prod"}
    assert (job.target, job.incremental_field, job.incremental_start) == ("prod", None, None)
    assert job.declared_rules == (
        "anomaly-detection-items",
        "qty-cond",
        "qty-mean",
        "qty-range",
        "qty-regex",
        "qty-set",
    )
    assert job.job_id  # deterministic from invocation and data source (export.job_id)
    # the cost dbt recorded per test (dbt_test_cost), for the summary's costliest queries; a test without one
    # (skipped, or not BigQuery-billed) is absent
    assert job.test_costs == {"test.p.qty-range": QueryCost.from_run_result(BQ, 1.5)}
    assert job.test_costs["test.p.qty-range"].bytes_billed == 10_485_760


def test_each_row_is_an_outcome_with_its_status_and_metrics():
    recorded = _one(rows())
    by_name = {o.rule_name: o for o in recorded.outcomes}
    assert [(o.rule_name, o.status) for o in recorded.outcomes] == [
        ("qty-range", RuleStatus.FAILED),
        ("qty-set", RuleStatus.PASSED),
        ("qty-mean", RuleStatus.PASSED),
        ("qty-regex", RuleStatus.SUSPENDED),
        ("qty-cond", RuleStatus.ERROR),
        ("anomaly-detection-items", RuleStatus.SKIPPED),
    ]
    failed = by_name["qty-range"]
    assert (failed.rule_type, failed.column, failed.dimension, failed.threshold) == (
        "range_expectation",
        "qty",
        "VALIDITY",
        0.9,
    )
    assert failed.metrics is not None
    assert (failed.metrics.evaluated_count, failed.metrics.passed_count, failed.metrics.null_count) == (8, 7, 2)
    assert failed.metrics.pass_ratio == 7 / 8
    assert failed.metrics.failing_rows_query == "select * from db.main.items where not (qty <= 5)"
    assert failed.rule_spec["range_expectation"] == {"max_value": "5"}
    assert failed.attributes == {"owner": "shop"}
    assert by_name["qty-set"].threshold == 1.0 and "threshold" not in by_name["qty-set"].rule_spec
    mean = by_name["qty-mean"]
    assert (mean.rule_type, mean.is_row_level, mean.metrics.statistic_value) == (  # type: ignore[union-attr]
        "statistic_range_expectation",
        False,
        3.5,
    )
    suspended = by_name["qty-regex"]
    assert (suspended.rule_type, suspended.passed, suspended.is_evaluated) == ("regex_expectation", None, False)


def test_errored_and_skipped_rows_are_not_evaluated_outcomes():
    by_name = {o.rule_name: o for o in _one(rows()).outcomes}
    errored = by_name["qty-cond"]
    assert (errored.status, errored.metrics, errored.passed, errored.is_evaluated) == (
        RuleStatus.ERROR,
        None,
        None,
        False,
    )
    assert (errored.rule_type, errored.column, errored.message) == (
        "row_condition_expectation",
        "qty",
        "Binder Error: no such column x",
    )
    assert errored.rule_spec["row_condition_expectation"] == {"sql_expression": "x > 0"}
    anomaly = by_name["anomaly-detection-items"]
    assert (anomaly.status, anomaly.metrics, anomaly.rule_type) == (
        RuleStatus.SKIPPED,
        None,
        "table_condition_expectation",
    )
    assert (anomaly.column, anomaly.dimension, anomaly.test_unique_id, anomaly.data_source) == (
        None,
        None,
        "test.p.items-anomalies.1a2b",
        SOURCE,
    )
    assert anomaly.attributes == {"anomaly_check": "anomaly_detection"}
    assert anomaly.rule_spec == {"name": "anomaly-detection-items", "table_condition_expectation": {}}
    assert anomaly.message == "skipped: an upstream node failed"


def test_a_job_of_only_a_skipped_anomaly_test_reads_and_assembles():
    """issue 29: the skipped anomaly_detection test alone in its job: read, scored as not evaluated, its proto
    built (no rule results), nothing raised."""
    (skipped,) = [r for r in rows() if r["rule_status"] == "SKIPPED"]
    skipped.update(
        job_quality_result=json.dumps({"passed": None, "score": None}),
        job_dimension_result="{}",
        job_row_weighted_score=None,
    )
    (recorded,) = recorded_jobs([skipped], [], "duckdb")
    card = recorded.card
    assert (card.score, card.passed, card.evaluated, card.status) == (None, False, False, "NOT_EVALUATED")
    assert (card.total_rules, card.skipped_rules, card.has_errors, card.dimensions, card.columns) == (
        1,
        1,
        True,
        (),
        (),
    )
    result = build_result(recorded.outcomes, card, row_count=recorded.row_count)
    assert (list(result.rules), result.HasField("score"), result.passed) == ([], False, False)


def test_the_score_card_is_what_the_sql_computed():
    recorded = _one(rows())
    card = recorded.card
    assert (card.score, card.passed, card.row_weighted_score, card.status) == (66.67, False, 93.75, "FAILED")
    assert card.dimensions == (
        DimensionScore("CONSISTENCY", 100.0, True, rule_count=1, passed_count=1),
        # the errored rule of the dimension is not counted (not evaluated)
        DimensionScore("VALIDITY", 50.0, False, rule_count=2, passed_count=1),
    )
    assert card.columns == (
        ColumnScore(
            "qty",
            66.67,
            False,
            rule_count=3,
            passed_count=2,
            dimensions=(
                DimensionScore("CONSISTENCY", 100.0, True, rule_count=1, passed_count=1),
                DimensionScore("VALIDITY", 50.0, False, rule_count=2, passed_count=1),
            ),
        ),
    )
    # the row-level evaluated rules' rows (the statistic rule has none)
    assert (card.rows_evaluated, card.rows_passed) == (16, 15)
    assert (
        card.total_rules,
        card.evaluated_rules,
        card.passed_rules,
        card.failed_rules,
        card.suspended_rules,
        card.errored_rules,
        card.skipped_rules,
        card.has_errors,
    ) == (6, 3, 2, 1, 1, 1, 1, True)


def test_the_scores_are_read_never_recomputed():
    """The SQL's values are taken as they are, even where the rules would give others: one definition (SQL)."""
    changed = [
        {
            **r,
            "job_quality_result": json.dumps({"passed": True, "score": 12.5}),
            "job_dimension_result": json.dumps({"VALIDITY": {"passed": True, "score": 33.33}}),
            "job_row_weighted_score": 1.23,
        }
        for r in rows()
    ]
    card = _one(changed).card
    assert (card.score, card.passed, card.row_weighted_score) == (12.5, True, 1.23)
    assert card.dimensions == (DimensionScore("VALIDITY", 33.33, True, rule_count=2, passed_count=1),)
    decoded = [{**r, "job_quality_result": {"passed": False, "score": 0.0}} for r in rows()]  # a driver's dict
    assert (_one(decoded).card.score, _one(decoded).card.passed) == (0.0, False)


def test_a_failed_rules_recorded_debug_results():
    recorded = _one(rows())
    assert recorded.debug_results == {
        "qty-range": [[("m", "INTEGER", "100")], [("n", "BIGINT", "2"), ("i", "INTEGER", None)]]
    }
    failed = next(o for o in recorded.outcomes if o.rule_name == "qty-range")
    assert failed.rule_spec["debug_queries"] == [
        {"description": "largest", "sql_statement": "select max(qty) as m from (scope)"},
        {"description": "nulls", "sql_statement": "select count(*) as n, min(id) as i from (scope)"},
    ]
    # ... into the proto: the failed rule's result sets, in its debug queries' order
    result = build_result(
        recorded.outcomes, recorded.card, row_count=recorded.row_count, debug_results=recorded.debug_results
    )
    assert [r.rule.name for r in result.rules] == ["qty-range", "qty-set", "qty-mean"]
    sets = result.rules[0].debug_queries_result_sets
    assert [[(x.name, x.type, x.value) for x in s.results] for s in sets] == [
        [("m", "INTEGER", "100")],
        [("n", "BIGINT", "2"), ("i", "INTEGER", "")],
    ]
    assert not result.rules[1].debug_queries_result_sets
    assert (round(result.score, 2), result.passed, result.row_count) == (66.67, False, 10)


def test_a_failed_rule_without_recorded_results_has_none():
    no_results = [
        {**r, "debug_queries": json.dumps([debug_query("largest", "select 1 as m")])}
        if r["rule_name"] == "qty-range"
        else r
        for r in rows()
    ]
    assert _one(no_results).debug_results == {}


def test_declared_fills_rule_index_and_what_the_table_does_not_keep():
    declared = {
        ("test.p.qty-range", "qty-range"): DeclaredRule(
            4, True, {"name": "qty-range", "threshold": 0.5, "ignore_null": True, "range_expectation": {}}
        ),
        ("test.p.qty-set", "qty-set"): DeclaredRule(
            1, True, {"name": "qty-set", "threshold": 1.0, "set_expectation": {}}
        ),
        ("test.p.qty-cond", "qty-cond"): DeclaredRule(2, True, {"name": "qty-cond", "ignore_null": True}),
        ("test.p.qty-mean", "qty-mean"): DeclaredRule(3, True, {"name": "qty-mean", "ignore_null": False}),
    }
    by_name = {o.rule_name: o for o in _one(rows(), declared).outcomes}
    assert {n: o.rule_index for n, o in by_name.items()} == {
        "qty-range": 4,
        "qty-set": 1,
        "qty-mean": 3,
        "qty-regex": 0,
        "qty-cond": 2,
        "anomaly-detection-items": 0,
    }
    # ignore_null is kept in the project only; the recorded threshold (90%) wins over the declaration's
    assert by_name["qty-range"].rule_spec["ignore_null"] is True
    assert by_name["qty-range"].rule_spec["threshold"] == 0.9
    assert by_name["qty-range"].metrics.rule_index == 4  # type: ignore[union-attr]
    # a threshold declared as 1.0 reads back as unset (100%): the declaration gives it back
    assert by_name["qty-set"].rule_spec["threshold"] == 1.0
    assert by_name["qty-cond"].rule_spec["ignore_null"] is True  # errored rules too
    assert "ignore_null" not in by_name["qty-mean"].rule_spec  # false is the default: not added
    # without the project: position 0, nothing added
    bare = {o.rule_name: o for o in _one(rows()).outcomes}
    assert bare["qty-range"].rule_index == 0 and "ignore_null" not in bare["qty-range"].rule_spec
    assert "threshold" not in bare["qty-set"].rule_spec


def test_the_notification_is_the_recorded_one():
    assert _one(rows()).notification == NOTIFIED
    none = [{**r, "job_notification_result": None} for r in rows()]
    assert _one(none).notification is None


def test_rows_group_into_jobs_with_their_own_columns_and_window():
    other = {
        **rule_row("id-unique", "Uniqueness Check", "FAILED", rule_column="id", rule_dimension="UNIQUENESS"),
        "data_quality_job_id": "job-other",
        "dbt_node_unique_id": "model.p.orders",
        "data_quality_scan": {"display_name": "model orders", "data_scan_id": "dbt-model-orders"},
        "data_source": {"table_project_id": "db", "dataset_id": "main", "table_id": "orders"},
        "data_quality_job_configuration": {"sampling_percent": 10.0, "incremental_column": "updated_at"},
        "job_quality_result": {
            "passed": False,
            "score": 0.0,
            "incremental_start": "2024-01-01T00:00:00",
            "incremental_end": "2024-01-02T00:00:00",
        },
        "job_dimension_result": {"UNIQUENESS": {"passed": False, "score": 0.0}},
        "rule_rows_evaluated": 4,
        "rule_rows_passed": 3,
        "job_rows_scanned": 4,
    }
    items, orders = recorded_jobs([*rows(), other], column_rows(), "postgres")
    assert (items.job.data_source_id, len(items.outcomes), [c.column for c in items.card.columns]) == (
        SOURCE,
        6,
        ["qty"],
    )
    assert (orders.job.data_source_name, orders.job.resource_type, orders.job.sampling_percent) == (
        "orders",
        "model",
        10.0,
    )
    assert orders.window == JobWindow("updated_at", "2024-01-01T00:00:00", "2024-01-02T00:00:00")
    assert (orders.job.incremental_field, orders.job.incremental_end) == ("updated_at", "2024-01-02T00:00:00")
    assert orders.outcomes[0].metrics.incremental_field == "updated_at"  # type: ignore[union-attr]
    assert items.window is None
    assert [(c.column, c.score, c.rule_count) for c in orders.card.columns] == [("id", 0.0, 1)]
    assert (orders.card.score, orders.card.evaluated_rules, orders.row_count) == (0.0, 1, 4)


def test_a_training_anomaly_check_is_reported_not_scored():
    """docs/SEMANTICS.md §13: a TRAINING check reads back with its status and statistic, out of the scores and of
    the proto's rules (the writer records it with rule_passed NULL: integration_tests/tests/test_anomaly.py)."""
    training = rule_row(
        "mean-amount-anomaly",
        "Statistic check",
        "TRAINING",
        rule_column="amount",
        rule_dimension="CONSISTENCY",
        rule_parameters=json.dumps({"statistic": "MEAN"}),
        rule_statistic_value=10.0,
        rule_attributes=json.dumps({"anomaly_check": "data", "anomaly_status": "training"}),
    )
    evaluated = [r for r in rows() if r["rule_status"] in ("PASSED", "FAILED")]
    recorded = _one([*evaluated, training])
    out = recorded.outcomes[-1]
    assert (out.status, out.passed, out.is_evaluated, out.metrics.statistic_value) == (  # type: ignore[union-attr]
        RuleStatus.TRAINING,
        None,
        False,
        10.0,
    )
    assert out.attributes["anomaly_status"] == "training"
    assert (recorded.card.total_rules, recorded.card.evaluated_rules, recorded.card.has_errors) == (4, 3, False)
    # CONSISTENCY counts the set rule only, not the training check
    assert recorded.card.dimension("CONSISTENCY") == DimensionScore("CONSISTENCY", 100.0, True, 1, 1)
    result = build_result(recorded.outcomes, recorded.card, row_count=None)
    assert "mean-amount-anomaly" not in [r.rule.name for r in result.rules]


@pytest.mark.parametrize("status", ["ERROR", "SKIPPED"])
def test_a_job_of_not_evaluated_rules_only_has_no_score(status: str):
    only = [
        {**r, "rule_status": status, "rule_passed": None, "job_quality_result": json.dumps({"passed": None})}
        for r in rows()
        if r["rule_name"] in ("qty-range", "qty-cond")
    ]
    (recorded,) = recorded_jobs(only, [], "duckdb")
    assert [o.status for o in recorded.outcomes] == [RuleStatus(status)] * 2
    assert recorded.debug_results == {}  # debug results are a failed rule's
    assert (recorded.card.score, recorded.card.passed, recorded.card.status) == (None, False, "NOT_EVALUATED")


# the job's own columns on one row only: the read query (results_of_invocation_sql) marks it dq_job_first and
# leaves them NULL on the job's other rows (issue 32 item 4: a 1,000-rule job no longer reads its 1,000 declared
# names 1,000 times)
ONCE = (
    "data_quality_scan",
    "data_source",
    "data_quality_job_configuration",
    "job_labels",
    "job_quality_result",
    "job_dimension_result",
    "job_notification_result",
    "job_declared_rules",
)


def _as_read(rows_: list[dict[str, Any]], first: int) -> list[dict[str, Any]]:
    """The rows as the read query returns them: the job's columns on row ``first`` only."""
    return [
        {**r, **({} if i == first else dict.fromkeys(ONCE)), "dq_job_first": i == first} for i, r in enumerate(rows_)
    ]


def test_the_job_columns_are_read_from_the_row_that_carries_them_wherever_it_is():
    full = _one(rows())
    for first in (0, len(rows()) - 1, 2):
        job = _one(_as_read(rows(), first))
        assert job.job == full.job, first
        assert job.job.declared_rules == full.job.declared_rules and len(job.job.declared_rules or ()) == 6
        assert (job.job.data_source_name, job.job.identifier, job.job.row_filter) == ("items", "items", "id <> 99")
        assert job.job.labels == {"dbt_project": "p", "dbt_target": "prod"}
        assert job.notification == NOTIFIED
        assert (job.card.score, job.card.passed) == (66.67, False)
        assert [d.name for d in job.card.dimensions] == ["CONSISTENCY", "VALIDITY"]
        assert job.outcomes == full.outcomes
        assert job.card == full.card


def test_every_rule_carries_its_jobs_incremental_window_from_the_marked_row():
    config = json.dumps({"sampling_percent": 100.0, "incremental_column": "ts"})
    quality = json.dumps(
        {"passed": True, "score": 100.0, "incremental_start": "2024-01-01", "incremental_end": "2024-01-09"}
    )
    rows_ = [{**r, "data_quality_job_configuration": config, "job_quality_result": quality} for r in rows()]
    job = _one(_as_read(rows_, 3))
    assert job.window == JobWindow("ts", "2024-01-01", "2024-01-09")
    evaluated = [o for o in job.outcomes if o.metrics is not None]
    assert evaluated and {(o.metrics.incremental_field, o.metrics.incremental_end) for o in evaluated} == {
        ("ts", "2024-01-09")
    }


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        # the hook's row of a test the package does not have: its recorded message stands
        ("ERROR", "dataplex_dq has no test 'row_count_expectation'", "dataplex_dq has no test 'row_count_expectation'"),
        # any other row without a rule type (an older package, a row written by hand): why it cannot be read
        ("SKIPPED", "skipped", "the results table's row of this rule cannot be read: rule rc: no rule type"),
        ("ERROR", None, "the results table's row of this rule cannot be read: rule rc: no rule type"),
    ],
)
def test_a_row_without_a_rule_type_is_an_error_with_the_recorded_or_the_readers_message(status, message, expected):
    row = rule_row(
        "rc",
        "",
        status,
        rule_column=None,
        rule_dimension=None,
        rule_threshold_percent=None,
        rule_message=message,
        rule_parameters=json.dumps({"min_value": 1}),
    )
    (outcome,) = _one([row]).outcomes
    assert (outcome.rule_name, outcome.status, outcome.message) == ("rc", RuleStatus.ERROR, expected)
