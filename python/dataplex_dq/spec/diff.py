"""`dataplex-dq diff BASE`: what this run did to data quality, compared with a base run.

The current run is the ``DataQualityResult`` JSON the report wrote (``TARGET_PATH/dataplex_dq``).
The base is another such directory (a production run's artifacts), or the latest job of each data
source in another target's results table (``--base-target prod``), read through dbt's adapter with
the SQL of the macro ``dataplex_dq.diff_base_rows_sql``.

Per data source: score, dimension and column score changes, row count, rules newly failing (failing
now and not failing in the base, which includes a rule added in a failing state), newly passing,
added and removed. A regression (exit 1) is a rule newly failing, or a data source score that drops
by more than ``--max-score-drop`` points. Scores are Dataplex's rule-count scores (docs/SEMANTICS.md §7);
from the results table they are recomputed from the rules' statuses with the same definition.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from dataplex_dq.errors import ArtifactsError, DataplexDqError, first_line
from dataplex_dq.outputs.escape import markdown_code, markdown_text
from dataplex_dq.record import dbt_options
from dataplex_dq.rule_types import is_row_level

RESULTS_DIR = "dataplex_dq"


# ---------------------------------------------------------------- one side of the diff


@dataclass(frozen=True)
class RuleState:
    name: str
    passed: bool
    column: str | None = None
    dimension: str | None = None
    pass_ratio: float | None = None  # row-level rules only


@dataclass(frozen=True)
class SourceState:
    """What a run says about one data source (key: its dbt unique_id)."""

    key: str
    score: float | None
    row_count: int | None
    dimensions: dict[str, float]
    columns: dict[str, float]
    rules: dict[str, RuleState]

    @property
    def label(self) -> str:
        return source_label(self.key)


def source_label(key: str) -> str:
    """``model.shop.fct_orders`` -> ``fct_orders``; ``source.shop.raw.orders`` -> ``raw.orders``."""
    parts = key.split(".")
    if parts[0] == "source" and len(parts) >= 4:
        return ".".join(parts[2:])
    return parts[-1] if len(parts) >= 3 else key


def _round(value: float) -> float:
    return round(float(value), 2)


def _rule_key(rule: Any) -> str:
    """A rule result's name, or `<rule type>(<column>)` for an unnamed rule of a Dataplex result."""
    if rule.rule.name:
        return str(rule.rule.name)
    kind = rule.rule.WhichOneof("rule_type") or "rule"
    return f"{kind}({rule.rule.column})" if rule.rule.column else kind


def state_from_result(key: str, result: Any) -> SourceState:
    """A DataQualityResult proto as a SourceState (float32 scores rounded back to 2 decimals)."""
    rules = {}
    for r in result.rules:
        name = _rule_key(r)
        row_level = is_row_level(r.rule.WhichOneof("rule_type") or "")
        rules[name] = RuleState(
            name,
            bool(r.passed),
            r.rule.column or None,
            r.rule.dimension or None,
            _round(r.pass_ratio * 100) if row_level else None,
        )
    return SourceState(
        key=key,
        score=_round(result.score) if result.HasField("score") else None,
        row_count=int(result.row_count) if result.row_count else None,
        dimensions={d.dimension.name: _round(d.score) for d in result.dimensions if d.HasField("score")},
        columns={c.column: _round(c.score) for c in result.columns if c.HasField("score")},
        rules=rules,
    )


def read_results_dir(path: Path) -> dict[str, SourceState]:
    """Every DataQualityResult JSON of a directory (or of DIR/dataplex_dq), keyed by data source."""
    from google.protobuf import json_format

    from dataplex_dq.outputs.files import data_source_of_file
    from dataplex_dq.run.assemble import result_from_json

    path = Path(path)
    if (path / RESULTS_DIR).is_dir():
        path = path / RESULTS_DIR
    if not path.is_dir():
        raise ArtifactsError(f"{path}: no such directory of DataQualityResult JSON files")
    files = sorted(path.glob("*.json"))
    if not files:
        raise ArtifactsError(f"{path}: no DataQualityResult JSON files (*.json); run `dataplex-dq report` there first")
    out = {}
    for f in files:
        try:
            result = result_from_json(f.read_text(encoding="utf-8"))
        except (OSError, json_format.ParseError) as exc:
            raise ArtifactsError(f"{f}: not a DataQualityResult in proto JSON ({str(exc).splitlines()[0]})") from None
        key = data_source_of_file(f.stem)  # the data source's unique id (outputs/files.py result_file_base)
        out[key] = state_from_result(key, result)
    return out


