"""The HTML report (docs/SEMANTICS.md §15): one self-contained page from this run's results and the results table's
history. Everything here is pure: :func:`render_html` turns data into HTML (a Jinja template with
autoescaping; the charts are inline SVG drawn here), nothing is read or fetched.

The page holds no reference to anything outside itself (no CDN, no font, no image file), so it opens
offline and from a mail attachment."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from dataplex_dq.run.assemble import row_count_of
from dataplex_dq.run.jobs import job_id as export_job_id
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.outcomes import RuleOutcome
from dataplex_dq.run.scoring import percent

if TYPE_CHECKING:
    import jinja2

__all__ = ["History", "JobPoint", "RulePoint", "Sample", "is_anomaly_check", "render_html"]

# failures first; then what did not run; passing rules last
STATUS_ORDER = (RuleStatus.FAILED, RuleStatus.ERROR, RuleStatus.SKIPPED, RuleStatus.SUSPENDED, RuleStatus.PASSED)
# line colours of the history charts (each at least 3:1 against the white background)
PALETTE = ("#1f5fbf", "#b3261e", "#1b7f3b", "#8a4baf", "#b45f06", "#00798c", "#6b4f2c", "#c2185b", "#455a64")
DEFAULT_LAST_JOBS = 30


# ---------------------------------------------------------------- input data


@dataclass(frozen=True)
class JobPoint:
    """One job of a data source in the results table: its score and the rule counts per dimension."""

    job_id: str
    start_time: datetime | None
    score: float | None
    passed: bool | None  # None: not evaluated (no rule PASSED or FAILED, docs/SEMANTICS.md §7)
    rows_scanned: int | None
    # dimension -> (evaluated rules, passed rules)
    dimension_counts: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    # status -> rules
    status_counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def result(self) -> str:
        return job_result(self.passed, self.status_counts)

    def dimension_score(self, name: str) -> float | None:
        evaluated, passed = self.dimension_counts.get(name, (0, 0))
        value = percent(passed, evaluated)
        return None if value is None else float(value)


@dataclass(frozen=True)
class RulePoint:
    """One job's result of a rule that carries rule_attributes (anomaly checks among them)."""

    job_id: str
    start_time: datetime | None
    rule_name: str
    status: str
    value: float | None
    lower: float | None
    upper: float | None


@dataclass(frozen=True)
class Sample:
    """Up to N failing rows of a rule, as text; ``error`` when the query failed."""

    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    truncated: bool = False
    error: str | None = None
    total_columns: int = 0  # the failing rows' columns when more than those shown (0: all shown)
    keys: tuple[str, ...] = ()  # the columns shown that are the data source's key columns (listed first)
    masked: tuple[str, ...] = ()  # the columns shown whose values the query replaced (meta.dataplex_dq.sample_mask)


@dataclass(frozen=True)
class History:
    """Per data source (dbt unique id): its recent jobs and marked-rule results, oldest first."""

    jobs: Mapping[str, Sequence[JobPoint]] = field(default_factory=dict)
    rules: Mapping[str, Sequence[RulePoint]] = field(default_factory=dict)
    error: str | None = None  # why the history could not be read (the page says so)


def job_result(passed: bool | None, status_counts: Mapping[str, int]) -> str:
    """What the page shows as a job's result: PASS or FAIL when a rule was evaluated; a job with none is not
    evaluated (§7), never FAIL: ERROR when one of its rules errored, SKIPPED when dbt skipped them, else
    NOT EVALUATED (all suspended or training)."""
    if passed is not None:
        return "PASS" if passed else "FAIL"
    if status_counts.get(str(RuleStatus.ERROR)):
        return str(RuleStatus.ERROR)
    if status_counts.get(str(RuleStatus.SKIPPED)):
        return str(RuleStatus.SKIPPED)
    return "NOT EVALUATED"


def is_anomaly_check(attributes: Mapping[str, Any] | None) -> bool:
    """A rule marked as an anomaly check in its rule_attributes: any key or value naming "anomaly"."""
    if not attributes:
        return False
    return any("anomaly" in str(k).lower() or "anomaly" in str(v).lower() for k, v in attributes.items())


# ---------------------------------------------------------------- formatting


