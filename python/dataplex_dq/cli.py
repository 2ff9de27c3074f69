"""The ``dataplex-dq`` command line."""

from __future__ import annotations

import click

from dataplex_dq import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="dataplex-dq", message="%(prog)s %(version)s"
)
def main() -> None:
    """Dataplex auto data quality for dbt: scores, results and reports of the rules dbt ran."""


if __name__ == "__main__":  # pragma: no cover
    main()
