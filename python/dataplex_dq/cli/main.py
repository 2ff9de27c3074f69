"""The `dataplex-dq` command line: the group, its commands (one module each), the console script."""

from __future__ import annotations

import os
import sys

import click

from dataplex_dq import __version__
from dataplex_dq.cli.build import build
from dataplex_dq.cli.console import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK
from dataplex_dq.cli.profile import profile
from dataplex_dq.cli.report import report
from dataplex_dq.cli.suggest import suggest
from dataplex_dq.spec.diff import diff_command
from dataplex_dq.spec.export_contract import export_contract_command
from dataplex_dq.spec.export_spec import export_spec_command
from dataplex_dq.spec.import_contract import import_contract_command
from dataplex_dq.spec.import_spec import import_spec_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="dataplex-dq", message="%(prog)s %(version)s")
def main() -> None:
    """Dataplex auto data quality for dbt: scores, results and reports of the rules dbt ran."""


for _command in (
    report,
    build,
    import_spec_command,
    export_spec_command,
    diff_command,
    profile,
    suggest,
    import_contract_command,
    export_contract_command,
):
    main.add_command(_command)


def run() -> None:
    """The console script: `main`, with Ctrl-C exiting 130 (as dbt) and no traceback for a user."""
    sys.exit(exit_code_of_main())


def exit_code_of_main(args: list[str] | None = None) -> int:
    """The exit code of `dataplex-dq ARGS` (the process's arguments when None), its errors printed as the console
    script prints them."""
    try:
        # a command's exit code (click returns it when not standalone)
        code = main(args=args, prog_name="dataplex-dq", standalone_mode=False)
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
