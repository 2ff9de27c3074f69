"""The one interface every output of a report implements (:class:`Output`), what it is given
(:class:`OutputContext`), and how the report runs them (:func:`run_outputs`): in the order of
outputs/registry.py, each failure reported on the report and never stopping the others."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.run.model import Report
from dataplex_dq.warehouse.connection import Warehouse

if TYPE_CHECKING:
    from dataplex_dq.outputs.html_data import HtmlOptions


@dataclass(frozen=True)
class OutputContext:
    """What an output may use: the warehouse (through dbt's adapter), the report of the recorded run, and the
    command's choices."""

    wh: Warehouse
    report: Report
    export: bool  # False with --no-export: nothing is written to the warehouse but a notification's outcome
    resend: bool  # --resend: notifications already sent for a job are sent again
    project: str | None
    target: str | None
    target_path: Path
    html: HtmlOptions | None
    env: Mapping[str, str]
    relation_of: Callable[[str], Any]  # a results table's name as written in a project -> its relation


class Output(Protocol):
    """One output of a report. ``write`` reads ``ctx.report`` (and may set what the output did on its
    SourceReports); it raises DataplexDqError when it cannot complete, which the report records and goes on."""

    name: str

    def write(self, ctx: OutputContext) -> None: ...


def run_outputs(outputs: Sequence[Output], ctx: OutputContext) -> None:
    """Every output in turn; one that fails is recorded in ``report.output_errors`` (exit 2), the next still runs."""
    for output in outputs:
        try:
            output.write(ctx)
        except DataplexDqError as exc:
            ctx.report.output_errors.append(f"{output.name}: {first_line(exc)}")
