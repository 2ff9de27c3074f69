"""Errors of the post-hook, each with a message a user can act on."""

from __future__ import annotations


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