def _num(value: float | int | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def _stat(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.6g}"


def _time(ts: datetime | None) -> str:
    return ts.strftime("%Y-%m-%d %H:%M:%S") if ts else "—"


def _bound(params: Mapping[str, Any] | None, key: str) -> float | None:
    if not isinstance(params, Mapping):
        return None
    value = params.get(key, params.get({"min_value": "minValue", "max_value": "maxValue"}.get(key, key)))
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def band_of(
    params: Mapping[str, Any] | None, attributes: Mapping[str, Any] | None
) -> tuple[float | None, float | None]:
    """The band a check was judged against: the rule's numeric min/max parameters, else the
    ``lower_bound`` / ``upper_bound`` of its attributes (anomaly checks written as table conditions)."""
    lower, upper = _bound(params, "min_value"), _bound(params, "max_value")
    if lower is None and upper is None and attributes:
        lower, upper = _bound(attributes, "lower_bound"), _bound(attributes, "upper_bound")
    return lower, upper


def value_of(statistic: float | None, attributes: Mapping[str, Any] | None) -> float | None:
    """A check's measured value: its statistic, else the ``value`` attribute."""
    return statistic if statistic is not None else _bound(attributes, "value")


def rule_bounds(outcome: RuleOutcome) -> tuple[float | None, float | None]:
    """The band of a rule (see :func:`band_of`)."""
    return band_of(outcome.rule_spec.get(outcome.rule_type), outcome.attributes)


# ---------------------------------------------------------------- SVG charts


def _scale(values: Sequence[float], lo: float, hi: float, top: float, bottom: float) -> list[float]:
    span = (hi - lo) or 1.0
    return [bottom - (v - lo) / span * (bottom - top) for v in values]


def _xs(n: int, left: float, right: float) -> list[float]:
    if n <= 1:
        return [(left + right) / 2] * n
    step = (right - left) / (n - 1)
    return [left + i * step for i in range(n)]


def _path(points: Iterable[tuple[float, float | None]]) -> str:
    """An SVG path through the points, broken where a value is missing."""
    out, pen = [], "M"
    for x, y in points:
        if y is None:
            pen = "M"
            continue
        out.append(f"{pen}{x:.1f},{y:.1f}")
        pen = "L"
    return " ".join(out)


def sparkline(jobs: Sequence[JobPoint], width: int = 120, height: int = 30) -> str:
    """The score trend of the last jobs: a line with one point per job (title = time and score)."""
    scored = list(jobs)
    if not scored:
        return '<span class="muted">no history</span>'
    xs = _xs(len(scored), 4, width - 4)
    ys = [None if j.score is None else _scale([j.score], 0, 100, 4, height - 4)[0] for j in scored]
    parts = [
        f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="score trend over the last {len(scored)} jobs">',
        f'<line x1="0" x2="{width}" y1="{height - 4}" y2="{height - 4}" class="axis"/>',
        f'<path d="{_path(zip(xs, ys, strict=True))}" class="line" fill="none"/>',
    ]
    for x, y, j in zip(xs, ys, scored, strict=True):
        if y is None:
            continue
        css = "pt" if j.passed else "pt bad"
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" class="{css}" data-job="{_attr(j.job_id)}" '
            f'data-score="{j.score}">'
            f"<title>{_attr(_time(j.start_time))}: {j.score:.2f}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def history_chart(jobs: Sequence[JobPoint], dimensions: Sequence[str], width: int = 640, height: int = 220) -> str:
    """Score history with one line per dimension; y from 0 to 100, one x step per job."""
    if not jobs:
        return '<p class="muted">No history in the results table yet.</p>'
    left, right, top, bottom = 34, width - 10, 10, height - 24
    xs = _xs(len(jobs), left + 6, right - 6)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="score history: overall and per '
        'dimension">'
    ]
    for tick in (0, 50, 100):
        y_tick = _scale([tick], 0, 100, top, bottom)[0]
        parts.append(f'<line x1="{left}" x2="{right}" y1="{y_tick:.1f}" y2="{y_tick:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 4}" y="{y_tick + 4:.1f}" class="tick" text-anchor="end">{tick}</text>')
    parts.append(f'<text x="{left}" y="{height - 6}" class="tick">{_attr(_time(jobs[0].start_time))}</text>')
    if len(jobs) > 1:
        parts.append(
            f'<text x="{right}" y="{height - 6}" class="tick" '
            f'text-anchor="end">{_attr(_time(jobs[-1].start_time))}</text>'
        )
    series: list[tuple[str, str, list[float | None], str]] = [("score", PALETTE[0], [j.score for j in jobs], "overall")]
    for i, d in enumerate(dimensions):
        series.append((d, PALETTE[(i + 1) % len(PALETTE)], [j.dimension_score(d) for j in jobs], "dim"))
    for name, colour, values, kind in series:
        ys = [None if v is None else _scale([v], 0, 100, top, bottom)[0] for v in values]
        dash = "" if kind == "overall" else ' stroke-dasharray="5 3"'
        stroke = 3 if kind == "overall" else 1.6
        parts.append(
            f'<g class="series" data-series="{_attr(name)}"><path d="{_path(zip(xs, ys, strict=True))}" fill="none" '
            f'stroke="{colour}" stroke-width="{stroke}"{dash}/>'
        )
        # points (with a tooltip) on the score line; a dimension line carries its values as data only
        if kind != "overall":
            parts.append(
                f'<desc data-values="{" ".join("-" if v is None else repr(v) for v in values)}">{_attr(name)}</desc>'
            )
        for x, y, v, j in zip(xs, ys, values, jobs, strict=True):
            if y is not None and kind == "overall":
                parts.append(
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}" data-job="{_attr(j.job_id)}" '
                    f'data-value="{v}">'
                    f"<title>{_attr(name)} {_attr(_time(j.start_time))}: {v:.2f}</title></circle>"
                )
        parts.append("</g>")
    parts.append("</svg>")
    legend = "".join(
        f'<li><span class="swatch{" dashed" if kind == "dim" else ""}" '
        f'style="border-color:{colour}"></span>{_attr(name)}</li>'
        for name, colour, _, kind in series
    )
    return "".join(parts) + f'<ul class="legend">{legend}</ul>'


