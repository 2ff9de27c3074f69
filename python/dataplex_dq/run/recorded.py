"""One dbt invocation as the results table records it: the one typed model every output reads.

The rows are written by the package's SQL only (macros/results/on_run_end.sql, record_invocation);
here they are read back (:func:`read_recorded_run`: the invocation's rows in one query, its column scores
in a second) and turned into jobs (:func:`recorded_jobs`, pure): per data source its context, its rules
as outcomes, its scores as the SQL computed them, its debug queries' results and its notification outcome.

What Dataplex's export schema does not keep is not in the outcomes: a rule's `ignore_null`, and a
threshold declared as 1.0 (the table holds the effective threshold; 1.0 reads back as unset)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dataplex_dq._compat import fromisoformat
from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.record.declared import DeclaredRule
from dataplex_dq.run.cost import QueryCost
from dataplex_dq.run.incremental import JobWindow
from dataplex_dq.run.jobs import RULE_TYPE_DISPLAY, JobContext
from dataplex_dq.run.metrics import MetricsRowError, RuleMetrics, RuleStatus, status_of
from dataplex_dq.run.outcomes import RuleIdentity, RuleOutcome
from dataplex_dq.run.scoring import ColumnScore, DimensionScore, ScoreCard
from dataplex_dq.warehouse.connection import Warehouse

TYPE_OF_DISPLAY = {display: rule_type for rule_type, display in RULE_TYPE_DISPLAY.items()}

DebugValue = tuple[str, str, Any]


class ResultsTableError(DataplexDqError):
    """The results table has no rows for the requested run, or a row cannot be read back."""


@dataclass(frozen=True)
class RecordedJob:
    """One data source's job of the invocation, as recorded."""

    job: JobContext
    outcomes: list[RuleOutcome]
    card: ScoreCard
    row_count: int | None
    window: JobWindow | None
    # per rule name, the result sets of its debug queries (one list of (name, type, value) per query)
    debug_results: dict[str, list[list[DebugValue]]] = field(default_factory=dict)
    # job_notification_result as recorded (None: no notification recorded for this job)
    notification: dict[str, Any] | None = None


@dataclass(frozen=True)
class RecordedRun:
    invocation_id: str
    relation: str
    jobs: list[RecordedJob]


