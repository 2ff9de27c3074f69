"""`dataplex-dq report`, a pipeline of named steps (:func:`run_report`):

artifacts   artifacts.load_artifacts: manifest.json + run_results.json
metrics     fetch_metrics: the metrics rows, in bounded UNION ALL queries (metrics.RuleMetrics)
outcomes    outcomes.combine: one RuleOutcome per rule (rules without a row from declared.py)
scores      assemble_sources, the pure core (benchmarks call it): per data source a ScoreCard,
protos      a DataQualityResult and the export rows
export      export_results: the rows into the results table
actions     actions.run_post_scan_actions, whose outcomes go into the protos
files       write_result_files: target/dataplex_dq/<data source>.json and .pb (also when the above fail)
"""

from __future__ import annotations

import gc
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dataplex_dq.actions import run_post_scan_actions
from dataplex_dq.anomaly import fill_generated_assets
from dataplex_dq.artifacts import Artifacts, DataSource, RuleTest, load_artifacts, no_tests_message
from dataplex_dq.assemble import (
    DebugValue,
    build_result,
    result_to_bytes,
    result_to_json,
    row_count_of,
)
from dataplex_dq.declared import declared_rule_names
from dataplex_dq.errors import ArtifactsError, DataplexDqError, ExportError, OutputError, first_line
from dataplex_dq.export import (
    DEFAULT_RESULTS_TABLE,
    MAX_STATEMENT_CHARS,
    JobContext,
    batches,
    result_rows,
    write_results,
)
from dataplex_dq.incremental import job_window
from dataplex_dq.metrics import MetricsRowError, RuleMetrics, RuleStatus
from dataplex_dq.outcomes import RuleOutcome, combine, rule_status_from_dbt
from dataplex_dq.scoring import ScoreCard, score_rules
from dataplex_dq.table_name import parse_table_name
from dataplex_dq.warehouse import Warehouse

MAX_RELATIONS_PER_QUERY = 500
DUCKDB_RELATIONS_PER_QUERY = 100
"""DuckDB binds a UNION ALL of n relations in more than n times the work of one: 10,000 one-row relations read
in batches of 100 take ~15-20% less CPU than in batches of 500 (bare DuckDB, alternated). Elsewhere each query
has its own latency (BigQuery: a job per query), so fewer, larger batches stay."""
READ_MANY_DUCKDB_SETTINGS = {"threads": "1", "memory_limit": "256MB"}
"""DuckDB's settings while the report reads thousands of one-row metrics relations (restored after): one
thread (a second one only adds scheduling to these tiny UNION ALLs) and a small buffer pool, so the block
DuckDB loads per relation is evicted instead of kept (10,000 relations: peak memory 3.8 GB -> ~1.2 GB, and
faster, fewer pages to fault in)."""
AGATE_TO_BIGQUERY_TYPE = {
    "Number": "NUMERIC",
    "Text": "STRING",
    "Boolean": "BOOL",
    "Date": "DATE",
    "DateTime": "TIMESTAMP",
    "TimeDelta": "INTERVAL",
}


# ---------------------------------------------------------------- fetching


PACKED_ROW_COLUMN = "dq_row"
"""On DuckDB a metrics relation also holds each row as one JSON text in this column (macros/metrics.sql,
metrics_packed): reading it alone binds one column per relation instead of the contract's 31."""


def packs_metrics_rows(adapter_type: str) -> bool:
    """Whether the metrics relations of this warehouse carry :data:`PACKED_ROW_COLUMN`
    (macros/metrics.sql: duckdb__metrics_packed)."""
    return adapter_type == "duckdb"


def metrics_queries(relations: Sequence[str], columns: Sequence[str]) -> list[str]:
    """UNION ALL queries over the metrics relations, bounded by statement size and relation count."""
    return [sql for sql, _ in metrics_batches(relations, columns)]


