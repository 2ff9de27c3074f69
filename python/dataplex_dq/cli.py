"""The ``dataplex-dq`` command line."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from dataplex_dq import __version__, dbt_options
from dataplex_dq.anomaly import is_anomaly_check, training_checks
from dataplex_dq.cost import QueryCost, format_cost, job_cost
from dataplex_dq.errors import DataplexDqError

if TYPE_CHECKING:
    from dbt_common.events.base_types import EventMsg

    from dataplex_dq.html_data import HtmlOptions
    from dataplex_dq.outcomes import RuleOutcome
    from dataplex_dq.report import Report, SourceReport

F = TypeVar("F", bound=Callable[..., object])

EXIT_OK, EXIT_RULE_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
WIDE = 10_000  # when stdout is not a terminal (CI logs): no cut at 80 columns


def _console() -> Console:
    """Colours and the terminal's width on a terminal; elsewhere plain text, lines never cut."""
    tty = sys.stdout.isatty()
    return Console(
        stderr=False, highlight=False, width=None if tty else WIDE, no_color=not tty or None, soft_wrap=not tty
    )


def print_summary(report: Report, console: Console) -> None:
    table = Table(title=f"Dataplex data quality — dbt invocation {report.invocation_id}")
    table.add_column("data source")
    table.add_column("score", justify="right")
    table.add_column("row-weighted", justify="right")
    table.add_column("dimensions")
    table.add_column("rules", justify="right")
    table.add_column("failed / errors")
    table.add_column("cost")  # the job's queries (cost.py): bytes billed on BigQuery, execution time everywhere
    for s in sorted(report.sources, key=lambda s: s.data_source.unique_id):
        card = s.card
        score = "not evaluated" if not card.evaluated else ("—" if card.score is None else f"{card.score:.2f}")
        style = "yellow" if not card.evaluated else ("green" if card.passed and not card.has_errors else "red")
        dims = ", ".join(f"{d.name} {d.score:.2f}" for d in card.dimensions) or "—"
        failed = [
            o.rule_name
            + (" (anomaly)" if is_anomaly_check(o) else "")
            + (" (warn)" if report.severity.get(o.test_unique_id or "", "ERROR") == "WARN" else "")
            for o in s.outcomes
            if o.status == "FAILED"
        ]
        training = training_checks(s.outcomes)
        errored = [f"{o.rule_name} ({o.status.lower()})" for o in s.outcomes if o.status in ("ERROR", "SKIPPED")]
        rw = "—" if card.row_weighted_score is None else f"{card.row_weighted_score:.2f}"
        table.add_row(
            s.data_source.label,
            f"[{style}]{score}[/{style}]",
            rw,
            dims,
            f"{card.passed_rules}/{card.evaluated_rules}"
            + (f" (+{card.suspended_rules} suspended)" if card.suspended_rules else "")
            + (f" (+{len(training)} training)" if training else ""),
            _names_cell(failed + errored),
            _job_cost_text(s),
        )
    console.print(table)
    costliest = costliest_queries(report)
    if costliest:
        console.print("Costliest queries: " + "; ".join(costliest) + ".")
    if report.export_relation and not report.export_error:
        console.print(f"Read {report.export_rows} recorded rows of {report.export_relation}.")
    for relation, rows in getattr(report, "tables_written", []):  # post_scan_actions.bigquery_export
        console.print(f"Exported {rows} rows to {relation} (bigquery_export).")
    from dataplex_dq.actions import outcome_lines

    for style, line in outcome_lines(report):
        console.print(f"[{style}]{line}[/{style}]")
    if report.sources:
        console.print(f"Results written to {report.sources[0].json_path.parent}/ (*.json, *.pb).")
    for w in report.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}")
    for s in report.sources:
        for o in s.outcomes:
            if o.status in ("ERROR", "SKIPPED"):
                first = " ".join(x.strip() for x in (o.message or "").strip().splitlines()[:3])
                if len(first) > 500:
                    first = first[:499] + "…"
                if o.status == "SKIPPED" and not first:
                    first = (
                        "dbt skipped this test (a model or seed it depends on failed, or --fail-fast stopped the run)"
                    )
                console.print(
                    f"[red]{o.status.lower()}:[/red] {s.data_source.label} rule '{o.rule_name}': {first}", markup=True
                )
    for s, o in report.failed_rules("WARN"):
        console.print(f"[yellow]warning:[/yellow] {s.data_source.label} rule '{o.rule_name}' failed (severity: warn)")
    if report.export_error:
        console.print(f"[red]export failed:[/red] {report.export_error}")
    for err in getattr(report, "action_errors", []):
        console.print(f"[red]post-scan action failed:[/red] {err}")
    console.print(summary_line(report))