def anomaly_chart(points: Sequence[RulePoint], width: int = 640, height: int = 180) -> str:
    """A check's value over time inside its band (lower..upper); values outside marked red."""
    values = [p.value for p in points if p.value is not None]
    bounds = [b for p in points for b in (p.lower, p.upper) if b is not None]
    if not values and not bounds:
        return '<p class="muted">No values recorded.</p>'
    lo, hi = min(values + bounds), max(values + bounds)
    pad = (hi - lo) * 0.1 or abs(hi) * 0.1 or 1.0
    lo, hi = lo - pad, hi + pad
    left, right, top, bottom = 60, width - 10, 10, height - 24
    xs = _xs(len(points), left + 6, right - 6)

    def sy(v: float) -> float:
        return _scale([v], lo, hi, top, bottom)[0]

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="value and band over time">']
    for v in (lo + pad, hi - pad):
        y = sy(v)
        parts.append(f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" class="tick" text-anchor="end">{_stat(v)}</text>')
    # the band: a polygon over the jobs that have both bounds (open bounds drawn to the chart edge)
    upper = [
        (x, sy(p.upper if p.upper is not None else hi))
        for x, p in zip(xs, points, strict=True)
        if p.lower is not None or p.upper is not None
    ]
    lower = [
        (x, sy(p.lower if p.lower is not None else lo))
        for x, p in zip(xs, points, strict=True)
        if p.lower is not None or p.upper is not None
    ]
    if upper:
        if len(upper) == 1:
            (x, y1), (_, y2) = upper[0], lower[0]
            upper, lower = [(x - 6, y1), (x + 6, y1)], [(x - 6, y2), (x + 6, y2)]
        poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in upper + lower[::-1])
        parts.append(f'<polygon points="{poly}" class="band"/>')
    parts.append(
        f'<path d="{_path(zip(xs, (None if p.value is None else sy(p.value) for p in points), strict=True))}" '
        'fill="none" class="value-line"/>'
    )
    for x, p in zip(xs, points, strict=True):
        if p.value is None:
            continue
        out = (p.lower is not None and p.value < p.lower) or (p.upper is not None and p.value > p.upper)
        parts.append(
            f'<circle cx="{x:.1f}" cy="{sy(p.value):.1f}" r="3" class="{"pt bad" if out else "pt"}" '
            f'data-value="{p.value}">'
            f"<title>{_attr(_time(p.start_time))}: {_stat(p.value)} (band {_stat(p.lower)} .. {_stat(p.upper)}, "
            f"{_attr(p.status)})</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _attr(text: Any) -> str:
    """Escape text for SVG/HTML built here (the template escapes everything else)."""
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


# ---------------------------------------------------------------- page model


def _status_rank(status: str) -> int:
    try:
        return STATUS_ORDER.index(RuleStatus(status))
    except ValueError:
        return len(STATUS_ORDER)


def _measured(o: RuleOutcome) -> str:
    """The Statistic cell: a statistic rule's measured value; a SQL assertion's rows returned (what it
    failed on: Dataplex's ``assertion_row_count``); else "—"."""
    m = o.metrics
    if m is None or not o.is_evaluated:
        return "—"
    if o.rule_type == "sql_assertion" and m.assertion_row_count is not None:
        n = m.assertion_row_count
        return f"{_num(n)} row{'' if n == 1 else 's'} returned"
    return _stat(m.statistic_value)


def _rule_view(o: RuleOutcome, tags: Sequence[str], sample: Sample | None, anchor: str) -> dict[str, Any]:
    m = o.metrics
    evaluated = o.is_evaluated
    row_level = o.is_row_level
    ratio = m.pass_ratio if (m and evaluated and row_level) else None
    threshold = o.threshold
    query = m.failing_rows_query if (m and o.status == RuleStatus.FAILED and row_level) else None
    attributes = dict(o.attributes or {})
    search = " ".join(
        str(x)
        for x in (
            o.rule_name,
            o.description or "",
            o.rule_type,
            o.column or "",
            o.dimension or "",
            o.message or "",
            *tags,
            *attributes.values(),
        )
    ).lower()
    return {
        "anchor": anchor,
        "name": o.rule_name,
        "description": o.description,
        "status": str(o.status),
        "type": o.rule_type,
        "dimension": o.dimension or "",
        "column": o.column or "",
        "evaluated": _num(m.evaluated_count)
        if (m and evaluated and row_level and m.evaluated_count is not None)
        else "—",
        "passed": _num(m.passed_count) if (m and evaluated and row_level and m.passed_count is not None) else "—",
        "nulls": _num(m.null_count) if (m and evaluated and m.null_count is not None) else "—",
        "ratio": "—" if ratio is None else f"{ratio * 100:.2f}%",
        "threshold": "—" if threshold is None else f"{threshold * 100:.2f}%",
        "ratio_ok": None if ratio is None or threshold is None else ratio >= threshold,
        "statistic": _measured(o),
        "message": (o.message or "").strip(),
        "tags": list(tags),
        "attributes": attributes,
        "anomaly": is_anomaly_check(attributes),
        "query": query,
        "sample": sample,
        "search": search,
    }


def _source_view(
    s: Any,
    index: int,
    history: History,
    *,
    samples: Mapping[tuple[str, str], Sample],
    tags: Mapping[str, Sequence[str]],
    invocation_id: str,
    last_jobs: int,
) -> dict[str, Any]:
    source_id = s.data_source.unique_id
    card = s.card
    jobs = list(history.jobs.get(source_id, ()))
    current_job = export_job_id(invocation_id, source_id)
    counts = {st: sum(1 for o in s.outcomes if o.status == st) for st in RuleStatus}
    passed = card.passed if card.evaluated else None
    if not any(j.job_id == current_job for j in jobs):
        # not exported (--no-export, or the export failed): this run is still the newest point
        jobs.append(
            JobPoint(
                job_id=current_job,
                start_time=None,
                score=card.score,
                passed=passed,
                rows_scanned=row_count_of(s.outcomes),
                dimension_counts={d.name: (d.rule_count, d.passed_count) for d in card.dimensions},
                status_counts={str(k): v for k, v in counts.items()},
            )
        )
    jobs = jobs[-last_jobs:]
    ordered = sorted(enumerate(s.outcomes), key=lambda io: (_status_rank(str(io[1].status)), io[0]))
    rules = [
        _rule_view(o, tags.get(o.test_unique_id or "", ()), samples.get((source_id, o.rule_name)), f"s{index}-r{i}")
        for i, (_, o) in enumerate(ordered)
    ]
    dims = sorted({d.name for d in card.dimensions} | {d for j in jobs for d in j.dimension_counts if d})
    matrix_dims = sorted({d.name for c in card.columns for d in c.dimensions})
    matrix = [
        {
            "column": c.column,
            "score": c.score,
            "passed": c.passed,
            "cells": [(d, c.dimension(d)) for d in matrix_dims],
        }
        for c in card.columns
    ]
    anomaly_points: dict[str, list[RulePoint]] = {}
    for p in history.rules.get(source_id, ()):
        anomaly_points.setdefault(p.rule_name, []).append(p)
    anomalies = []
    for o in s.outcomes:
        if not is_anomaly_check(o.attributes):
            continue
        points = [p for p in anomaly_points.get(o.rule_name, []) if p.job_id != current_job]
        lower, upper = rule_bounds(o)
        value = value_of(o.metrics.statistic_value if o.metrics else None, o.attributes)
        points.append(RulePoint(current_job, None, o.rule_name, str(o.status), value, lower, upper))
        anomalies.append(
            {
                "name": o.rule_name,
                "status": str(o.status),
                "value": _stat(value),
                "lower": _stat(lower),
                "upper": _stat(upper),
                "kind": ", ".join(
                    f"{k}={v}"
                    for k, v in sorted(o.attributes.items())
                    if "anomaly" in k or k in ("expected", "time_bucket", "seasonality")
                ),
                "chart": anomaly_chart(points[-last_jobs:]),
            }
        )
    result = job_result(passed, {str(k): v for k, v in counts.items()})
    return {
        "id": source_id,
        "anchor": f"src-{index}",
        "name": s.data_source.name,
        "label": s.data_source.label,
        "relation": s.data_source.relation_name or "",
        "score": card.score,
        "score_text": _num(card.score),
        "row_weighted": _num(card.row_weighted_score),
        "passed": card.passed,
        "result": result,
        "result_css": result.replace(" ", "_"),
        "has_errors": card.has_errors,
        "counts": {str(k): v for k, v in counts.items()},
        "total": len(s.outcomes),
        "rows_scanned": row_count_of(s.outcomes),
        "rows_scanned_text": _num(row_count_of(s.outcomes)),
        "dimensions": [(d.name, d.score, d.passed) for d in card.dimensions],
        "matrix_dims": matrix_dims,
        "matrix": matrix,
        "jobs": jobs,
        "sparkline": sparkline(jobs),
        "chart": history_chart(jobs, dims),
        "chart_dims": dims,
        "rules": rules,
        "anomalies": anomalies,
    }


@cache
def _template() -> jinja2.Template:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    env.filters["time"] = _time
    env.filters["tojson_script"] = lambda v: (
        json.dumps(v, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    )
    text = resources.files("dataplex_dq").joinpath("outputs/templates/report.html").read_text(encoding="utf-8")
    return env.from_string(text)


def render_html(
    report: Any,
    history: History | None = None,
    samples: Mapping[tuple[str, str], Sample] | None = None,
    tags: Mapping[str, Sequence[str]] | None = None,
    *,
    generated_at: datetime,
    project: str | None = None,
    target: str | None = None,
    last_jobs: int = DEFAULT_LAST_JOBS,
    samples_enabled: bool = True,
    notes: Sequence[str] = (),
) -> str:
    """The page of a :class:`dataplex_dq.run.report.Report` (its sources' outcomes and score cards), the
    results-table ``history``, failing-row ``samples`` keyed by (data source id, rule name), and the
    dbt tags of each test (by test unique id)."""
    from markupsafe import Markup

    history = history or History()
    sources = [
        _source_view(
            s,
            i,
            history,
            samples=samples or {},
            tags=tags or {},
            invocation_id=report.invocation_id,
            last_jobs=last_jobs,
        )
        for i, s in enumerate(sorted(report.sources, key=lambda s: s.data_source.unique_id))
    ]
    for src in sources:
        src["sparkline"] = Markup(src["sparkline"])
        src["chart"] = Markup(src["chart"])
        for a in src["anomalies"]:
            a["chart"] = Markup(a["chart"])
    all_rules = [r for src in sources for r in src["rules"]]
    return _template().render(
        invocation_id=report.invocation_id,
        generated_at=generated_at,
        project=project,
        target=target,
        sources=sources,
        statuses=[str(s) for s in STATUS_ORDER]
        + sorted({r["status"] for r in all_rules} - {str(s) for s in STATUS_ORDER}),
        dimensions=sorted({r["dimension"] for r in all_rules if r["dimension"]}),
        tags=sorted({t for r in all_rules for t in r["tags"]}),
        rule_count=len(all_rules),
        last_jobs=last_jobs,
        samples_enabled=samples_enabled,
        history_error=history.error,
        notes=list(notes),
    )
