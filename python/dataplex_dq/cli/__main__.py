"""`python -m dataplex_dq.cli`: the console script."""

from dataplex_dq.cli.main import run

run()