def metrics_batches(
    relations: Sequence[str], columns: Sequence[str], max_relations: int = MAX_RELATIONS_PER_QUERY
) -> list[tuple[str, list[str]]]:
    """:func:`metrics_queries` with the relations each query reads (``columns``: what to select), at most
    ``max_relations`` relations per query."""
    select_list = ", ".join(columns)
    sep = "\nunion all\n"
    parts = [f"select {select_list} from {rel}" for rel in relations]
    out: list[tuple[str, list[str]]] = []
    start = 0
    for batch in batches(parts, MAX_STATEMENT_CHARS, len(sep), max_relations):
        out.append((sep.join(batch), list(relations[start : start + len(batch)])))
        start += len(batch)
    return out


def fetch_metrics(
    wh: Warehouse, tests: Sequence[RuleTest], errors: dict[str, str] | None = None
) -> tuple[list[RuleMetrics], int]:
    """The metrics rows of ``tests``, in bounded UNION ALL queries. When one of them fails (a dropped
    metrics table, a row that breaks the contract), the tests of that query are read one by one: each
    one that still fails is recorded in ``errors`` (test unique_id -> the warehouse's message) and
    becomes an ERROR rule, while the other tests are still scored."""
    columns = RuleMetrics.columns()
    packed = packs_metrics_rows(wh.adapter_type)
    with_relation = [(t, t.relation_name) for t in tests if t.relation_name]
    test_of = {relation: t for t, relation in with_relation}
    rows: list[RuleMetrics] = []
    count = 0
    with _reading_many_relations(wh):
        read = [PACKED_ROW_COLUMN] if packed else columns
        per_query = DUCKDB_RELATIONS_PER_QUERY if wh.adapter_type == "duckdb" else MAX_RELATIONS_PER_QUERY
        for sql, relations in metrics_batches([r for _, r in with_relation], read, per_query):
            count += 1
            try:
                rows.extend([RuleMetrics.from_row(r) for r in _unpacked(wh.query(sql), packed)])
                continue
            except DataplexDqError:
                if errors is None and not packed:
                    raise
            # one by one, reading the contract's columns (a relation left by an older package has no packed row)
            for relation in relations:
                count += 1
                try:
                    rows.extend([RuleMetrics.from_row(r) for r in wh.query(metrics_queries([relation], columns)[0])])
                except DataplexDqError as exc:
                    if errors is None:
                        raise
                    errors[test_of[relation].unique_id] = first_line(exc)
    return rows, count


def _unpacked(rows: list[dict[str, Any]], packed: bool) -> list[dict[str, Any]]:
    """The metrics rows as column -> value: as read, or decoded from the packed JSON text (RuleMetrics.from_row
    converts its texts, numbers and booleans as it does a driver's values)."""
    if not packed:
        return rows
    try:
        return [json.loads(r[PACKED_ROW_COLUMN]) for r in rows]
    except (TypeError, ValueError) as exc:
        raise MetricsRowError(f"a packed metrics row ({PACKED_ROW_COLUMN}) is not a JSON object: {exc}") from exc


@contextmanager
def _reading_many_relations(wh: Warehouse) -> Iterator[None]:
    """Around the queries that read hundreds of metrics relations each: the warehouse's session settings
    for such a UNION ALL (DuckDB: its optimizer passes, half of the time and no gain here, are switched
    off; macros/results/on_run_end.sql, hook_read_many_begin; and :data:`READ_MANY_DUCKDB_SETTINGS`).
    A package without the macro reads as before."""
    with wh.duckdb_settings(READ_MANY_DUCKDB_SETTINGS):
        try:
            state = wh.macro("hook_read_many_begin")
        except DataplexDqError:
            yield
            return
        try:
            yield
        finally:
            # what begin changed (DuckDB: the thread count it found), set back exactly; a package whose begin
            # keeps no state (an older one, or a manifest.json parsed with it) has an end that takes none
            wh.macro("hook_read_many_end", **({"state": state} if state else {}))


# ---------------------------------------------------------------- debug queries


DebugResults = dict[str, Sequence[Sequence[DebugValue]]]
"""Per rule name, the result sets of its debug queries (assemble.build_result, export.result_rows)."""


