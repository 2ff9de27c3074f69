"""`OpenLineageEvents`: one OpenLineage RunEvent per job (data source) of the report, through the openlineage-python
client configured the standard way (``OPENLINEAGE_URL``, ``openlineage.yml``, ``OPENLINEAGE_CONFIG``,
``OPENLINEAGE__TRANSPORT__*``); nothing is emitted, and the package is not imported, when none of them is set
(docs/SEMANTICS.md §17). The event's input dataset is the data source, named as OpenLineage's naming spec and
``dbt-ol`` name it (``duckdb://<path>``, ``postgres://host:port``, ``bigquery``; ``database.schema.table``), and
carries ``dataQualityAssertions`` (one assertion per rule) and ``dataQualityMetrics`` (the numbers the rules
measured). The event is built from the report alone (:func:`run_event`); the warehouse is asked nothing."""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dataplex_dq import __version__
from dataplex_dq._compat import UTC
from dataplex_dq.errors import OutputError, first_line
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleOutcome

PRODUCER = f"https://pypi.org/project/dbt-dataplex-dq/{__version__}"
DEFAULT_JOB_NAMESPACE = "dataplex_dq"
JOB_SUFFIX = ".dataplex_dq"  # job name: the dataset's name plus this, stable per data source
INSTALL_HINT = "pip install 'dbt-dataplex-dq[openlineage]'"
MAX_FAILURES = 3  # failed events after which a report stops sending (each waits for the transport's retries)
CONSOLE_LOGGER = "openlineage.client.transport.console"  # where the console transport writes each event (INFO)


def lineage_configured(env: Mapping[str, str], cwd: Path, home: Path) -> str | None:
    """What configures OpenLineage, as the client looks for it (its order), or None: nothing is emitted then.
    ``OPENLINEAGE_DISABLED=true`` turns it off whatever else is set."""
    if env.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true":
        return None
    if env.get("OPENLINEAGE_CONFIG"):
        return f"OPENLINEAGE_CONFIG={env['OPENLINEAGE_CONFIG']}"
    for path in (cwd / "openlineage.yml", home / ".openlineage" / "openlineage.yml"):
        if path.is_file():
            return str(path)
    if any(k.startswith("OPENLINEAGE__TRANSPORT") for k in env):
        return "OPENLINEAGE__TRANSPORT__* variables"
    if env.get("OPENLINEAGE_URL"):
        return "OPENLINEAGE_URL"
    return None


def dataset_namespace(adapter_type: str, credentials: Any) -> str:
    """The dataset namespace of OpenLineage's naming spec, as dbt-ol derives it from the profile."""
    kind = adapter_type.lower()
    if kind == "bigquery":
        return "bigquery"
    if kind == "duckdb":
        return f"duckdb://{getattr(credentials, 'path', None) or ':memory:'}"
    host, port = getattr(credentials, "host", None), getattr(credentials, "port", None)
    if host:
        return f"{kind}://{host}:{port}" if port else f"{kind}://{host}"
    return kind


def dataset_name(source: SourceReport) -> str:
    """``database.schema.table`` (the parts that exist), the table as the warehouse names it."""
    ds = source.data_source
    job = source.job
    parts = (job.database, job.schema, job.identifier) if job is not None else (ds.database, ds.schema, ds.identifier)
    return ".".join(p for p in parts if p) or ds.name


def run_id(invocation_id: str, data_source_id: str) -> str:
    """The run's id: a UUID derived from the dbt invocation and the data source (the same on every report of the
    invocation, distinct per data source)."""
    try:
        base = uuid.UUID(invocation_id)
    except ValueError:
        base = uuid.uuid5(uuid.NAMESPACE_URL, f"dbt-invocation:{invocation_id}")
    return str(uuid.uuid5(base, data_source_id))


@dataclass
class _Column:
    null_count: int | None = None
    distinct_count: int | None = None
    count: int | None = None
    min: float | None = None
    max: float | None = None
    sources: list[str] = field(default_factory=list)


