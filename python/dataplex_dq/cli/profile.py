"""`dataplex-dq profile`: profile the selected models, seeds, snapshots and sources (one scan each, the
package's SQL), record each profile in the profile table and print it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from dataplex_dq.cli.console import EXIT_ERROR, EXIT_OK, _console
from dataplex_dq.cli.options import common_options
from dataplex_dq.errors import DataplexDqError
from dataplex_dq.outputs.escape import console_markup
from dataplex_dq.profile.model import FieldProfile
from dataplex_dq.profile.run import Plan, Profiled
from dataplex_dq.profile.select import DataSource

select_option = click.option(
    "--select",
    "-s",
    "select",
    multiple=True,
    help=(
        "dbt node selection (as dbt -s; several in one quoted argument, or -s repeated); default: the project's "
        "models, seeds, snapshots and sources"
    ),
)
exclude_option = click.option("--exclude", multiple=True, help="dbt node selection to leave out (as dbt --exclude)")


def _bytes_text(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


def plan_line(source: DataSource, plan: Plan) -> str:
    """What the scan of ``source`` will read, printed before it runs."""
    sample = (
        f"{plan.sampling_percent:g} % sample" if plan.sampling_percent and plan.sampling_percent < 100 else "every row"
    )
    reads = f"bills about {_bytes_text(plan.bytes)} ({plan.how})" if plan.bytes is not None else (plan.how or "")
    return f"Profiling {source.label}: {sample}" + (f"; {reads}" if reads else "")


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.6g}"


def field_row(f: FieldProfile) -> list[str]:
    distinct = "" if f.distinct_ratio is None else f"{f.distinct_ratio:.1%} ({f.distinct_count})"
    if f.family == "datetime":
        span = f"{f.min_text or ''} .. {f.max_text or ''}"
    elif f.family == "text":
        span = f"length {f.min_length}..{f.max_length}" if f.min_length is not None else ""
    else:
        span = f"{_num(f.minimum)} .. {_num(f.maximum)}" if f.minimum is not None else ""
        if f.quartiles:
            quartiles = ", ".join(_num(q) for q in f.quartiles)
            span += f" (q {quartiles}; mean {_num(f.average)}, sd {_num(f.standard_deviation)})"
    notes = [f"{s.format} {s.ratio:.1%}" for s in f.formats]
    if f.top_values and (f.distinct_count or 0) <= 20:
        notes.append("top: " + ", ".join(f"{t.value} {t.ratio:.1%}" for t in f.top_values[:5]))
    return [f.name, f.type, f"{f.null_ratio:.1%}", distinct, span, "; ".join(notes)]


def print_profile(p: Profiled, console: Console) -> None:
    table = Table(title=f"{p.source.label}: {p.profile.row_count} rows", show_edge=False, title_justify="left")
    for col in ("field", "type", "nulls", "distinct", "range", "formats / top values"):
        table.add_column(col)
    for f in p.profile.fields:
        table.add_row(*(console_markup(c) for c in field_row(f)))
    console.print(table)


def run_profile(
    *,
    project_dir: str | Path | None,
    profiles_dir: str | Path | None,
    target: str | None,
    target_path: str | Path | None,
    select: tuple[str, ...],
    exclude: tuple[str, ...],
    sampling_percent: float | None,
    max_bytes: int | None,
    as_json: bool,
    console: Console,
) -> int:
    from dataplex_dq.profile.run import ProfileError, plan_profile, profile_source
    from dataplex_dq.profile.select import selected_data_sources
    from dataplex_dq.record.paths import resolve_paths
    from dataplex_dq.warehouse.connection import Warehouse

    failed = 0
    out: list[dict[str, Any]] = []
    try:
        paths = resolve_paths(project_dir, profiles_dir, target_path, target)
        sources = selected_data_sources(
            paths.project_dir, paths.profiles_dir, paths.target, paths.target_path, select=select, exclude=exclude
        )
        if not sources:
            console.print("Nothing to profile: the selection holds no model, seed, snapshot or source of the project.")
            return EXIT_OK
        manifest = paths.target_path / "manifest.json"
        with Warehouse(paths.project_dir, paths.profiles_dir, paths.target, manifest, paths.profile) as wh:
            for source in sources:
                try:
                    plan = plan_profile(wh, source, sampling_percent, max_bytes)
                    if as_json:
                        click.echo(plan_line(source, plan), err=True)
                    else:
                        console.print(console_markup(plan_line(source, plan)))
                    profiled = profile_source(wh, source, plan)
                except ProfileError as exc:
                    failed += 1
                    console.print(f"[red]dataplex-dq profile:[/red] {console_markup(exc)}")
                    continue
                if as_json:
                    out.append(
                        {"data_source": source.unique_id, "profile_table": profiled.profile_table, **profiled.result}
                    )
                else:
                    print_profile(profiled, console)
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq profile failed:[/red] {console_markup(exc)}")
        return EXIT_ERROR
    if as_json:
        click.echo(json.dumps(out, indent=2))
    return EXIT_ERROR if failed else EXIT_OK


@click.command("profile")
@common_options
@select_option
@exclude_option
@click.option(
    "--sampling-percent",
    type=click.FloatRange(0, 100, min_open=True),
    default=None,
    help="profile this percentage of the rows (BigQuery: chosen from --max-bytes-billed when unset)",
)
@click.option(
    "--max-bytes-billed",
    "max_bytes",
    type=click.IntRange(min=1),
    default=1024**3,
    show_default=True,
    help="BigQuery: sample (TABLESAMPLE SYSTEM) so a profile's estimate stays within this many bytes",
)
@click.option("--json", "as_json", is_flag=True, help="print the profiles as DataProfileResult JSON")
def profile(
    *,
    project_dir: str | Path | None,
    profiles_dir: str | Path | None,
    target: str | None,
    target_path: str | Path | None,
    select: tuple[str, ...],
    exclude: tuple[str, ...],
    sampling_percent: float | None,
    max_bytes: int | None,
    as_json: bool,
) -> None:
    """Profile the selected data sources: per column nulls, distinct values, ranges and quartiles, lengths, top
    values and recognizable formats, in one scan per table (BigQuery: sampled, the bytes printed first). Each
    profile is kept in the profile table (`dataplex_dq_profiles` in the target schema), the history
    `dataplex-dq suggest` learns from.

    Exit codes: 0 every data source profiled; 2 one could not be (or the project cannot be read)."""
    sys.exit(
        run_profile(
            project_dir=project_dir,
            profiles_dir=profiles_dir,
            target=target,
            target_path=target_path,
            select=select,
            exclude=exclude,
            sampling_percent=sampling_percent,
            max_bytes=max_bytes,
            as_json=as_json,
            console=_console(),
        )
    )