def run_debug_queries(wh: Warehouse, outcomes: Sequence[RuleOutcome]) -> DebugResults:
    """For each failed rule with debug queries: up to 10 scalar values of each query's first row."""
    out: DebugResults = {}
    for o in outcomes:
        if o.status != RuleStatus.FAILED or o.metrics is None:
            continue
        sets: list[list[DebugValue]] = []
        for q in o.metrics.debug_queries():
            try:
                cols, rows = wh.query_with_types(q.sql_statement)
            except DataplexDqError as exc:
                sets.append([("error", "STRING", first_line(exc))])
                continue
            first = rows[0] if rows else tuple(None for _ in cols)
            sets.append(
                [
                    (name, AGATE_TO_BIGQUERY_TYPE.get(t, t.upper()), v)
                    for (name, t), v in list(zip(cols, first, strict=False))[:10]
                ]
            )
        if sets:
            out[o.rule_name] = sets
    return out


# ---------------------------------------------------------------- the report


@dataclass
class SourceReport:
    data_source: DataSource
    outcomes: list[RuleOutcome]
    card: ScoreCard
    json_path: Path
    pb_path: Path
    # the job's export rows and proto, and the outcomes of its post-scan actions (actions.py)
    job: JobContext | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    result: Any = None
    export_result: Any = None
    notification: Any = None
    catalog: Any = None


@dataclass
class Report:
    invocation_id: str
    sources: list[SourceReport] = field(default_factory=list)
    fetch_queries: int = 0
    export_rows: int = 0
    export_relation: str | None = None
    export_error: str | None = None
    warnings: list[str] = field(default_factory=list)
    html_path: Path | None = None
    default_relation: Any = None
    tables_written: list[tuple[str, int]] = field(default_factory=list)  # extra exports: (relation, rows)
    action_errors: list[str] = field(default_factory=list)  # failed post-scan actions (exit 2)
    severity: dict[str, str] = field(default_factory=dict)  # test unique_id -> dbt severity (ERROR / WARN)

    def failed_rules(self, severity: str) -> list[tuple[SourceReport, RuleOutcome]]:
        """Failed rules of tests of this dbt severity (a WARN test's failure is a warning, as in dbt)."""
        return [
            (s, o)
            for s in self.sources
            for o in s.outcomes
            if o.status == RuleStatus.FAILED and self.severity.get(o.test_unique_id or "", "ERROR") == severity
        ]

    @property
    def any_rule_failed(self) -> bool:
        return any(s.card.failed_rules for s in self.sources)

    @property
    def has_errors(self) -> bool:
        return any(s.card.has_errors for s in self.sources) or self.export_error is not None or bool(self.action_errors)


def remove_previous_results(out_dir: Path) -> None:
    """Remove the result files (`<data source>.json` + `.pb` pairs) an earlier report left, so that
    what is in ``out_dir`` is this run's."""
    if not out_dir.is_dir():
        return
    for pb in out_dir.glob("*.pb"):
        pb.with_suffix(".json").unlink(missing_ok=True)
        pb.unlink(missing_ok=True)


def _safe_file_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def results_table_of(actions: Any) -> Any:
    """`post_scan_actions.bigquery_export.results_table`, each level in snake_case or camelCase."""
    if not isinstance(actions, dict):
        return None
    export = actions.get("bigquery_export") or actions.get("bigqueryExport")
    if not isinstance(export, dict):
        return None
    return export.get("results_table") or export.get("resultsTable")


def _results_relation(wh: Warehouse, manifest_relation: dict[str, str | None], override: str | None) -> Any:
    creds = wh.credentials
    database = getattr(creds, "database", None)
    schema = getattr(creds, "schema", None)
    if override:
        # parsed and validated part by part (never pasted into SQL); the adapter quotes each part
        name = parse_table_name(override)
        return wh.relation(name.database or database, name.schema or schema, name.identifier)
    if manifest_relation.get("schema"):
        return wh.relation(
            manifest_relation.get("database"),
            manifest_relation["schema"],
            manifest_relation.get("identifier") or DEFAULT_RESULTS_TABLE,
        )
    return wh.relation(database, schema, DEFAULT_RESULTS_TABLE)