SUMMARY_NAMES = 10  # rule names in a data source's "failed / errors" cell; the rest are counted


def _names_cell(names: list[str]) -> str:
    """The failed and errored rules of a data source, at most SUMMARY_NAMES of them by name and the others
    counted: a cell of hundreds of names (1,000 rules on a table) makes the table unreadable, and each
    rule is in the result files, the results table and the HTML report (errors are also printed below)."""
    if not names:
        return "—"
    shown = ", ".join(names[:SUMMARY_NAMES])
    more = len(names) - SUMMARY_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def _job_cost_text(s: SourceReport) -> str:
    if s.job is None:
        return "—"
    spent = job_cost((o.test_unique_id for o in s.outcomes), s.job.test_costs)
    return format_cost(spent.execution_seconds, spent.bytes_billed, spent.slot_ms, spent.queries)


def costliest_queries(report: Report, limit: int = 3) -> list[str]:
    """The most expensive test queries of the run (bytes billed, then execution time), each named by
    data source and rule (a scan: its rule count), when the run had more than one."""
    found: dict[str, tuple[SourceReport, list[RuleOutcome], QueryCost]] = {}
    for s in report.sources:
        for o in s.outcomes:
            cost = s.job.test_costs.get(o.test_unique_id or "") if s.job is not None else None
            if cost is not None and cost.execution_seconds is not None:
                found.setdefault(o.test_unique_id or "", (s, [], cost))[1].append(o)
    if len(found) < 2:
        return []
    ranked = sorted(found.values(), key=lambda x: (x[2].bytes_billed or 0, x[2].execution_seconds or 0), reverse=True)
    out = []
    for s, outcomes, cost in ranked[:limit]:
        what = f"rule '{outcomes[0].rule_name}'" if len(outcomes) == 1 else f"scan of {len(outcomes)} rules"
        out.append(
            f"{s.data_source.label} {what} {format_cost(cost.execution_seconds, cost.bytes_billed, cost.slot_ms)}"
        )
    return out


def summary_line(report: Report) -> str:
    """One line counting the rules by outcome; failures of `severity: warn` tests are warnings."""
    counts = dict.fromkeys(("PASSED", "FAILED", "ERROR", "SKIPPED", "SUSPENDED"), 0)
    for s in report.sources:
        for o in s.outcomes:
            counts[str(o.status)] = counts.get(str(o.status), 0) + 1
    warned = len(report.failed_rules("WARN"))
    return (
        f"Rules: {counts['PASSED']} passed, {counts['FAILED'] - warned} failed, {warned} warned, "
        f"{counts['ERROR']} errored, {counts['SKIPPED']} skipped, {counts['SUSPENDED']} suspended."
    )


def exit_code(report: Report, fail_on_rule_failure: bool, warn_error: bool = False) -> int:
    """dbt's exit codes: 2 when a rule errored or the export failed; 1 when a rule of an error-severity
    test failed (or of a warn-severity one with --warn-error); else 0."""
    if report.has_errors:
        return EXIT_ERROR
    failed = bool(report.failed_rules("ERROR")) or (warn_error and bool(report.failed_rules("WARN")))
    if failed and fail_on_rule_failure:
        return EXIT_RULE_FAILED
    return EXIT_OK


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
    from dataplex_dq.paths import resolve_paths
    from dataplex_dq.report import run_report

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
        console.print(f"[red]dataplex-dq report failed:[/red] {exc}", markup=True)
        return EXIT_ERROR
    print_summary(report, console)
    if report.html_path:
        console.print(f"HTML report written to {report.html_path}")
    console.print(f"Report took {time.perf_counter() - started:.2f}s.")
    return exit_code(report, fail_on_rule_failure, warn_error)


def _html_options(html: str | None, samples: bool, project_dir: Path, target_path: Path | None) -> HtmlOptions | None:
    """--html [PATH] (empty: PROJECT_DIR/target/dataplex_dq/index.html) -> html_data.HtmlOptions."""
    if html is None:
        return None
    from dataplex_dq.html_data import HtmlOptions, default_html_path

    return HtmlOptions(
        Path(html) if html else default_html_path(Path(target_path) if target_path else Path(project_dir) / "target"),
        samples=samples,
    )