def _score(passed: int, total: int) -> float | None:
    from dataplex_dq.run.scoring import percent

    value = percent(passed, total)
    return None if value is None else float(value)


def state_from_rows(key: str, rows: Iterable[Mapping[str, Any]]) -> SourceState:
    """The rows of one job of the results table as a SourceState; scores recomputed from the rules'
    statuses (only PASSED and FAILED rules count, as in the report)."""
    rows = list(rows)
    evaluated = [r for r in rows if str(r.get("rule_status") or "").upper() in ("PASSED", "FAILED")]

    def score_of(group: list[Mapping[str, Any]]) -> float | None:
        return _score(sum(1 for r in group if str(r["rule_status"]).upper() == "PASSED"), len(group))

    def grouped(field_name: str) -> dict[str, float]:
        """Scores per value of the field; a group is never empty, so each has a score."""
        groups: dict[str, list[Mapping[str, Any]]] = {}
        for r in evaluated:
            if r.get(field_name):
                groups.setdefault(str(r[field_name]), []).append(r)
        return {k: score for k, v in sorted(groups.items()) if (score := score_of(v)) is not None}

    rules = {}
    for r in evaluated:
        ratio = r.get("rule_rows_passed_percent")
        rules[str(r["rule_name"])] = RuleState(
            str(r["rule_name"]),
            str(r["rule_status"]).upper() == "PASSED",
            r.get("rule_column") or None,
            r.get("rule_dimension") or None,
            _round(ratio) if ratio is not None and r.get("rule_rows_evaluated") is not None else None,
        )
    scanned = next((r.get("job_rows_scanned") for r in rows if r.get("job_rows_scanned") is not None), None)
    return SourceState(
        key,
        score_of(evaluated),
        int(scanned) if scanned is not None else None,
        grouped("rule_dimension"),
        grouped("rule_column"),
        rules,
    )


def read_results_table(
    project_dir: Path, profiles_dir: Path | None, target: str | None, manifest_path: Path, relation_name: str | None
) -> tuple[dict[str, SourceState], str]:
    """The latest job of every data source in ``target``'s results table (None: the profile's default
    target); (states, relation)."""
    from dataplex_dq.run.jobs import DEFAULT_RESULTS_TABLE
    from dataplex_dq.warehouse.connection import Warehouse

    if not manifest_path.exists():
        raise ArtifactsError(f"{manifest_path} not found: run `dbt build` (or `dbt parse`) first")
    with Warehouse(project_dir, profiles_dir, target, manifest_path) as wh:
        creds = wh.credentials
        parts = (relation_name or DEFAULT_RESULTS_TABLE).split(".")
        database = parts[-3] if len(parts) >= 3 else getattr(creds, "database", None)
        schema = parts[-2] if len(parts) >= 2 else getattr(creds, "schema", None)
        relation = wh.relation(database, schema, parts[-1])
        rows = wh.query(str(wh.macro("diff_base_rows_sql", relation=relation)))
    by_source: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_source.setdefault(str(r["dbt_node_unique_id"]), []).append(r)
    if not by_source:
        raise ArtifactsError(
            f"{relation} (target {target}) holds no results: run `dataplex-dq report` on that target first"
        )
    return {k: state_from_rows(k, v) for k, v in by_source.items()}, str(relation)