def run_report(
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path | None,
    *,
    export: bool = True,
    html: Any = None,
    profile: str | None = None,
) -> Report:
    """The report pipeline: artifacts -> metrics -> outcomes -> scores and protos -> export -> actions ->
    files (-> HTML). ``html``: an html_data.HtmlOptions to also write the HTML report (docs/SEMANTICS.md §15)."""
    with _collector_paused():
        return _run_report(project_dir, profiles_dir, target, target_path, export=export, html=html, profile=profile)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the report (on again after, when it was on). The report
    allocates millions of objects that live until it ends (55 MB of manifest.json for 10,000 rules, rows,
    protos) and drops almost no cycles: each collection would walk all of them again (loading such a
    manifest.json: 1.3 s with the collector, 0.5 s without). Reference counting still frees everything."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _run_report(
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path | None,
    *,
    export: bool,
    html: Any,
    profile: str | None,
) -> Report:
    target_path = Path(target_path) if target_path else Path(project_dir) / "target"
    artifacts = load_artifacts(target_path)
    out_dir = clean_output_dir(target_path / "dataplex_dq")
    tests = artifacts.ran_tests()
    if not tests:
        raise ArtifactsError(
            no_tests_message(target_path / "run_results.json", artifacts.command, artifacts.result_count)
        )
    report = Report(artifacts.invocation_id, severity={t.unique_id: t.severity for t in tests})
    # the target dbt ran with when none is given here, so the report reads (and labels) that target
    target = target or artifacts.dbt_target
    manifest = target_path / "manifest.json"
    with Warehouse(Path(project_dir), profiles_dir, target, manifest, profile, macros=artifacts.macros or None) as wh:
        evaluated_tests = [t for t in tests if rule_status_from_dbt(artifacts.runs[t.unique_id].status) is None]
        fetch_errors: dict[str, str] = {}
        metrics, report.fetch_queries = fetch_metrics(wh, evaluated_tests, fetch_errors)
        outcomes = combine(artifacts, metrics, fetch_errors)
        report.sources = assemble_sources(
            artifacts,
            outcomes,
            out_dir=out_dir,
            adapter_type=wh.adapter_type,
            target_name=wh.target_name,
            declared_by_source=declared_rule_names(artifacts),
            debug=lambda source_outcomes: run_debug_queries(wh, source_outcomes),
        )
        try:
            if export:
                export_results(wh, report, artifacts)
            # post-scan actions after the export (actions.py); their outcomes go into the protos
            run_post_scan_actions(
                wh,
                report,
                export=export,
                relation_of=lambda table: _results_relation(wh, {}, table),
                project=artifacts.project_name,
                target=target,
            )
        finally:
            # written once, with the actions' outcomes, whatever the export did (proto JSON of 10,000 rules
            # takes seconds: it was written twice)
            for s in report.sources:
                with_action_results(s)
            write_result_files(report.sources)
        if html is not None:
            from dataplex_dq.html_data import write_html_report

            results = _results_relation(wh, artifacts.results_model, None)
            report.html_path = write_html_report(
                wh, report, results, html, target_path=target_path, project=artifacts.project_name, target=target
            )
    return report


