"""What the HTML report reads besides this run's results: the results table's recent history, a bounded
sample of each failing rule's failing rows (key columns first, ``sample_mask`` columns masked in the SQL:
outputs/sample_keys.py, macros/report_samples.sql), and the tests' dbt tags; then it writes the page
(:func:`write_html_report`). The history SQL is in macros/results/report_history.sql."""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dataplex_dq._compat import UTC, fromisoformat
from dataplex_dq.errors import DataplexDqError, OutputError, first_line
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.outputs.files import result_files_failed, write_atomic
from dataplex_dq.outputs.html_report import (
    DEFAULT_LAST_JOBS,
    History,
    JobPoint,
    RulePoint,
    Sample,
    band_of,
    render_html,
    value_of,
)
from dataplex_dq.outputs.sample_keys import SamplePlan, read_manifest, sample_plans
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.model import Report
from dataplex_dq.warehouse.connection import Warehouse

SAMPLE_ROWS = 10  # failing rows shown per rule unless the var dataplex_dq_sample_rows says otherwise
SAMPLE_CELL_CHARS = 200  # longer values are shortened
SAMPLE_RULE_BYTES = 16_000  # text of one rule's sample
SAMPLE_TOTAL_BYTES = 1_000_000  # text of all samples of the page
SAMPLE_MAX_RULES = 200  # failing rules sampled per page (each is one query)
SAMPLE_COLUMNS = 20  # columns shown per sample: the rule's column first, then the others in order
# columns the sample queries read together: a query over a wide table costs per column of its `select *` (a
# failing-rows query is one), so a page samples fewer rules of a 1,000-column table (50) than of a narrow one
SAMPLE_READ_COLUMNS = 50_000


@dataclass(frozen=True)
class HtmlOptions:
    path: Path
    samples: bool = True
    last_jobs: int = DEFAULT_LAST_JOBS


def default_html_path(target_path: Path) -> Path:
    return Path(target_path) / "dataplex_dq" / "index.html"


def _float(v: Any) -> float | None:
    return None if v is None else float(v)


def _ts(v: Any) -> datetime | None:
    if v is None or isinstance(v, datetime):
        return v
    try:
        return fromisoformat(str(v))
    except ValueError:
        return None


