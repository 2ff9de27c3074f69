"""`dataplex-dq suggest`: Dataplex rules proposed from the latest profiles of the selected data sources (and
their history), printed as a diff of schema.yml and, with --write, merged in by the import-spec writer."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import yaml
from rich.console import Console

from dataplex_dq.cli.console import EXIT_ERROR, EXIT_OK, _console
from dataplex_dq.cli.options import common_options
from dataplex_dq.cli.profile import exclude_option, select_option
from dataplex_dq.errors import DataplexDqError
from dataplex_dq.outputs.escape import console_markup
from dataplex_dq.profile.select import DataSource
from dataplex_dq.profile.suggest import Suggestion
from dataplex_dq.profile.write import WRITABLE, declared_of, merge_suggestions


def run_suggest(
    *,
    project_dir: str | Path | None,
    profiles_dir: str | Path | None,
    target: str | None,
    target_path: str | Path | None,
    select: tuple[str, ...],
    exclude: tuple[str, ...],
    history: int,
    form: str,
    write: bool,
    console: Console,
) -> int:
    from dataplex_dq.profile.run import read_history
    from dataplex_dq.profile.select import selected_data_sources
    from dataplex_dq.profile.suggest import suggest_table
    from dataplex_dq.record.paths import resolve_paths
    from dataplex_dq.warehouse.connection import Warehouse

    try:
        paths = resolve_paths(project_dir, profiles_dir, target_path, target)
        sources = selected_data_sources(
            paths.project_dir, paths.profiles_dir, paths.target, paths.target_path, select=select, exclude=exclude
        )
        manifest = paths.target_path / "manifest.json"
        with Warehouse(paths.project_dir, paths.profiles_dir, paths.target, manifest, paths.profile) as wh:
            profiles = read_history(wh, sources, history)
        items: list[tuple[DataSource, list[Suggestion]]] = []
        not_profiled = []
        for source in sources:
            if not source.suggest:
                continue
            if not profiles.get(source.unique_id):
                not_profiled.append(source.label)
                continue
            declared = declared_of(paths.project_dir, source)
            found = suggest_table(
                source.unique_id,
                source.name,
                profiles[source.unique_id],
                excluded=source.excluded,
                existing=declared.kinds,
                existing_names=declared.names,
            )
            items.append((source, found))
        if not_profiled:
            console.print(f"No profile of {console_markup(', '.join(not_profiled))}: run `dataplex-dq profile` first.")
        writable = [(s, f) for s, f in items if s.resource_type in WRITABLE]
        merged = merge_suggestions(paths.project_dir, writable, form=form, write=write)
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq suggest failed:[/red] {console_markup(exc)}")
        return EXIT_ERROR
    total = sum(len(f) for _, f in items)
    for m in merged:
        click.echo(m.diff(paths.project_dir), nl=False)
    for source, found in items:
        if source.resource_type not in WRITABLE and found:
            click.echo(f"# {source.label}: add these rules to its data_quality_scan (sources are not written):")
            click.echo(yaml.safe_dump({"rules": [s.rule for s in found]}, sort_keys=False), nl=False)
    sources_with = sum(1 for _, f in items if f)
    summary = f"{total} rule{'s' if total != 1 else ''} suggested for {sources_with} data source"
    summary += "s" if sources_with != 1 else ""
    if write and merged:
        console.print(f"{summary}; written to {console_markup(', '.join(str(m.path) for m in merged))}.")
    else:
        console.print(f"{summary}{'' if not merged else ' (nothing written: pass --write to merge them)'}.")
    return EXIT_OK


@click.command("suggest")
@common_options
@select_option
@exclude_option
@click.option(
    "--history",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="learn from the last N profiles of each data source",
)
@click.option(
    "--form",
    type=click.Choice(["tests", "scan"]),
    default="tests",
    show_default=True,
    help="per-rule tests under their columns, or one data_quality_scan per table",
)
@click.option("--write", is_flag=True, help="merge the rules into schema.yml (comments and order kept)")
def suggest(
    *,
    project_dir: str | Path | None,
    profiles_dir: str | Path | None,
    target: str | None,
    target_path: str | Path | None,
    select: tuple[str, ...],
    exclude: tuple[str, ...],
    history: int,
    form: str,
    write: bool,
) -> None:
    """Propose Dataplex rules from the latest profiles (`dataplex-dq profile`) and their history: non-null,
    uniqueness, a set of values, a range, a recognizable format, a row-count floor, each with its evidence in
    its description and a threshold it passes on the data it was learned from. Printed as a diff of schema.yml;
    --write merges them in. A column with `meta: {dataplex_dq: {suggest: false}}` gets none.

    Exit codes: 0 done (also when nothing is suggested); 2 the project or the history cannot be read."""
    sys.exit(
        run_suggest(
            project_dir=project_dir,
            profiles_dir=profiles_dir,
            target=target,
            target_path=target_path,
            select=select,
            exclude=exclude,
            history=history,
            form=form,
            write=write,
            console=_console(),
        )
    )