def _json(value: Any) -> Any:
    """A JSON or STRUCT column as Python values, whatever the driver returned (text or decoded)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _ts(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return fromisoformat(str(value).replace(" UTC", "").replace("Z", ""))


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def rule_spec_of(row: Mapping[str, Any], rule_type: str) -> dict[str, Any]:
    """The DataQualityRule (snake_case proto JSON) a results row describes."""
    spec: dict[str, Any] = {"name": row["rule_name"]}
    for key, column in (
        ("description", "rule_description"),
        ("column", "rule_column"),
        ("dimension", "rule_dimension"),
    ):
        if row.get(column):
            spec[key] = row[column]
    threshold = row.get("rule_threshold_percent")
    if threshold is not None and float(threshold) != 100.0:
        spec["threshold"] = round(float(threshold) / 100, 12)
    if row.get("rule_suspended"):
        spec["suspended"] = True
    params = _json(row.get("rule_parameters"))
    spec[rule_type] = params if isinstance(params, dict) else {}
    queries = [
        {k: v for k, v in (("description", q.get("description")), ("sql_statement", q.get("sql_statement"))) if v}
        for q in _debug_queries(row)
        if q.get("sql_statement")
    ]
    if queries:
        spec["debug_queries"] = queries
    return spec


def _debug_queries(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    value = _json(row.get("debug_queries")) or []
    return [q for q in value if isinstance(q, dict)] if isinstance(value, list) else []


def debug_results_of(row: Mapping[str, Any]) -> list[list[DebugValue]]:
    """The recorded results of a rule's debug queries (the writer's last step), one list per query; empty
    when none was recorded."""
    out: list[list[DebugValue]] = []
    for q in _debug_queries(row):
        results = _json(q.get("debug_query_results")) or []
        out.append([(str(r.get("name")), str(r.get("type")), r.get("value")) for r in results if isinstance(r, dict)])
    return out if any(out) else []


# what the results table does not keep of a rule, taken from its declaration (the manifest's record) when at hand
KEPT_IN_THE_PROJECT_ONLY = ("ignore_null", "threshold")


def outcome_of(
    row: Mapping[str, Any], declared: DeclaredRule | None = None, job_row: Mapping[str, Any] | None = None
) -> RuleOutcome:
    """A results row as a RuleOutcome. ``job_row``: the row of its job that carries the job's own columns
    (:func:`job_first_row`; the read query leaves them NULL on a job's other rows), by default ``row``."""
    rule_type = TYPE_OF_DISPLAY.get(row.get("rule_type") or "", row.get("rule_type") or "")
    spec = rule_spec_of(row, rule_type)
    rule_index = 0
    if declared is not None:
        rule_index = declared.rule_index
        for key in KEPT_IN_THE_PROJECT_ONLY:
            if key not in spec and declared.rule.get(key) not in (None, False):
                spec[key] = declared.rule[key]
    attributes = _json(row.get("rule_attributes")) or {}
    status = status_of(
        str(
            row.get("rule_status")
            or ("SUSPENDED" if row.get("rule_suspended") else "PASSED" if row.get("rule_passed") else "FAILED")
        ).upper()
    )
    if status in (RuleStatus.ERROR, RuleStatus.SKIPPED):
        identity = RuleIdentity.from_rule_spec(
            {**spec, "attributes": attributes},
            data_source=row.get("dbt_node_unique_id"),
            test_unique_id=row.get("dbt_test_unique_id"),
            rule_index=rule_index,
        )
        return RuleOutcome.not_evaluated(identity, status, message=row.get("rule_message"))
    evaluated, passed = row.get("rule_rows_evaluated"), row.get("rule_rows_passed")
    ratio = None if evaluated is None or passed is None else (passed / evaluated if evaluated else 1.0)
    job = row if job_row is None else job_row
    config = _json(job.get("data_quality_job_configuration")) or {}
    quality = _json(job.get("job_quality_result")) or {}
    metrics = RuleMetrics.from_row(
        {
            "dq_invocation_id": row.get("dbt_invocation_id"),
            "dq_test_unique_id": row.get("dbt_test_unique_id"),
            "dq_data_source": row.get("dbt_node_unique_id"),
            "rule_index": rule_index,
            "rule_name": row["rule_name"],
            "rule_type": rule_type,
            "rule_column": row.get("rule_column"),
            "rule_dimension": row.get("rule_dimension"),
            "rule_threshold": None
            if row.get("rule_threshold_percent") is None
            else float(row["rule_threshold_percent"]) / 100,
            "rule_suspended": status is RuleStatus.SUSPENDED,
            "rule_status": str(status),
            "row_count": row.get("job_rows_scanned") if status is not RuleStatus.SUSPENDED else None,
            "evaluated_count": evaluated,
            "passed_count": passed,
            "null_count": row.get("rule_rows_null"),
            "pass_ratio": ratio,
            "passed": True if status is RuleStatus.SUSPENDED else status is RuleStatus.PASSED,
            "assertion_row_count": row.get("rule_assertion_row_count"),
            "statistic_value": row.get("rule_statistic_value"),
            "statistic_value_text": row.get("rule_statistic_value_text"),
            "failing_rows_query": row.get("rule_failed_records_query"),
            # rule_spec and rule_attributes: not printed back into text here, the outcome carries them parsed
            # (RuleOutcome.rule_spec, .attributes): 10,000 json.dumps were ~0.15 s of a 10,000-rule report
            "incremental_field": config.get("incremental_column") if isinstance(config, dict) else None,
            "incremental_start": quality.get("incremental_start") if isinstance(quality, dict) else None,
            "incremental_end": quality.get("incremental_end") if isinstance(quality, dict) else None,
        },
        lower_case=True,
    )
    if not isinstance(attributes, dict):  # a value that is no JSON object: refused as RuleMetrics.attributes does
        raise MetricsRowError(f"rule_attributes of rule {metrics.rule_name} is not a JSON object")
    return RuleOutcome.from_metrics(
        metrics, rule_spec=spec, attributes={str(k): "" if v is None else str(v) for k, v in attributes.items()}
    )


def _readable_outcome(
    row: Mapping[str, Any], declared: DeclaredRule | None, job_row: Mapping[str, Any] | None = None
) -> RuleOutcome:
    """:func:`outcome_of`, or, for a row this version cannot read (no or an unknown rule type: written by an older
    package or by hand), that rule as an ERROR saying why: one row never stops the report. A recorded ERROR keeps
    its own message (the hook records a test the package does not have, `dataplex_dq.row_count_expectation`, as
    an ERROR with no rule type that names the test)."""
    try:
        return outcome_of(row, declared, job_row)
    except DataplexDqError as exc:
        recorded = row.get("rule_message")
        if not (recorded and str(row.get("rule_status") or "").upper() == "ERROR"):
            recorded = f"the results table's row of this rule cannot be read: {exc}"
        identity = RuleIdentity.from_rule_spec(
            {"name": str(row.get("rule_name") or "unnamed"), "table_condition_expectation": {}},
            data_source=row.get("dbt_node_unique_id"),
            test_unique_id=row.get("dbt_test_unique_id"),
        )
        return RuleOutcome.not_evaluated(identity, RuleStatus.ERROR, message=str(recorded))


def _declared_rules(value: Any) -> tuple[str, ...] | None:
    """The stored job_declared_rules (a JSON array, as text where the warehouse has no JSON type)."""
    value = _json(value)
    return tuple(str(v) for v in value) if isinstance(value, list) else None


ColumnScoreRow = Mapping[str, Any]


def score_card(
    first: Mapping[str, Any], outcomes: Sequence[RuleOutcome], column_rows: Sequence[ColumnScoreRow]
) -> ScoreCard:
    """The job's ScoreCard from what the SQL computed: the job's score, passed and row-weighted score and its
    dimension results (recorded in every row of the job), its column and column-dimension scores
    (``column_rows``: macros/results/results_table.sql, column_scores_sql); counts of the rules by status."""
    counts = {status: sum(1 for o in outcomes if o.status is status) for status in RuleStatus}
    evaluated = counts[RuleStatus.PASSED] + counts[RuleStatus.FAILED]
    quality = _json(first.get("job_quality_result")) or {}
    dims = _json(first.get("job_dimension_result")) or {}
    by_dimension: dict[str, list[RuleOutcome]] = defaultdict(list)
    for o in outcomes:
        if o.is_evaluated and o.dimension:
            by_dimension[o.dimension].append(o)
    dimensions = tuple(
        DimensionScore(
            name=name,
            score=float(dims[name]["score"]),
            passed=bool(dims[name]["passed"]),
            rule_count=len(by_dimension[name]),
            passed_count=sum(1 for o in by_dimension[name] if o.status is RuleStatus.PASSED),
        )
        for name in sorted(dims)
        if isinstance(dims.get(name), dict)
    )
    column_dims: dict[str, list[DimensionScore]] = defaultdict(list)
    columns: list[tuple[str, Mapping[str, Any]]] = []
    for r in column_rows:
        if r.get("rule_dimension") is None:
            columns.append((str(r["column_name"]), r))
        else:
            column_dims[str(r["column_name"])].append(
                DimensionScore(
                    name=str(r["rule_dimension"]),
                    score=float(r["score"]),
                    passed=bool(r["passed"]),
                    rule_count=int(r["rules_evaluated"]),
                    passed_count=int(r["rules_passed"]),
                )
            )
    rows_evaluated = rows_passed = 0
    for o in outcomes:
        if o.is_evaluated and o.is_row_level and o.metrics is not None:
            rows_evaluated += o.metrics.evaluated_count or 0
            rows_passed += o.metrics.passed_count or 0
    return ScoreCard(
        score=_float(quality.get("score")) if isinstance(quality, dict) else None,
        passed=bool(isinstance(quality, dict) and quality.get("passed")),
        dimensions=dimensions,
        columns=tuple(
            ColumnScore(
                column=name,
                score=float(r["score"]),
                passed=bool(r["passed"]),
                rule_count=int(r["rules_evaluated"]),
                passed_count=int(r["rules_passed"]),
                dimensions=tuple(sorted(column_dims.get(name, []), key=lambda d: d.name)),
            )
            for name, r in sorted(columns, key=lambda c: c[0])
        ),
        row_weighted_score=_float(first.get("job_row_weighted_score")),
        rows_evaluated=rows_evaluated,
        rows_passed=rows_passed,
        total_rules=len(outcomes),
        evaluated_rules=evaluated,
        passed_rules=counts[RuleStatus.PASSED],
        failed_rules=counts[RuleStatus.FAILED],
        suspended_rules=counts[RuleStatus.SUSPENDED],
        errored_rules=counts[RuleStatus.ERROR],
        skipped_rules=counts[RuleStatus.SKIPPED],
        has_errors=counts[RuleStatus.ERROR] + counts[RuleStatus.SKIPPED] > 0,
    )


def _test_costs(job_rows: Sequence[Mapping[str, Any]]) -> dict[str, QueryCost]:
    """Per test, the cost dbt recorded (dbt_test_cost: the same in every row of the test, read once per test)."""
    costs: dict[str, QueryCost | None] = {}
    for r in job_rows:
        test = str(r["dbt_test_unique_id"])
        if test not in costs:
            costs[test] = QueryCost.from_json(r.get("dbt_test_cost"))
    return {test: cost for test, cost in costs.items() if cost is not None}


def job_first_row(job_rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The row of a job that carries the job's own columns: the one the read query marked ``dq_job_first``
    (macros/results/results_table.sql, results_of_invocation_sql), else (rows read another way) the first."""
    return next((r for r in job_rows if r.get("dq_job_first")), job_rows[0])


def recorded_jobs(
    rows: Sequence[Mapping[str, Any]],
    column_rows: Sequence[ColumnScoreRow],
    adapter_type: str,
    declared: Mapping[tuple[str, str], DeclaredRule] | None = None,
) -> list[RecordedJob]:
    """Group one invocation's rows into jobs (pure). ``declared``: (test unique_id, rule name) -> the rule as
    the project declares it (the manifest's record), when the project is at hand."""
    by_job: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_job[str(row["data_quality_job_id"])].append(row)
    columns_of: dict[str, list[ColumnScoreRow]] = defaultdict(list)
    for r in column_rows:
        columns_of[str(r["data_quality_job_id"])].append(r)
    known: Mapping[tuple[str, str], DeclaredRule] = {} if declared is None else declared  # (not `or`: no len())
    jobs = []
    for job_id, job_rows in by_job.items():
        first = job_first_row(job_rows)
        scan = _json(first.get("data_quality_scan")) or {}
        source = _json(first.get("data_source")) or {}
        config = _json(first.get("data_quality_job_configuration")) or {}
        quality = _json(first.get("job_quality_result")) or {}
        labels = _json(first.get("job_labels")) or {}
        resource_type, _, name = str(scan.get("display_name") or " ").partition(" ")
        sampling = config.get("sampling_percent")
        incremental_field = config.get("incremental_column")
        job = JobContext(
            invocation_id=str(first["dbt_invocation_id"]),
            data_source_id=str(first["dbt_node_unique_id"]),
            data_source_name=name,
            resource_type=resource_type,
            database=source.get("table_project_id"),
            schema=source.get("dataset_id"),
            identifier=source.get("table_id"),
            adapter_type=adapter_type,
            start_time=_ts(first.get("job_start_time")),
            end_time=_ts(first.get("job_end_time")),
            rows_scanned=first.get("job_rows_scanned"),
            row_filter=config.get("row_filter"),
            sampling_percent=None if sampling in (None, 100, 100.0) else sampling,
            labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
            incremental_field=incremental_field,
            incremental_start=quality.get("incremental_start") if incremental_field else None,
            incremental_end=quality.get("incremental_end") if incremental_field else None,
            notification_result=_json(first.get("job_notification_result")) or None,
            target=first.get("dbt_target"),
            declared_rules=_declared_rules(first.get("job_declared_rules")),
            test_costs=_test_costs(job_rows),
        )
        parsed = {"data_quality_job_configuration": config, "job_quality_result": quality}  # read once per job
        # read test by test, kept in the rows' order: a `declared` read lazily (run/report.py) reads each test's
        # record once, however the warehouse ordered the rows
        tests = [str(r.get("dbt_test_unique_id")) for r in job_rows]
        read = {
            i: _readable_outcome(job_rows[i], known.get((tests[i], str(job_rows[i].get("rule_name")))), parsed)
            for i in sorted(range(len(job_rows)), key=tests.__getitem__)
        }
        outcomes = [read[i] for i in range(len(job_rows))]
        debug = {
            str(r["rule_name"]): found
            for r in job_rows
            if str(r.get("rule_status") or "").upper() == "FAILED" and (found := debug_results_of(r))
        }
        window = JobWindow(incremental_field, job.incremental_start, job.incremental_end) if incremental_field else None
        notification = job.notification_result if isinstance(job.notification_result, dict) else None
        jobs.append(
            RecordedJob(
                job,
                outcomes,
                score_card(first, outcomes, columns_of.get(job_id, [])),
                first.get("job_rows_scanned"),
                window,
                debug,
                notification,
            )
        )
    return jobs


def latest_invocation(wh: Warehouse, relation: Any) -> str | None:
    """The invocation of the most recent job in the results table, or None when it has none."""
    latest = wh.query(wh.macro("latest_invocation_sql", relation=relation))
    return str(latest[0]["dbt_invocation_id"]) if latest else None


def read_rows(wh: Warehouse, relation: Any, invocation: str) -> list[dict[str, Any]]:
    """The invocation's rows, in one query; none when the table has none (or does not exist yet). Whether it exists
    is looked up only when the query fails: dbt's lookup lists every relation of the schema (~0.1 s on DuckDB)."""
    try:
        return wh.query(wh.macro("results_of_invocation_sql", relation=relation, invocation_id=invocation))
    except DataplexDqError as exc:
        if not wh.relation_exists(relation):
            return []
        raise ResultsTableError(f"cannot read the results table {relation}: {first_line(exc)}") from exc


def read_recorded_run(
    wh: Warehouse,
    relation: Any,
    invocation: str,
    rows: Sequence[Mapping[str, Any]],
    declared: Mapping[tuple[str, str], DeclaredRule] | None = None,
) -> RecordedRun:
    """The invocation's jobs from its ``rows`` (:func:`read_rows`) and its column scores (one query)."""
    column_rows = wh.query(wh.macro("column_scores_sql", relation=relation, invocation_id=invocation))
    return RecordedRun(invocation, str(relation), recorded_jobs(rows, column_rows, wh.adapter_type, declared))