def declared_rule_names(manifest_path: Path) -> dict[str, list[str]] | None:
    """The names of the rules (not suspended) each data source declares in ``manifest_path``, named
    as the report names them; None when there is no manifest."""
    from dataplex_dq.record.artifacts import manifest_rules
    from dataplex_dq.record.declared import declared_rules
    from dataplex_dq.spec.reader import RULE_TYPES

    if not manifest_path.exists():
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ArtifactsError(f"{manifest_path} cannot be read as JSON ({exc}); run dbt again") from None
    tests, _ = manifest_rules(manifest)
    out: dict[str, list[str]] = {}
    for test in sorted(tests.values(), key=lambda t: t.order):
        if test.test_name not in RULE_TYPES and test.test_name != "data_quality_scan":
            continue  # e.g. anomaly_detection: its checks are named at run time
        for _, rule in declared_rules(test):
            if not rule.get("suspended") and test.data_source_id:
                out.setdefault(test.data_source_id, []).append(str(rule["name"]))
    return out


# ---------------------------------------------------------------- the comparison


@dataclass(frozen=True)
class Change:
    name: str
    base: float | None
    current: float | None

    @property
    def delta(self) -> float | None:
        return None if self.base is None or self.current is None else round(self.current - self.base, 2)


@dataclass
class SourceDiff:
    key: str
    label: str
    status: str  # changed, unchanged, added (new data source), removed
    score: Change
    rows: tuple[int | None, int | None]
    dimensions: list[Change] = field(default_factory=list)
    columns: list[Change] = field(default_factory=list)
    newly_failing: list[str] = field(default_factory=list)
    newly_passing: list[str] = field(default_factory=list)
    added: list[tuple[str, bool]] = field(default_factory=list)  # (rule, passed now)
    removed: list[str] = field(default_factory=list)
    not_evaluated: list[str] = field(default_factory=list)  # still declared, but no result in this run
    failing: int = 0  # rules failing now

    @property
    def partial(self) -> bool:
        """This run evaluated only some of the rules declared on the data source (skipped after an
        upstream failure, errored, or not selected): its score is not comparable."""
        return bool(self.not_evaluated)

    def score_drop(self) -> float:
        d = self.score.delta
        return -d if d is not None and d < 0 and not self.partial else 0.0


@dataclass
class Diff:
    base: str
    max_score_drop: float
    sources: list[SourceDiff]

    @property
    def newly_failing(self) -> list[tuple[str, str]]:
        return [(s.label, r) for s in self.sources for r in s.newly_failing]

    @property
    def score_drops(self) -> list[SourceDiff]:
        return [s for s in self.sources if s.score_drop() > self.max_score_drop]

    @property
    def regression(self) -> bool:
        return bool(self.newly_failing or self.score_drops)


def _changes(base: Mapping[str, float], current: Mapping[str, float]) -> list[Change]:
    return [Change(k, base.get(k), current.get(k)) for k in sorted(set(base) | set(current))]


def compare(
    base: Mapping[str, SourceState],
    current: Mapping[str, SourceState],
    *,
    base_label: str,
    max_score_drop: float = 0.0,
    declared: Mapping[str, list[str]] | None = None,
) -> Diff:
    """The diff of two runs. ``declared``: the rules (not suspended) each data source declares now,
    from this run's manifest; a base rule missing from this run's results is "not evaluated" when it
    is still declared, "removed" when it is not (without ``declared``, always "removed")."""
    sources = []
    declared = declared or {}
    for key in sorted(set(base) | set(current), key=lambda k: (source_label(k), k)):
        b, c = base.get(key), current.get(key)
        b_rules = b.rules if b else {}
        c_rules = c.rules if c else {}
        d = SourceDiff(
            key=key,
            label=source_label(key),
            status="removed" if c is None else "added" if b is None else "unchanged",
            score=Change("score", b.score if b else None, c.score if c else None),
            rows=(b.row_count if b else None, c.row_count if c else None),
            dimensions=_changes(b.dimensions if b else {}, c.dimensions if c else {}),
            columns=_changes(b.columns if b else {}, c.columns if c else {}),
            failing=sum(1 for r in c_rules.values() if not r.passed),
        )
        for name, rule in c_rules.items():
            old = b_rules.get(name)
            if old is None:
                d.added.append((name, rule.passed))
            if not rule.passed and (old is None or old.passed):
                d.newly_failing.append(name)
            if rule.passed and old is not None and not old.passed:
                d.newly_passing.append(name)
        still = set(declared.get(key, ()))
        d.removed = [n for n in b_rules if n not in c_rules and n not in still]
        d.not_evaluated = [n for n in declared.get(key, ()) if n not in c_rules]
        if c is None and key in declared:
            d.status = "not run"
        if d.status == "unchanged" and (
            d.newly_failing
            or d.newly_passing
            or d.added
            or d.removed
            or d.not_evaluated
            or d.score.delta
            or d.rows[0] != d.rows[1]
            or any(x.delta for x in d.dimensions + d.columns)
            or any(x.base is None or x.current is None for x in d.dimensions + d.columns)
        ):
            d.status = "changed"
        sources.append(d)
    return Diff(base_label, max_score_drop, sources)