def _statistic(o: RuleOutcome) -> str | None:
    spec = o.rule_spec.get("statistic_range_expectation") or o.rule_spec.get("statisticRangeExpectation") or {}
    value = spec.get("statistic") if isinstance(spec, Mapping) else None
    return str(value).upper() if value else None


def column_metrics(outcomes: Sequence[RuleOutcome]) -> dict[str, _Column]:
    """Per column, what the evaluated rules measured: null count (any rule on the column), values and distinct
    count (a uniqueness rule that found every non-NULL value once: distinct = non-NULL rows), MIN / MAX (a
    statistic_range_expectation of that statistic with a numeric value)."""
    out: dict[str, _Column] = {}
    for o in outcomes:
        m = o.metrics
        if not o.column or m is None or o.status not in (RuleStatus.PASSED, RuleStatus.FAILED):
            continue
        col = out.setdefault(o.column, _Column())
        if m.null_count is not None and col.null_count is None:
            col.null_count = m.null_count
            if m.row_count is not None:
                col.count = m.row_count - m.null_count
        if o.rule_type == "uniqueness_expectation" and None not in (m.row_count, m.null_count, m.passed_count):
            assert m.row_count is not None and m.null_count is not None  # for mypy: checked just above
            if m.passed_count == m.row_count - m.null_count:
                col.distinct_count = m.passed_count
        statistic = _statistic(o)
        if o.rule_type == "statistic_range_expectation" and m.statistic_value is not None:
            if statistic == "MIN":
                col.min = m.statistic_value
            elif statistic == "MAX":
                col.max = m.statistic_value
    return out


def _row_count(source: SourceReport) -> int | None:
    if source.job is not None and source.job.rows_scanned is not None:
        return source.job.rows_scanned
    counts = [o.metrics.row_count for o in source.outcomes if o.metrics and o.metrics.row_count is not None]
    return max(counts) if counts else None


def _event_time(source: SourceReport) -> str:
    end = source.job.end_time if source.job is not None else None
    moment = end if end is not None else datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _assertion(o: RuleOutcome, severity: str | None) -> Any:
    from openlineage.client.generated.data_quality_assertions_dataset import Assertion

    params: dict[str, Any] = {"rule_type": o.rule_type, "status": str(o.status)}
    if o.dimension:
        params["dimension"] = o.dimension
    if o.metrics is not None and o.metrics.pass_ratio is not None and o.is_row_level:
        params["pass_ratio"] = o.metrics.pass_ratio
    return Assertion(
        assertion=o.rule_name,
        success=o.status in (RuleStatus.PASSED, RuleStatus.SUSPENDED, RuleStatus.TRAINING),
        column=o.column,
        severity=(severity or "ERROR").lower(),
        name=o.rule_name,
        params=params,
    )


def run_event(report: Report, source: SourceReport, *, namespace: str, job_namespace: str) -> Any:
    """The RunEvent of one job: COMPLETE when every rule that failed or errored is of a WARN test (as dbt-ol
    reports a test run), else FAIL."""
    from openlineage.client.event_v2 import InputDataset, Job, Run, RunEvent, RunState
    from openlineage.client.generated.data_quality_assertions_dataset import DataQualityAssertionsDatasetFacet
    from openlineage.client.generated.data_quality_metrics_dataset import (
        ColumnMetrics,
        DataQualityMetricsDatasetFacet,
    )

    severity = {o.rule_name: report.severity.get(o.test_unique_id or "") for o in source.outcomes}
    assertions = [_assertion(o, severity[o.rule_name]) for o in source.outcomes]
    blocking = any(not a.success and a.severity != "warn" for a in assertions)
    columns = {
        name: ColumnMetrics(
            nullCount=c.null_count,
            distinctCount=c.distinct_count,
            count=None if c.count is None else float(c.count),
            min=c.min,
            max=c.max,
            quantiles=None,
        )
        for name, c in column_metrics(source.outcomes).items()
    }
    quality = DataQualityAssertionsDatasetFacet(assertions=assertions, producer=PRODUCER)
    metrics = DataQualityMetricsDatasetFacet(columnMetrics=columns, rowCount=_row_count(source), producer=PRODUCER)
    name = dataset_name(source)
    # the assertions as a dataset facet too, as dbt-ol sends them (the schema's InputDatasetFacet is a BaseFacet)
    facets: dict[str, Any] = {"dataQualityAssertions": quality, "dataQualityMetrics": metrics}
    return RunEvent(
        eventType=RunState.FAIL if blocking else RunState.COMPLETE,
        eventTime=_event_time(source),
        run=Run(runId=run_id(report.invocation_id, source.data_source.unique_id)),
        job=Job(namespace=job_namespace, name=name + JOB_SUFFIX),
        producer=PRODUCER,
        inputs=[
            InputDataset(
                namespace=namespace,
                name=name,
                facets=facets,
                inputFacets={"dataQualityAssertions": quality},
            )
        ],
        outputs=[],
    )