def _json(text: Any) -> dict[str, Any]:
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if text else None
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def history_from_rows(job_rows: Sequence[dict[str, Any]], rule_rows: Sequence[dict[str, Any]]) -> History:
    """History from the rows of report_job_history_sql (per job and dimension) and
    report_rule_history_sql (per marked rule and job); pure."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in job_rows:
        grouped[(r["dbt_node_unique_id"], r["data_quality_job_id"])].append(r)
    jobs: dict[str, list[JobPoint]] = defaultdict(list)
    for (node, job), rows in grouped.items():
        first = rows[0]
        status_counts = {
            str(st): sum(int(r.get(f"rules_{key}") or 0) for r in rows)
            for st, key in (
                (RuleStatus.PASSED, "passed"),
                (RuleStatus.FAILED, "failed"),
                (RuleStatus.ERROR, "errored"),
                (RuleStatus.SKIPPED, "skipped"),
                (RuleStatus.SUSPENDED, "suspended"),
            )
        }
        dims = {
            r["rule_dimension"]: (int(r["rules_evaluated"] or 0), int(r["rules_passed"] or 0))
            for r in rows
            if r.get("rule_dimension")
        }
        jobs[node].append(
            JobPoint(
                job_id=job,
                start_time=_ts(first.get("job_start_time")),
                score=_float(first.get("job_score")),
                passed=None if first.get("job_passed") is None else bool(first["job_passed"]),
                rows_scanned=None if first.get("job_rows_scanned") is None else int(first["job_rows_scanned"]),
                dimension_counts={k: v for k, v in dims.items() if v[0] > 0},
                status_counts=status_counts,
            )
        )
    for points in jobs.values():
        points.sort(key=lambda j: (j.start_time or datetime.min, j.job_id))
    rules: dict[str, list[RulePoint]] = defaultdict(list)
    for r in rule_rows:
        attributes = _json(r.get("rule_attributes"))
        lower, upper = band_of(_json(r.get("rule_parameters")), attributes)
        rules[r["dbt_node_unique_id"]].append(
            RulePoint(
                job_id=r["data_quality_job_id"],
                start_time=_ts(r.get("job_start_time")),
                rule_name=r["rule_name"],
                status=str(r.get("rule_status") or ""),
                value=value_of(_float(r.get("rule_statistic_value")), attributes),
                lower=lower,
                upper=upper,
            )
        )
    for rule_points in rules.values():
        rule_points.sort(key=lambda p: (p.start_time or datetime.min, p.job_id))
    return History(dict(jobs), dict(rules))


def _recover(wh: Warehouse) -> None:
    """After a failed query: roll the connection back, as PostgreSQL refuses every later statement of
    an aborted transaction (the report's own rows were committed by the export before)."""
    # any driver error: no transaction open, or a driver without rollback; there is nothing to end then
    with contextlib.suppress(Exception):
        wh.adapter.connections.get_thread_connection().handle.rollback()


def fetch_history(wh: Warehouse, relation: Any, node_ids: Sequence[str], last_jobs: int) -> History:
    """The last jobs of these data sources in the results table; an empty History naming the reason
    when the table cannot be read (the page is still written)."""
    if not node_ids:
        return History()
    try:
        job_sql = wh.macro("report_job_history_sql", relation=relation, node_ids=list(node_ids), last_jobs=last_jobs)
        rule_sql = wh.macro("report_rule_history_sql", relation=relation, node_ids=list(node_ids), last_jobs=last_jobs)
        return history_from_rows(wh.query(str(job_sql)), wh.query(str(rule_sql)))
    except DataplexDqError as exc:
        _recover(wh)
        return History(error=f"reading {relation} failed: {first_line(exc)}")


def _cell(v: Any) -> tuple[str, bool]:
    text = "NULL" if v is None else (v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
    if len(text) > SAMPLE_CELL_CHARS:
        return text[: SAMPLE_CELL_CHARS - 1] + "…", True
    return text, False


def _match(columns: Sequence[str], name: str | None) -> str | None:
    """``name`` among ``columns`` as the warehouse folds an unquoted name: exactly, else ignoring case."""
    if not name:
        return None
    return next((c for c in columns if c == name), None) or next(
        (c for c in columns if c.lower() == name.lower()), None
    )


def shown_columns(
    columns: Sequence[str],
    rule_column: str | None,
    max_columns: int = SAMPLE_COLUMNS,
    keys: Sequence[str] = (),
) -> list[str]:
    """The columns a sample shows: the data source's key columns first (those the rows have), then all the others
    when they are at most ``max_columns``; else the rule's column, then the others in order, ``max_columns`` in all."""
    first = [m for m in dict.fromkeys(_match(columns, k) for k in keys) if m is not None]
    if len(columns) > max_columns:
        rule = _match(columns, rule_column)
        if rule is not None and rule not in first:
            first.append(rule)
    rest = [c for c in columns if c not in first]
    return [*first, *rest][: max(max_columns, len(first))]


def sample_from_rows(
    rows: Sequence[dict[str, Any]],
    max_rows: int = SAMPLE_ROWS,
    max_bytes: int = SAMPLE_RULE_BYTES,
    *,
    rule_column: str | None = None,
    total_columns: int | None = None,
    plan: SamplePlan | None = None,
) -> Sample:
    """At most ``max_rows`` rows as text, at most SAMPLE_COLUMNS columns (:func:`shown_columns`: the ``plan``'s key
    columns first), values shortened, stopping before ``max_bytes``; pure. ``total_columns``: the failing rows'
    columns when ``rows`` hold only those shown (a wide data source's sample query read just these), for the
    caption. The ``plan``'s masked columns were replaced by the query; the sample names those it shows."""
    if not rows:
        return Sample()
    plan = plan or SamplePlan()
    columns = tuple(shown_columns([str(c) for c in rows[0]], rule_column, keys=plan.keys))
    total = total_columns if total_columns is not None else len(rows[0])
    out: list[tuple[str, ...]] = []
    size, truncated = sum(len(c) for c in columns), False
    for row in rows[:max_rows]:
        cells = [_cell(row.get(c)) for c in columns]
        truncated |= any(t for _, t in cells)
        line = tuple(c for c, _ in cells)
        size += sum(len(c.encode("utf-8")) for c in line)
        if size > max_bytes and out:
            truncated = True
            break
        out.append(line)
    masked = {m.lower() for m in plan.mask}
    return Sample(
        columns,
        tuple(out),
        truncated,
        total_columns=total if total > len(columns) else 0,
        keys=tuple(c for c in columns if any(c == _match(columns, k) for k in plan.keys)),
        masked=tuple(c for c in columns if c.lower() in masked),
    )


@dataclass(frozen=True)
class _Candidate:
    """A failing row-level rule whose failing rows the page samples."""

    source_id: str
    rule_name: str
    column: str | None
    query: str
    plan: SamplePlan
    relation: dict[str, str | None]


@dataclass(frozen=True)
class _Rendered:
    """The sample queries of one macro call (None where an item got an error instead) and N."""

    sqls: list[str | None]
    errors: list[str | None]
    max_rows: int


def _sample_sqls(wh: Warehouse, items: Sequence[tuple[_Candidate, Sequence[str] | None]]) -> _Rendered:
    """The sample queries of (candidate, columns or None: all), rendered by one macro call."""
    rendered = wh.macro(
        "sample_rows_sqls",
        items=[
            {
                "query": c.query,
                "columns": list(cols) if cols else None,
                "mask": list(c.plan.mask),
                "relation": c.relation,
            }
            for c, cols in items
        ],
    )
    samples = list(rendered["samples"])
    return _Rendered(
        [None if s["sql"] is None else str(s["sql"]) for s in samples],
        [None if s["error"] is None else str(s["error"]) for s in samples],
        int(rendered["max_rows"]),
    )


def fetch_samples(wh: Warehouse, report: Report) -> tuple[dict[tuple[str, str], Sample], list[str]]:
    """Up to N failing rows (var dataplex_dq_sample_rows, default SAMPLE_ROWS) of each failing row-level rule, its
    data source's key columns first and its ``sample_mask`` columns masked by the query (outputs/sample_keys.py),
    bounded in rules, bytes and columns read (SAMPLE_MAX_RULES, SAMPLE_TOTAL_BYTES, SAMPLE_READ_COLUMNS). Every
    query is rendered up front by one macro call; a wide data source's later samples (its first showed more than
    SAMPLE_COLUMNS columns) read only the columns shown, rendered by one more call. Returns the samples by
    (data source id, rule name) and notes for the reader."""
    failing = [
        (s, o)
        for s in sorted(report.sources, key=lambda s: s.data_source.unique_id)
        for o in s.outcomes
        if o.metrics and o.status == RuleStatus.FAILED and o.is_row_level and o.metrics.failing_rows_query
    ]
    samples: dict[tuple[str, str], Sample] = {}
    notes: list[str] = []
    if not failing:
        return samples, notes
    plans = sample_plans(report, read_manifest(getattr(wh, "manifest_path", None)))
    candidates = [
        _Candidate(
            s.data_source.unique_id,
            o.rule_name,
            o.column,
            str(o.metrics.failing_rows_query),
            plans[s.data_source.unique_id],
            {
                "database": s.data_source.database,
                "schema": s.data_source.schema,
                "identifier": s.data_source.identifier,
            },
        )
        for s, o in failing
        if o.metrics
    ]
    taken = candidates[:SAMPLE_MAX_RULES]
    skipped = len(candidates) - len(taken)
    try:
        plain = _sample_sqls(wh, [(c, None) for c in taken])
    except DataplexDqError as exc:
        failed = Sample(error=first_line(exc, 500))
        return {(c.source_id, c.rule_name): failed for c in taken}, notes
    narrow: dict[int, tuple[str, int]] = {}  # candidate -> (its query of the columns shown, the source's columns)
    wide_done: set[str] = set()
    unmasked: dict[str, set[str]] = {}  # data source -> sample_mask names none of its samples had
    total = read = 0
    for i, c in enumerate(taken):
        if total >= SAMPLE_TOTAL_BYTES or read >= SAMPLE_READ_COLUMNS:
            skipped += 1
            continue
        refused = c.plan.error or plain.errors[i]
        plain_sql = plain.sqls[i]
        if refused or plain_sql is None:
            samples[(c.source_id, c.rule_name)] = Sample(error=refused or "no sample query")
            continue
        sql, width = narrow.get(i, (plain_sql, None))
        rows, error = _query(wh, sql)
        if rows is None and width is not None:  # the columns' query failed: the failing rows query as it is
            (rows, error), width = _query(wh, plain_sql), None
        if rows is None:
            samples[(c.source_id, c.rule_name)] = Sample(error=error)
            continue
        if rows and width is None:
            have = {str(k).lower() for k in rows[0]}
            unmasked.setdefault(c.source_id, {m for m in c.plan.mask if m.lower() not in have})
        sample = sample_from_rows(rows, max_rows=plain.max_rows, rule_column=c.column, total_columns=width, plan=c.plan)
        read += width if width is not None else (len(rows[0]) if rows else 0)
        total += sum(len(v) for row in sample.rows for v in row)
        samples[(c.source_id, c.rule_name)] = sample
        if width is None and sample.total_columns and c.source_id not in wide_done:
            wide_done.add(c.source_id)
            room = (SAMPLE_READ_COLUMNS - read) // sample.total_columns + 1  # samples the budget still allows
            narrow.update(_narrow_queries(wh, taken, i, list(rows[0]), width=sample.total_columns, room=room))
    for source_id, names in sorted(unmasked.items()):
        if names:
            notes.append(
                f"sample_mask of {source_id} names columns its failing rows do not have: {', '.join(sorted(names))} "
                "(check the spelling: nothing of that name was masked)."
            )
    if skipped:
        notes.append(
            f"Failing-row samples were fetched for the first {len(samples)} failing rules only ({skipped} more left "
            "out to bound the page's size and the queries' work)."
        )
    return samples, notes


def _query(wh: Warehouse, sql: str) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The rows of one sample query, or None and the first line of its error (the connection rolled back)."""
    try:
        return wh.query(sql), None
    except DataplexDqError as exc:
        _recover(wh)
        return None, first_line(exc, 500)


def _narrow_queries(
    wh: Warehouse, taken: Sequence[_Candidate], after: int, columns: list[str], *, width: int, room: int
) -> dict[int, tuple[str, int]]:
    """The next ``room`` samples of a wide data source (``taken[after]``'s), each reading only the columns it
    shows; none when they cannot be rendered (the samples then read every column)."""
    source = taken[after].source_id
    later = [(j, c) for j, c in enumerate(taken) if j > after and c.source_id == source][:room]
    try:
        rendered = _sample_sqls(wh, [(c, shown_columns(columns, c.column, keys=c.plan.keys)) for _, c in later])
    except DataplexDqError:
        return {}
    return {j: (sql, width) for (j, _), sql in zip(later, rendered.sqls, strict=True) if sql is not None}


def write_html_report(
    wh: Warehouse,
    report: Report,
    relation: Any,
    options: HtmlOptions,
    *,
    target_path: Path,
    project: str | None,
    target: str | None,
) -> Path:
    """Read the history and samples, render the page and write it to ``options.path``."""
    node_ids = sorted({s.data_source.unique_id for s in report.sources})
    history = fetch_history(wh, relation, node_ids, options.last_jobs) if relation is not None else History()
    samples, notes = fetch_samples(wh, report) if options.samples else ({}, [])
    html = render_html(
        report,
        history,
        samples,
        report.tags,
        generated_at=datetime.now(UTC).replace(tzinfo=None),
        project=project,
        target=target,
        last_jobs=options.last_jobs,
        samples_enabled=options.samples,
        notes=notes,
    )
    path = Path(options.path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, html.encode("utf-8"))
    except OSError as exc:
        raise OutputError(
            f"cannot write the HTML report to {path}: {exc.strerror or exc}; the previous page is kept"
        ) from exc
    return path


class HtmlReport:
    """The HTML report (docs/SEMANTICS.md §15), when --html asks for it."""

    name = "HTML report"

    def write(self, ctx: OutputContext) -> None:
        if ctx.html is None:
            return
        if result_files_failed(ctx.report):
            # the page and the result files are one report: neither is replaced when the files could not be
            raise OutputError(
                f"{ctx.html.path} not written: the result files could not be (above); the previous page is kept"
            )
        ctx.report.html_path = write_html_report(
            ctx.wh,
            ctx.report,
            ctx.report.default_relation,
            ctx.html,
            target_path=ctx.target_path,
            project=ctx.project,
            target=ctx.target,
        )
