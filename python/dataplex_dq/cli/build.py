"""`dataplex-dq build`: `dbt build` in-process with a progress bar, then the report."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from dataplex_dq.errors import DataplexDqError, first_line

if TYPE_CHECKING:
    from dbt_common.events.base_types import EventMsg

from dataplex_dq.cli.console import EXIT_ERROR, _console
from dataplex_dq.cli.options import _dbt_option, _html, _resend
from dataplex_dq.cli.report import _run_report
from dataplex_dq.outputs.escape import console_markup


@dataclass
class BuildCounts:
    """The nodes dbt finished so far, by outcome, for the progress line: a finished node is in one count
    unless it succeeded or passed, so "67/67" never reads as all good while nodes were skipped."""

    failed: int = 0
    warned: int = 0
    skipped: int = 0
    errors: int = 0

    def add(self, status: str) -> None:
        status = status.lower()
        self.failed += status == "fail"
        self.warned += status == "warn"
        self.skipped += status == "skipped"
        self.errors += status in ("error", "runtime error")

    def line(self) -> str:
        return f"{self.failed} failed, {self.warned} warned, {self.skipped} skipped, {self.errors} errors"


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option(
    "--fail-on-rule-failure/--no-fail-on-rule-failure",
    default=True,
    show_default=True,
    help="exit 1 when a rule failed",
)
@click.option("--export/--no-export", default=True, show_default=True)
@click.option("--package-tests", is_flag=True, help="also run the dataplex_dq package's own data tests")
@click.option("--package-models", is_flag=True, help="build the package's result models even when they exist unchanged")
@_html[0]
@_html[1]
@_resend
@click.argument("dbt_args", nargs=-1, type=click.UNPROCESSED)
def build(
    *,
    fail_on_rule_failure: bool,
    export: bool,
    package_tests: bool,
    package_models: bool,
    html: str | None,
    samples: bool,
    resend: bool,
    dbt_args: tuple[str, ...],
) -> None:
    """Run `dbt build [DBT_ARGS]` in-process with a progress bar, then the report. The package's own tests
    are left out, and its result models when unchanged since they were last built (lean_build.py)."""
    from dbt.cli.main import dbtRunner
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from dataplex_dq.record import lean_build
    from dataplex_dq.record.paths import resolve_paths
    from dataplex_dq.warehouse.connection import check_connection

    console = _console()
    args = list(dbt_args)
    try:
        paths = resolve_paths(
            _dbt_option(args, "--project-dir"),
            _dbt_option(args, "--profiles-dir"),
            _dbt_option(args, "--target-path"),
            _dbt_option(args, "--target", "-t"),
        )
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq build:[/red] {console_markup(exc)}")
        sys.exit(EXIT_ERROR)
    try:  # before dbt: an unreachable warehouse is one line, and nothing is built, recorded or written
        check_connection(paths.project_dir, paths.profiles_dir, paths.target, paths.profile)
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq build:[/red] {console_markup(first_line(exc, 1000))}")
        sys.exit(EXIT_ERROR)
    lean = lean_build.plan(
        paths.project_dir, paths.profiles_dir, paths.target_path, args, tests=package_tests, models=package_models
    )
    if package_tests:
        args = lean_build.with_package_tests(args)
    if not sys.stdout.isatty() and not any(a.startswith(("--use-colors", "--no-use-colors")) for a in args):
        args.insert(0, "--no-use-colors")  # no escape codes in CI logs
    counts = BuildCounts()
    with Progress(
        TextColumn("dbt build"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task("build", total=None, status="")

        def on_event(event: EventMsg) -> None:
            name = event.info.name
            data: Any = event.data  # the event's own message (LogStartLine, NodeFinished, ...), named by `name`
            if name == "LogStartLine" and data.total:
                progress.update(task, total=data.total)
            elif name == "NodeFinished":
                counts.add(str(data.run_result.status))
                progress.advance(task)
                progress.update(task, status=counts.line())

        runner = dbtRunner(callbacks=[on_event])
        try:
            excludes = [a for e in lean.excludes for a in ("--exclude", e)]
            result = runner.invoke(["build", "--quiet", *args, *excludes])
        except Exception as exc:  # noqa: BLE001 - dbt raised before producing a result: one line, no traceback
            console.print(f"[red]dbt build could not run:[/red] {console_markup(exc)}")
            sys.exit(EXIT_ERROR)
    if result.exception is not None and result.result is None:
        console.print(f"[red]dbt build failed:[/red] {console_markup(_dbt_failure(result.exception))}")
        sys.exit(EXIT_ERROR)
    statuses = {str(r.node.unique_id): str(r.status).lower() for r in getattr(result.result, "results", [])}
    if result.result is not None:
        lean_build.record(lean, statuses)
    errored_nodes = [uid for uid, status in statuses.items() if status in ("error", "runtime error")]
    dbt_errors = any(not uid.startswith("test.") for uid in errored_nodes)  # models, seeds, snapshots
    if "--empty" in args:  # dbt read every relation with limit 0: its SQL ran, its pass/fail says nothing of the data
        errored = result.result is None or bool(errored_nodes)
        console.print(
            "dbt build --empty read no rows: nothing to report or export; "
            + ("a node errored (above)." if errored else "every model's and rule's SQL ran.")
        )
        sys.exit(EXIT_ERROR if errored else 0)
    warn_error = "--warn-error" in args or os.environ.get("DBT_WARN_ERROR", "").lower() in ("1", "true", "yes")
    code = _run_report(
        project_dir=_dbt_option(args, "--project-dir"),
        profiles_dir=_dbt_option(args, "--profiles-dir"),
        target=_dbt_option(args, "--target", "-t"),
        target_path=_dbt_option(args, "--target-path"),
        export=export,
        fail_on_rule_failure=fail_on_rule_failure,
        console=console,
        html=html,
        samples=samples,
        warn_error=warn_error,
        resend=resend,
    )
    if dbt_errors:
        console.print("[red]dbt build had model/seed errors[/red]: see the messages above.")
        code = EXIT_ERROR
    sys.exit(code)


# Interoperability commands (import-spec, export-spec, diff): each lives in its own module.


def _dbt_failure(exc: BaseException) -> str:
    """What to tell a user about an exception dbt ended with before running any node."""
    if isinstance(exc, OverflowError):
        # dbt saves its parsed project (target/partial_parse.msgpack) with msgpack, which holds integers of
        # at most 64 bits: an unquoted YAML number beyond that (a rule's max_value: 18446744073709551616)
        # stops dbt itself, whatever package the value is for.
        return (
            f"{first_line(exc)}: dbt cannot save a YAML number beyond 64 bits (for example a rule's "
            'max_value: 18446744073709551616); quote it (max_value: "18446744073709551616") and run again.'
        )
    return f"{first_line(exc)}\nFix the error above and run again."
