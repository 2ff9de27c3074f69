"""What differs between warehouses on the Python side, one class per warehouse (the SQL's differences are
dispatched macros, one file per primitive under macros/). Adding a warehouse: docs/ARCHITECTURE.md."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Dialect:
    """A warehouse as dataplex-dq's Python sees it (dbt's adapter does the rest)."""

    name: str  # dbt's adapter type
    # the connection's handle is a DB-API connection: rows are read from its cursor (no agate conversion)
    dbapi_cursor: bool = True
    # catalog publishing writes table labels and the description (BigQuery), else the table comment
    catalog_labels: bool = False

    def missing_database(self, credentials: Any) -> str | None:
        """Why the target's database cannot be the one dbt built, or None."""
        return None


@dataclass(frozen=True)
class DuckDB(Dialect):
    name: str = "duckdb"

    def missing_database(self, credentials: Any) -> str | None:
        """dbt resolves a relative DuckDB `path` against the current directory and silently creates an empty file
        there: run from another directory, the report would find nothing (`schema ... does not exist`)."""
        path = str(getattr(credentials, "path", "") or "")
        if not path or path == ":memory:" or (":" in path.split("/", maxsplit=1)[0] and not Path(path).drive):
            return None  # in-memory, md:/motherduck: and other URLs
        file = Path(path)
        if file.exists():
            return None
        where = file if file.is_absolute() else f"{file} (relative to the current directory {Path.cwd()})"
        return (
            f"the DuckDB file {where} did not exist before this run: dbt resolves a relative DuckDB `path` against "
            "the directory it runs in (and silently creates an empty file there); run dataplex-dq from the directory "
            "you ran dbt in, or make `path` absolute in profiles.yml"
        )


@dataclass(frozen=True)
class PostgreSQL(Dialect):
    name: str = "postgres"


@dataclass(frozen=True)
class BigQuery(Dialect):
    name: str = "bigquery"
    dbapi_cursor: bool = False  # dbt-bigquery's handle is the BigQuery client
    catalog_labels: bool = True


DIALECTS: dict[str, Dialect] = {d.name: d for d in (DuckDB(), PostgreSQL(), BigQuery())}


def dialect_of(adapter_type: str) -> Dialect:
    """The dialect of dbt's adapter type; another adapter is treated as a DB-API warehouse without labels."""
    return DIALECTS.get(adapter_type) or Dialect(adapter_type)
