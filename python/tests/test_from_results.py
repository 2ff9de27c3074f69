"""`report --from-results-table`: results rows read back give the same outcomes, scores and rows."""

from __future__ import annotations

import json
from datetime import datetime

from dataplex_dq.export import JobContext, result_rows
from dataplex_dq.from_results import stored_jobs
from dataplex_dq.metrics import RuleMetrics, RuleStatus
from dataplex_dq.outcomes import RuleIdentity, RuleOutcome
from dataplex_dq.scoring import score_rules

SOURCE = "seed.p.items"


def _metrics(name: str, rule_type: str, status: str, **extra) -> RuleOutcome:
    spec = {
        "name": name,
        "column": "qty",
        "dimension": extra.pop("dimension", "VALIDITY"),
        rule_type: extra.pop("params", {}),
    }
    if extra.get("debug"):
        spec["debug_queries"] = [{"description": "d", "sql_statement": "select 1 from ${data()}"}]
    row = {
        "dq_invocation_id": "inv",
        "dq_test_unique_id": f"test.p.{name}",
        "dq_data_source": SOURCE,
        "rule_index": 0,
        "rule_name": name,
        "rule_type": rule_type,
        "rule_column": "qty",
        "rule_dimension": spec["dimension"],
        "rule_threshold": extra.get("threshold"),
        "rule_suspended": status == "SUSPENDED",
        "rule_status": status,
        "row_count": None if status == "SUSPENDED" else 10,
        "evaluated_count": extra.get("evaluated"),
        "passed_count": extra.get("passed"),
        "null_count": 2,
        "pass_ratio": (extra["passed"] / extra["evaluated"]) if extra.get("evaluated") else None,
        "passed": status != "FAILED",
        "assertion_row_count": extra.get("assertions"),
        "statistic_value": extra.get("statistic"),
        "failing_rows_query": "select * from t" if extra.get("evaluated") is not None else None,
        "rule_spec": json.dumps(spec),
        "rule_attributes": json.dumps({"owner": "shop"}),
        "debug_queries_sql": json.dumps([{"description": "d", "sql_statement": "select 1 from (x)"}])
        if extra.get("debug")
        else None,
    }
    return RuleOutcome.from_metrics(RuleMetrics.from_row(row))


def test_rows_read_back_give_the_same_scores_and_rows():
    outcomes = [
        _metrics(
            "qty-range",
            "range_expectation",
            "FAILED",
            params={"max_value": "5"},
            threshold=0.9,
            evaluated=8,
            passed=7,
            debug=True,
        ),
        _metrics(
            "qty-set",
            "set_expectation",
            "PASSED",
            params={"values": ["1", "2"]},
            threshold=1.0,
            evaluated=8,
            passed=8,
            dimension="CONSISTENCY",
        ),
        _metrics(
            "qty-mean",
            "statistic_range_expectation",
            "PASSED",
            params={"statistic": "MEAN", "min_value": "0"},
            statistic=3.5,
        ),
        _metrics("qty-regex", "regex_expectation", "SUSPENDED", params={"regex": "^1"}, threshold=1.0),
        RuleOutcome.not_evaluated(
            RuleIdentity.from_rule_spec(
                {"name": "qty-cond", "column": "qty", "row_condition_expectation": {"sql_expression": "x > 0"}},
                data_source=SOURCE,
                test_unique_id="test.p.qty-cond",
            ),
            RuleStatus.ERROR,
            message="no such column x",
        ),
    ]
    card = score_rules(outcomes)
    job = JobContext(
        "inv",
        SOURCE,
        "items",
        "seed",
        "db",
        "main",
        "items",
        "duckdb",
        datetime(2024, 1, 1),
        datetime(2024, 1, 1, 0, 1),
        10,
        row_filter="id <> 99",
        labels={"dbt_project": "p", "dbt_target": "dev"},
    )
    rows = json.loads(json.dumps(result_rows(job, outcomes, card)))  # as a warehouse gives them back: JSON values
    for row in rows:  # timestamps come back as datetimes
        row["job_start_time"], row["job_end_time"] = job.start_time, job.end_time
    expanded = []
    [stored] = stored_jobs(
        rows, "duckdb", lambda j: lambda sql: expanded.append(sql) or sql.replace("${data()}", "(scope)")
    )
    assert stored.job == job
    again = score_rules(stored.outcomes)
    assert again == card
    assert [o.status for o in stored.outcomes] == [o.status for o in outcomes]
    assert stored.outcomes[0].metrics.debug_queries()[0].sql_statement == "select 1 from (scope)"
    back = result_rows(stored.job, stored.outcomes, again)
    assert json.loads(json.dumps(back, default=str)) == json.loads(
        json.dumps(result_rows(job, outcomes, card), default=str)
    )