# ---------------------------------------------------------------- output


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _delta(value: float | None) -> str:
    return "" if not value else f"{value:+.2f}"


def _from_to(change: Change) -> str:
    if change.base == change.current:
        return _num(change.current)
    return f"{_num(change.base)} → {_num(change.current)}"


def _rows(rows: tuple[int | None, int | None]) -> str:
    b, c = rows

    def fmt(v: int | None) -> str:
        return "—" if v is None else f"{v:,}"

    if b == c:
        return fmt(c)
    change = f" ({c - b:+,})" if b is not None and c is not None else ""
    return f"{fmt(b)} → {fmt(c)}{change}"


def _names(names: Iterable[str], *, table_cell: bool = False) -> str:
    """Rule names as Markdown code spans (each exactly its name, whatever it holds: outputs/escape.py)."""
    names = list(names)
    return ", ".join(markdown_code(n, table_cell=table_cell) for n in names) if names else "—"


def _label(s: SourceDiff, *, markdown: bool = False) -> str:
    suffix = {"added": " (new)", "removed": " (gone)", "not run": " (not run)"}.get(
        s.status, " (partial)" if s.partial else ""
    )
    return (markdown_text(s.label) if markdown else s.label) + suffix


def base_label(base: Path | None, target: str | None = None, relation: object = None) -> str:
    """What the diff compares with, as Markdown (the pull-request comment's summary line)."""
    if base is not None:
        return markdown_code(str(base))
    return f"target {markdown_code(str(target))} ({markdown_text(relation)})"


