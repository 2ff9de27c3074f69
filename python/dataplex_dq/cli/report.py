"""`dataplex-dq report`: the recorded run of the last (or a given) dbt invocation, to every output."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.console import Console

from dataplex_dq.cli.console import EXIT_ERROR, _console, exit_code, print_summary
from dataplex_dq.cli.options import _html, _html_options, _resend, common_options
from dataplex_dq.errors import DataplexDqError
from dataplex_dq.outputs.escape import console_markup


def _run_report(
    *,
    project_dir: str | Path | None,
    profiles_dir: str | Path | None,
    target: str | None,
    target_path: str | Path | None,
    export: bool,
    fail_on_rule_failure: bool,
    console: Console,
    html: str | None = None,
    samples: bool = True,
    from_results_table: str | None = None,
    warn_error: bool = False,
    resend: bool = False,
) -> int:
    """`from_results_table`: None (the invocation of the artifacts), or the invocation id to report from the
    results table ("" = the latest). Paths are resolved as dbt resolves them (paths.py)."""
    from dataplex_dq.record.paths import resolve_paths
    from dataplex_dq.run.report import run_report

    started = time.perf_counter()
    try:
        paths = resolve_paths(project_dir, profiles_dir, target_path, target)
        report = run_report(
            paths.project_dir,
            paths.profiles_dir,
            paths.target,
            paths.target_path,
            export=export,
            profile=paths.profile,
            html=_html_options(html, samples, paths.project_dir, paths.target_path),
            resend=resend,
            from_results_table=from_results_table is not None,
            invocation=from_results_table or None,
        )
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq report failed:[/red] {console_markup(exc)}")
        return EXIT_ERROR
    print_summary(report, console)
    if report.html_path:
        console.print(f"HTML report written to {console_markup(report.html_path)}")
    console.print(f"Report took {time.perf_counter() - started:.2f}s.")
    return exit_code(report, fail_on_rule_failure, warn_error)


@click.command()
@common_options
@click.option("--export/--no-export", default=True, show_default=True, help="write the rows to the results table")
@click.option(
    "--fail-on-rule-failure/--no-fail-on-rule-failure",
    default=True,
    show_default=True,
    help="exit 1 when a rule failed",
)
@_html[0]
@_html[1]
@click.option(
    "--from-results-table",
    "from_results_table",
    is_flag=True,
    default=False,
    help="report the latest invocation in the results table (or --invocation), not target/run_results.json's",
)
@click.option("--invocation", default=None, help="with --from-results-table: the dbt invocation id to report")
@click.option(
    "--latest",
    is_flag=True,
    default=False,
    help="with --from-results-table: the latest invocation in the table (the default)",
)
@click.option(
    "--warn-error",
    is_flag=True,
    default=False,
    envvar="DBT_WARN_ERROR",
    help="exit 1 also when a rule of a `severity: warn` test failed (as dbt --warn-error)",
)
@_resend
def report(
    *,
    project_dir: str | Path | None,
    profiles_dir: str | Path | None,
    target: str | None,
    target_path: str | Path | None,
    export: bool,
    fail_on_rule_failure: bool,
    html: str | None,
    samples: bool,
    from_results_table: bool,
    invocation: str | None,
    latest: bool,
    warn_error: bool,
    resend: bool,
) -> None:
    """Read the last dbt invocation's recorded results, write DataQualityResult protos, run the post-scan actions.

    The rows come from the results table (the package's on-run-end hook records every `dbt build`; a run it did
    not record is recorded first). With --from-results-table, the invocation is the latest in the table (or
    --invocation) instead of target/run_results.json's: for a run whose artifacts are gone.

    Exit codes (as dbt): 0 no error-severity rule failed (a `severity: warn` failure is a warning);
    1 a rule with severity error failed; 2 a rule errored or the report could not complete; 130 interrupted.
    """
    console = _console()
    if (invocation or latest) and not from_results_table:
        console.print("[red]dataplex-dq report:[/red] --invocation and --latest go with --from-results-table")
        sys.exit(EXIT_ERROR)
    if invocation and latest:
        console.print("[red]dataplex-dq report:[/red] give either --invocation ID or --latest, not both")
        sys.exit(EXIT_ERROR)
    source = (invocation or "") if from_results_table else None
    sys.exit(
        _run_report(
            project_dir=project_dir,
            profiles_dir=profiles_dir,
            target=target,
            target_path=target_path,
            export=export,
            fail_on_rule_failure=fail_on_rule_failure,
            console=console,
            html=html,
            samples=samples,
            from_results_table=source,
            warn_error=warn_error,
            resend=resend,
        )
    )
