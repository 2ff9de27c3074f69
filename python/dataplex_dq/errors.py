"""Errors of the post-hook, each with a message a user can act on."""

from __future__ import annotations

import re

# the first line of dbt's exceptions: "Runtime Error", "Compilation Error in macro copy_results (macros/x.sql)"
_DBT_HEADER = re.compile(r"[A-Z][A-Za-z ]*Error( in [a-z ]+ \S+ \([^)]*\))?")


def first_line(error: BaseException | str, limit: int = 300) -> str:
    """An error on one line, at most ``limit`` characters: its first line, and when that line ends in dbt's
    bare header ("Runtime Error", "Database Error", ...: dbt puts the warehouse's words on the next line), the
    next line too; the SQL a WarehouseError quotes is never part of it. No message: the type's name."""
    text = str(error).split("\n--- SQL", maxsplit=1)[0]
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if not lines:
        return type(error).__name__ if isinstance(error, BaseException) else ""
    line = lines[0]
    if len(lines) > 1 and _DBT_HEADER.fullmatch(line.rsplit(": ", 1)[-1]):
        line = f"{line}: {lines[1]}"
    return line if len(line) <= limit else line[: limit - 1] + "…"


class DataplexDqError(Exception):
    """Base class: the report could not complete."""


class ArtifactsError(DataplexDqError):
    """dbt's artifacts are missing, unreadable or inconsistent with the warehouse."""


class StaleArtifactsError(ArtifactsError):
    """The metrics rows in the warehouse come from another dbt invocation than run_results.json."""


class WarehouseError(DataplexDqError):
    """A query through dbt's adapter failed."""


class ExportError(DataplexDqError):
    """Writing the results table failed."""


class OutputError(DataplexDqError):
    """The result files cannot be written."""