def clean_output_dir(out_dir: Path) -> Path:
    """``out_dir``, created, without the result files of an earlier report."""
    try:
        remove_previous_results(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write the result files to {out_dir}: {exc.strerror or exc}") from exc
    return out_dir


def assemble_sources(
    artifacts: Artifacts,
    outcomes: Sequence[RuleOutcome],
    *,
    out_dir: Path,
    adapter_type: str,
    target_name: str,
    declared_by_source: Mapping[str, tuple[str, ...]] | None = None,
    debug: Callable[[list[RuleOutcome]], DebugResults] | None = None,
) -> list[SourceReport]:
    """The pure core of the report: per data source, its scores, its DataQualityResult and its export
    rows (``debug`` runs a source's debug queries; the only call that may reach a warehouse)."""
    test_order = [t.unique_id for t in artifacts.ran_tests()]
    by_source: dict[str, list[RuleOutcome]] = defaultdict(list)
    for o in outcomes:
        by_source[o.data_source or "unknown"].append(o)
    sources = []
    for source_id, source_outcomes in by_source.items():
        source = artifacts.data_sources.get(source_id) or DataSource(
            source_id, source_id, "unknown", None, None, None, None
        )
        card = score_rules(source_outcomes)
        row_count = row_count_of(source_outcomes)
        # per data source: rule names are unique within one data source only
        debug_results = debug(source_outcomes) if debug is not None else {}
        window = job_window(source_outcomes)
        result = build_result(
            source_outcomes,
            card,
            row_count=row_count,
            test_order=test_order,
            debug_results=debug_results,
            incremental=window,
        )
        fill_generated_assets(result, source_outcomes)
        job = job_context(
            artifacts,
            source=source,
            outcomes=source_outcomes,
            adapter_type=adapter_type,
            target_name=target_name,
            row_count=row_count,
        )
        if declared_by_source is not None:
            job = replace(job, declared_rules=declared_by_source.get(source_id))
        rows = result_rows(job, source_outcomes, card, debug_results)
        base = _safe_file_name(source_id)
        sources.append(
            SourceReport(
                source,
                source_outcomes,
                card,
                out_dir / f"{base}.json",
                out_dir / f"{base}.pb",
                job=job,
                rows=rows,
                result=result,
            )
        )
    return sources


def job_context(
    artifacts: Artifacts,
    *,
    source: DataSource,
    outcomes: Sequence[RuleOutcome],
    adapter_type: str,
    target_name: str,
    row_count: int | None,
) -> JobContext:
    """What the export rows of one data source's job share: its times from run_results.json, its
    scope from the data source's settings, its incremental window from the metrics rows."""
    times = [artifacts.runs[o.test_unique_id] for o in outcomes if o.test_unique_id in artifacts.runs]
    starts = [r.started_at for r in times if r.started_at]
    ends = [r.completed_at for r in times if r.completed_at]
    settings = source.settings or {}
    window = job_window(outcomes)
    return JobContext(
        invocation_id=artifacts.invocation_id,
        data_source_id=source.unique_id,
        data_source_name=source.name,
        resource_type=source.resource_type,
        database=source.database,
        schema=source.schema,
        identifier=source.identifier,
        adapter_type=adapter_type,
        start_time=min(starts) if starts else artifacts.invocation_started_at,
        end_time=max(ends) if ends else artifacts.generated_at,
        rows_scanned=row_count,
        row_filter=settings.get("row_filter"),
        sampling_percent=settings.get("sampling_percent"),
        labels={"dbt_project": artifacts.project_name or "", "dbt_target": target_name},
        incremental_field=window.field if window else None,
        incremental_start=window.start if window else None,
        incremental_end=window.end if window else None,
        target=target_name or None,
        test_costs=artifacts.query_costs(),
    )


def write_result_files(sources: Iterable[SourceReport]) -> None:
    """Each source's DataQualityResult as proto JSON and binary (its ``json_path`` and ``pb_path``)."""
    for s in sources:
        try:
            s.json_path.write_text(result_to_json(s.result) + "\n")
            s.pb_path.write_bytes(result_to_bytes(s.result))
        except OSError as exc:
            raise OutputError(f"cannot write the result file {s.json_path}: {exc.strerror or exc}") from exc


def export_results(wh: Warehouse, report: Report, artifacts: Artifacts) -> None:
    """The rows of every source into the results table; a failure is kept in ``report.export_error``."""
    rows = [row for s in report.sources for row in s.rows]
    if not rows:
        return
    try:
        relation = _results_relation(wh, artifacts.results_model, None)
        report.export_relation = str(relation)
        report.default_relation = relation
        write_results(wh, relation, rows, [s.job.job_id for s in report.sources if s.job is not None])
        report.export_rows = len(rows)
    except ExportError as exc:
        report.export_error = str(exc)


def with_action_results(s: SourceReport) -> bool:
    """Put the outcomes of a source's post-scan actions into its DataQualityResult (the proto has
    fields for the BigQuery export and catalog publishing, none for notifications); True when set."""
    if s.result is None:
        return False
    if s.export_result is not None:
        out = s.result.post_scan_actions_result.bigquery_export_result
        out.state = type(out).State.Value(s.export_result.state)
        out.message = s.export_result.message
    if s.catalog is not None:
        status = s.result.catalog_publishing_status
        status.state = type(status).State.Value(s.catalog.state)
    return s.export_result is not None or s.catalog is not None
