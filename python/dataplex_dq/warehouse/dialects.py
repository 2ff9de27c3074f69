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

    def where(self, credentials: Any) -> str:
        """Where the target is, for a message: host:port, else the database."""
        host, port = getattr(credentials, "host", None), getattr(credentials, "port", None)
        if host:
            return f"{host}:{port}" if port else str(host)
        return str(getattr(credentials, "database", None) or "")

    def probe(self, adapter: Any) -> None:
        """Open the connection dbt's adapter holds for this thread (a DB-API driver connects here, DuckDB takes
        its file lock): raises the driver's error when the warehouse cannot be reached."""
        connection = adapter.connections.get_thread_connection()
        if connection.handle is None:  # dbt's open() recorded a failure without raising
            raise ConnectionError(f"dbt's {self.name} adapter opened no connection (state {connection.state})")


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

    def where(self, credentials: Any) -> str:
        return str(getattr(credentials, "path", "") or ":memory:")


@dataclass(frozen=True)
class PostgreSQL(Dialect):
    name: str = "postgres"


@dataclass(frozen=True)
class BigQuery(Dialect):
    name: str = "bigquery"
    dbapi_cursor: bool = False  # dbt-bigquery's handle is the BigQuery client
    catalog_labels: bool = True
    probe_seconds: float = 15.0  # the probe's deadline, retries included (the client's default is 600 s)

    def where(self, credentials: Any) -> str:
        endpoint = getattr(credentials, "api_endpoint", None)
        project = getattr(credentials, "database", None) or getattr(credentials, "project", None)
        return f"project {project}" + (f" at {endpoint}" if endpoint else "")

    def probe(self, adapter: Any) -> None:
        """One API call (the target dataset's metadata) with a short deadline: any answer of the API, a 404 or
        a 403 included, means it is reachable; a refused connection, a timeout or failing credentials raise."""
        from google.api_core.exceptions import GoogleAPICallError
        from google.cloud.bigquery import DatasetReference
        from google.cloud.bigquery.retry import DEFAULT_RETRY

        super().probe(adapter)
        client = adapter.connections.get_thread_connection().handle
        credentials = adapter.config.credentials
        project = getattr(credentials, "database", None) or client.project
        dataset = getattr(credentials, "schema", None) or "dataplex_dq"
        try:
            client.get_dataset(
                DatasetReference(project, dataset),
                retry=DEFAULT_RETRY.with_deadline(self.probe_seconds),
                timeout=self.probe_seconds,
            )
        except GoogleAPICallError:
            return  # the API answered


DIALECTS: dict[str, Dialect] = {d.name: d for d in (DuckDB(), PostgreSQL(), BigQuery())}


def dialect_of(adapter_type: str) -> Dialect:
    """The dialect of dbt's adapter type; another adapter is treated as a DB-API warehouse without labels."""
    return DIALECTS.get(adapter_type) or Dialect(adapter_type)