def to_markdown(diff: Diff) -> str:
    """The pull-request comment: a summary line, one table row per data source, then the details of
    every data source that changed. Names are data: each is escaped (outputs/escape.py), so none breaks the
    table or adds a heading, link, HTML or mention; ``diff.base`` is Markdown already (``base_label``)."""
    lines = ["## Data quality diff", ""]
    if diff.regression:
        reasons = []
        if diff.newly_failing:
            n = len(diff.newly_failing)
            reasons.append(f"{n} rule{'s' if n != 1 else ''} newly failing")
        if diff.score_drops:
            n = len(diff.score_drops)
            reasons.append(f"{n} score drop{'s' if n != 1 else ''} above {diff.max_score_drop:.2f}")
        lines.append(f"**Regression:** {', '.join(reasons)}.")
    else:
        lines.append("**No regression.**")
    changed = [s for s in diff.sources if s.status not in ("unchanged", "not run")]
    not_run = len(diff.sources) - len(changed) - sum(1 for s in diff.sources if s.status == "unchanged")
    summary = f"Compared with {diff.base}: {len(diff.sources)} data sources, {len(changed)} changed"
    lines += ["", summary + (f", {not_run} not run." if not_run else "."), ""]
    lines += [
        "| data source | score | change | rows | newly failing | newly passing | added | removed |",
        "|---|---:|---:|---:|---|---|---|---|",
    ]

    def cell(names: Iterable[str]) -> str:
        return _names(names, table_cell=True)

    for s in diff.sources:
        label = _label(s, markdown=True)
        delta = "not compared" if s.partial and s.score.delta else _delta(s.score.delta)
        if s.score_drop() > diff.max_score_drop:
            delta = f"**{delta}**"
        lines.append(
            f"| {label} | {_from_to(s.score)} | {delta} | {_rows(s.rows)} | {cell(s.newly_failing)} | "
            f"{cell(s.newly_passing)} | {cell(n for n, _ in s.added)} | {cell(s.removed)} |"
        )
    for s in changed:
        lines += ["", f"### {markdown_text(s.label)}", ""]
        if s.partial:
            lines.append(f"- Score: {_from_to(s.score)} (partial run: not compared)")
        else:
            lines.append(f"- Score: {_from_to(s.score)}" + (f" ({_delta(s.score.delta)})" if s.score.delta else ""))
        if s.rows[0] != s.rows[1]:
            lines.append(f"- Rows: {_rows(s.rows)}")
        for title, changes in (("Dimensions", s.dimensions), ("Columns", s.columns)):
            # a partial run says nothing about what it did not evaluate
            moved = [x for x in changes if x.base != x.current and not (s.partial and x.current is None)]
            if moved:
                lines.append(
                    f"- {title}: "
                    + "; ".join(
                        f"{markdown_text(x.name)} {_from_to(x)}" + (f" ({_delta(x.delta)})" if x.delta else "")
                        for x in moved
                    )
                )
        if s.newly_failing:
            lines.append(f"- Newly failing: {_names(s.newly_failing)}")
        if s.newly_passing:
            lines.append(f"- Newly passing: {_names(s.newly_passing)}")
        if s.added:
            lines.append(
                "- Added: " + ", ".join(f"{markdown_code(n)} ({'passing' if ok else 'failing'})" for n, ok in s.added)
            )
        if s.removed:
            lines.append(f"- Removed: {_names(s.removed)}")
        if s.not_evaluated:
            lines.append(
                "- Not evaluated in this run (skipped, errored or not selected; score not compared): "
                f"{_names(s.not_evaluated)}"
            )
    return "\n".join(lines) + "\n"


def to_json(diff: Diff) -> dict[str, Any]:
    def change(c: Change) -> dict[str, Any]:
        return {"name": c.name, "base": c.base, "current": c.current, "change": c.delta}

    return {
        "base": diff.base,
        "max_score_drop": diff.max_score_drop,
        "regression": diff.regression,
        "newly_failing": [{"data_source": s, "rule": r} for s, r in diff.newly_failing],
        "score_drops": [{"data_source": s.label, "drop": s.score_drop()} for s in diff.score_drops],
        "sources": [
            {
                "data_source": s.key,
                "label": s.label,
                "status": s.status,
                "score": change(s.score),
                "rows": {"base": s.rows[0], "current": s.rows[1]},
                "dimensions": [change(x) for x in s.dimensions],
                "columns": [change(x) for x in s.columns],
                "rules": {
                    "newly_failing": s.newly_failing,
                    "newly_passing": s.newly_passing,
                    "added": [{"rule": n, "passed": ok} for n, ok in s.added],
                    "removed": s.removed,
                    "not_evaluated": s.not_evaluated,
                    "failing": s.failing,
                },
                "partial": s.partial,
            }
            for s in diff.sources
        ],
    }


def print_diff(diff: Diff, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"Data quality diff against {diff.base}"), show_edge=False)
    for col in ("data source", "score", "change", "rows", "newly failing", "newly passing", "added", "removed"):
        table.add_column(col, justify="right" if col in ("score", "change", "rows") else "left")
    for s in diff.sources:
        delta = "not compared" if s.partial and s.score.delta else _delta(s.score.delta)
        style = (
            "red"
            if s.score_drop() > diff.max_score_drop
            else "green"
            if (s.score.delta or 0) > 0 and not s.partial
            else ""
        )
        table.add_row(
            escape(_label(s)),
            _from_to(s.score),
            f"[{style}]{delta}[/{style}]" if style else delta,
            _rows(s.rows),
            escape(", ".join(s.newly_failing) or "—"),
            escape(", ".join(s.newly_passing) or "—"),
            escape(", ".join(n for n, _ in s.added) or "—"),
            escape(", ".join(s.removed) or "—"),
        )
    console.print(table)
    if diff.regression:
        parts = [f"{len(diff.newly_failing)} rule(s) newly failing"] if diff.newly_failing else []
        parts += [f"score of {s.label} down {s.score_drop():.2f}" for s in diff.score_drops]
        console.print(f"[red]Regression:[/red] {escape('; '.join(parts))}.")
    else:
        console.print("[green]No regression.[/green]")


