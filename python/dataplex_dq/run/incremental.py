"""Incremental scans (docs/SEMANTICS.md §12), the post-hook's side: the window a job scanned, read back from its
metrics rows (the macros compute it when the tests run, macros/incremental.sql)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dataplex_dq.run.outcomes import RuleOutcome


@dataclass(frozen=True)
class JobWindow:
    """The window of one job: rows with ``start < field <= end`` (``start`` None on a first job;
    ``end`` None when the field holds no value at all)."""

    field: str
    start: str | None
    end: str | None


def job_window(outcomes: Iterable[RuleOutcome]) -> JobWindow | None:
    """The window of a data source's job from its rules' metrics rows; None when not incremental.

    Every rule of a job reads the same watermark; should two tests of one job have seen different
    windows (rows appended while dbt ran), the widest is reported: the smallest start, the largest end.
    """
    windows = [
        (o.metrics.incremental_field, o.metrics.incremental_start, o.metrics.incremental_end)
        for o in outcomes
        if o.metrics is not None and o.metrics.incremental_field
    ]
    if not windows:
        return None
    starts = [w[1] for w in windows if w[1] is not None]
    ends = [w[2] for w in windows if w[2] is not None]
    start = min(starts) if len(starts) == len(windows) else None  # a first job's rule (no start): from the beginning
    return JobWindow(windows[0][0], start, max(ends) if ends else None)