_resend = click.option(
    "--resend",
    is_flag=True,
    default=False,
    help="send the post-scan notifications again (a job's notification is otherwise sent once)",
)

_html: list[Callable[[F], F]] = [
    click.option(
        "--html",
        default=None,
        is_flag=False,
        flag_value="",
        metavar="[PATH]",
        help="also write the HTML report (default PATH: target/dataplex_dq/index.html)",
    ),
    click.option(
        "--samples/--no-samples",
        default=True,
        show_default=True,
        help="fetch up to 10 failing rows per failing rule into the HTML report",
    ),
]


# report resolves each location as dbt does (paths.py), so none has a default here
_common: list[Callable[[F], F]] = [
    dbt_options.project_dir(
        None,
        "dbt project directory (as dbt: DBT_PROJECT_DIR, else the current directory or its parent holding "
        "dbt_project.yml)",
    ),
    dbt_options.profiles_dir(
        "directory of profiles.yml (as dbt: DBT_PROFILES_DIR, else the current directory if it holds "
        "profiles.yml, else ~/.dbt)"
    ),
    dbt_options.target("dbt target (DBT_TARGET, else the profile's default)"),
    dbt_options.target_path(
        "dbt artifacts folder (as dbt: DBT_TARGET_PATH, else target-path of dbt_project.yml, else target; under "
        "the project dir)"
    ),
]


def common_options(f: F) -> F:
    for opt in reversed(_common):
        f = opt(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="dataplex-dq", message="%(prog)s %(version)s")
def main() -> None:
    """Dataplex auto data quality for dbt: scores, results and reports of the rules dbt ran."""


@main.command()
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


def _dbt_option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                return args[i + 1]
            if a.startswith(n + "="):
                return a.split("=", 1)[1]
    return None


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
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

    from dataplex_dq import lean_build
    from dataplex_dq.paths import resolve_paths

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
        console.print(f"[red]dataplex-dq build:[/red] {exc}")
        sys.exit(EXIT_ERROR)
    lean = lean_build.plan(
        paths.project_dir, paths.profiles_dir, paths.target_path, args, tests=package_tests, models=package_models
    )
    if package_tests:
        args = lean_build.with_package_tests(args)
    if not sys.stdout.isatty() and not any(a.startswith(("--use-colors", "--no-use-colors")) for a in args):
        args.insert(0, "--no-use-colors")  # no escape codes in CI logs
    counts = {"failed": 0, "warned": 0, "errors": 0}
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
                status = str(data.run_result.status).lower()
                counts["failed"] += status == "fail"
                counts["warned"] += status == "warn"
                counts["errors"] += status in ("error", "runtime error")
                progress.advance(task)
                progress.update(
                    task, status=f"{counts['failed']} failed, {counts['warned']} warned, {counts['errors']} errors"
                )

        runner = dbtRunner(callbacks=[on_event])
        try:
            excludes = [a for e in lean.excludes for a in ("--exclude", e)]
            result = runner.invoke(["build", "--quiet", *args, *excludes])
        except Exception as exc:  # noqa: BLE001 - dbt raised before producing a result: one line, no traceback
            console.print(f"[red]dbt build could not run:[/red] {exc}")
            sys.exit(EXIT_ERROR)
    if result.exception is not None and result.result is None:
        console.print(f"[red]dbt build failed:[/red] {result.exception}\nFix the error above and run again.")
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
from dataplex_dq.diff import diff_command  # noqa: E402
from dataplex_dq.export_spec import export_spec_command  # noqa: E402
from dataplex_dq.import_spec import import_spec_command  # noqa: E402

for _command in (import_spec_command, export_spec_command, diff_command):
    main.add_command(_command)


def run() -> None:
    """The console script: `main`, with Ctrl-C exiting 130 (as dbt) and no traceback for a user."""
    sys.exit(_exit_code_of_main())


def _exit_code_of_main() -> int:
    try:
        code = main(standalone_mode=False)  # a command's exit code (click returns it when not standalone)
        return code if isinstance(code, int) else EXIT_OK
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except click.exceptions.Abort:  # click's form of Ctrl-C
        print("dataplex-dq: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("dataplex-dq: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or EXIT_OK
        print(exc.code, file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug, or input nothing above anticipated: one line, not a traceback
        if os.environ.get("DATAPLEX_DQ_DEBUG"):
            raise
        print(
            f"dataplex-dq failed: {type(exc).__name__}: {' '.join(str(exc).split())[:500]} (set DATAPLEX_DQ_DEBUG=1 "
            "for the traceback)",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    run()