# ---------------------------------------------------------------- the command


@click.command("diff")
@click.argument("base", required=False, type=click.Path(path_type=Path))
@click.option(
    "--base-target",
    default=None,
    help="compare with the latest jobs in this dbt target's results table instead of a directory",
)
@click.option(
    "--base-results-table",
    default=None,
    help="results table of --base-target ([database.]schema.table; default: dataplex_dq_results in its schema)",
)
@click.option(
    "--max-score-drop",
    default=0.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="score points a data source may lose before it counts as a regression",
)
@click.option(
    "--markdown",
    "markdown_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Markdown for a pull-request comment (default: TARGET_PATH/dataplex_dq_diff.md)",
)
@click.option(
    "--json",
    "json_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="the diff as JSON (default: TARGET_PATH/dataplex_dq_diff.json)",
)
@dbt_options.project_dir()
@dbt_options.profiles_dir()
@dbt_options.target_path("dbt artifacts folder of this run (PROJECT_DIR/target when unset)")
def diff_command(
    *,
    base: Path | None,
    base_target: str | None,
    base_results_table: str | None,
    max_score_drop: float,
    markdown_path: Path | None,
    json_path: Path | None,
    project_dir: Path,
    profiles_dir: Path | None,
    target_path: Path | None,
) -> None:
    """Compare this run's DataQualityResults (TARGET_PATH/dataplex_dq) with BASE, a directory of
    DataQualityResult JSON (e.g. a production run's), or with --base-target's results table.

    Exit codes: 0 no regression; 1 a rule newly fails or a score drops by more than --max-score-drop;
    2 the diff could not be made."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True, emoji=False)
    if not console.is_terminal:
        console.width = 200  # CI logs: no wrapping of rule names
    target_path = Path(target_path) if target_path else Path(project_dir) / "target"
    try:
        if (base is None) == (base_target is None):
            raise ArtifactsError(
                "give either BASE (a directory of DataQualityResult JSON) or --base-target TARGET, not both or neither"
            )
        current = read_results_dir(target_path / RESULTS_DIR)
        if base is not None:
            base_states, label = read_results_dir(base), base_label(base)
        else:
            base_states, relation = read_results_table(
                Path(project_dir), profiles_dir, base_target, target_path / "manifest.json", base_results_table
            )
            label = base_label(None, base_target, relation)
        declared = declared_rule_names(target_path / "manifest.json")
        diff = compare(base_states, current, base_label=label, max_score_drop=max_score_drop, declared=declared)
        markdown_path = markdown_path or target_path / "dataplex_dq_diff.md"
        json_path = json_path or target_path / "dataplex_dq_diff.json"
        markdown_path.write_text(to_markdown(diff), encoding="utf-8")
        json_path.write_text(json.dumps(to_json(diff), indent=2) + "\n", encoding="utf-8")
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq diff failed:[/red] {escape(first_line(exc))}")
        raise SystemExit(2) from None
    except OSError as exc:
        console.print(f"[red]dataplex-dq diff failed:[/red] {escape(str(exc))}")
        raise SystemExit(2) from None
    print_diff(diff, console)
    console.print(f"Markdown: {escape(str(markdown_path))}; JSON: {escape(str(json_path))}.")
    raise SystemExit(1 if diff.regression else 0)


__all__ = [
    "Diff",
    "SourceState",
    "base_label",
    "compare",
    "diff_command",
    "read_results_dir",
    "state_from_rows",
    "to_json",
    "to_markdown",
]