def _console_shown() -> logging.Handler:
    """The console transport logs each event at INFO, which nothing shows unless logging is set up: a handler
    printing them on stderr, one JSON event per line, for the time of the report."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger(CONSOLE_LOGGER)
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    return handler


def _client(configured_by: str) -> Any:
    try:
        from openlineage.client import OpenLineageClient
    except ImportError as exc:
        raise OutputError(
            f"OpenLineage is configured ({configured_by}) but the openlineage-python package is missing: {INSTALL_HINT}"
        ) from exc
    try:
        return OpenLineageClient()
    except Exception as exc:  # the client's own configuration errors (a bad openlineage.yml, an unknown transport)
        raise OutputError(f"OpenLineage ({configured_by}): cannot configure the client: {first_line(exc)}") from exc


class OpenLineageEvents:
    """One RunEvent per job of the report, when OpenLineage is configured (docs/SEMANTICS.md §17)."""

    name = "OpenLineage"

    def write(self, ctx: OutputContext) -> None:
        configured_by = lineage_configured(ctx.env, Path.cwd(), Path.home())
        sources = [s for s in ctx.report.sources if s.outcomes]
        if configured_by is None or not sources:
            return
        client = _client(configured_by)
        credentials = ctx.wh.adapter.config.credentials
        namespace = dataset_namespace(str(ctx.wh.adapter_type), credentials)
        job_namespace = ctx.env.get("OPENLINEAGE_NAMESPACE") or DEFAULT_JOB_NAMESPACE
        failed: list[str] = []
        unsent = 0  # events not sent: failed, or left out after MAX_FAILURES failures
        shown = _console_shown() if client.transport.kind == "console" else None
        try:
            for source in sources:
                if len(failed) >= MAX_FAILURES:  # a transport that keeps failing (each try waits for its retries)
                    unsent += 1
                    continue
                try:
                    client.emit(run_event(ctx.report, source, namespace=namespace, job_namespace=job_namespace))
                except Exception as exc:  # noqa: BLE001 - any transport's failure: reported, the next job still sent
                    failed.append(f"{source.data_source.label}: {first_line(exc, 300)}")
                    unsent += 1
        finally:
            try:
                client.close(timeout=10.0)
            except Exception as exc:  # noqa: BLE001 - an asynchronous transport that could not flush
                failed.append(f"closing the {client.transport.kind} transport: {first_line(exc, 300)}")
            if shown is not None:
                logging.getLogger(CONSOLE_LOGGER).removeHandler(shown)
        if failed:
            left = len(failed) >= MAX_FAILURES and unsent > len(failed)
            raise OutputError(
                f"{unsent} of {len(sources)} OpenLineage events not sent through the {client.transport.kind} transport "
                f"({configured_by}){f', the rest not tried after {MAX_FAILURES} failures' if left else ''}: "
                + "; ".join(failed)
            )
