"""The ``dataplex-dq`` command line entry point."""

from __future__ import annotations

from importlib import resources

from click.testing import CliRunner

import dataplex_dq
from dataplex_dq.cli.main import main


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == f"dataplex-dq {dataplex_dq.__version__}\n"
    assert dataplex_dq.__version__ == "0.1.0"


def test_help_lists_the_group() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output and "--version" in result.output


def test_package_is_typed() -> None:
    assert resources.files("dataplex_dq").joinpath("py.typed").is_file()
