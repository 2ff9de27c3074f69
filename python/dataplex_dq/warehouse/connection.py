"""Warehouse access through dbt's own adapter and the user's profile (no second set of credentials).

Opens the adapter of the target in ``profiles.yml``, and renders the package's macros with the
manifest dbt wrote, so every adapter dbt supports works and the SQL stays in the macros."""

from __future__ import annotations

import os
from argparse import Namespace
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dataplex_dq.errors import WarehouseError, first_line
from dataplex_dq.warehouse.dialects import Dialect, dialect_of


@dataclass
class Warehouse:
    project_dir: Path
    profiles_dir: Path | None
    target: str | None
    manifest_path: Path
    profile: str | None = None
    macros: dict[str, Any] | None = None  # manifest.json's macros when already read (else read from manifest_path)
    _adapter: Any = field(default=None, init=False, repr=False)
    _conn: Any = field(default=None, init=False, repr=False)
    _macro_ids: frozenset[str] = field(default=frozenset(), init=False, repr=False)

    def __enter__(self) -> Warehouse:
        from dbt.context.providers import generate_runtime_macro_context

        config, adapter = _open_adapter(self.project_dir, self.profiles_dir, self.target, self.profile)
        try:
            manifest = _macros_only_manifest(self.manifest_path, self.macros)
        except Exception as exc:  # an unreadable manifest.json: the project is unusable as it stands
            raise WarehouseError(f"cannot read the macros of {self.manifest_path}: {first_line(exc)}") from exc
        missing = dialect_of(str(config.credentials.type)).missing_database(config.credentials)
        if missing:
            raise WarehouseError(missing)
        adapter.set_macro_resolver(manifest)
        self._macro_ids = frozenset(manifest.macros)
        adapter.set_macro_context_generator(generate_runtime_macro_context)
        self._adapter = adapter
        self._conn = adapter.connection_named("dataplex_dq")
        self._conn.__enter__()
        try:
            _connect(adapter, config.credentials)
        except WarehouseError:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._conn is not None:
            self._conn.__exit__(*exc)
        self._conn = None

    @property
    def adapter(self) -> Any:
        if self._adapter is None:
            raise RuntimeError("Warehouse used outside `with`")
        return self._adapter

    @property
    def adapter_type(self) -> str:
        return str(self.adapter.type())

    @property
    def dialect(self) -> Dialect:
        return dialect_of(self.adapter_type)

    @property
    def target_name(self) -> str:
        """The target dbt resolved (the profile's default when none was given)."""
        return str(getattr(self.adapter.config, "target_name", None) or self.target or "")

    @property
    def credentials(self) -> Any:
        return self.adapter.config.credentials

    def query(self, sql: str) -> list[dict[str, Any]]:
        """Run a SELECT and return its rows as dicts keyed by lower-case column name.

        On DB-API adapters (DuckDB, PostgreSQL, ...) the cursor is read directly (:meth:`_cursor_execute`),
        skipping dbt's agate conversion (the slow part for thousands of rows); others go through
        adapter.execute."""
        try:
            if self._dbapi:
                cursor = self._cursor_execute(sql)
                names = [d[0].lower() for d in cursor.description]
                return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            _, table = self.adapter.execute(sql, fetch=True)
        except Exception as exc:
            raise WarehouseError(
                f"query failed on {self.adapter_type}: {exc}\n--- SQL (first 500 chars) ---\n{sql[:500]}"
            ) from exc
        names = [c.lower() for c in table.column_names]
        return [dict(zip(names, row, strict=True)) for row in table.rows]

    def execute(self, sql: str) -> None:
        """Run one statement that returns no rows (the export's INSERTs), on the post-hook's connection
        and in its transaction (see :meth:`begin`)."""
        try:
            if self._dbapi:
                self._cursor_execute(sql)
            else:
                self.adapter.execute(sql, fetch=False)
        except Exception as exc:
            raise WarehouseError(
                f"statement failed on {self.adapter_type}: {exc}\n--- SQL (first 500 chars) ---\n{sql[:500]}"
            ) from exc

    @property
    def _dbapi(self) -> bool:
        """Whether the adapter's connection handle is a DB-API connection (not BigQuery's client)."""
        return self.dialect.dbapi_cursor and hasattr(self.adapter.connections, "exception_handler")

    def _cursor_execute(self, sql: str) -> Any:
        """``sql`` on the DB-API cursor of the post-hook's connection, inside dbt's exception handler
        (which rolls a failed transaction back, as for dbt's own queries). dbt's add_query would also
        fire its SQLQuery log event, which copies and scans the whole statement text (protobuf's string
        checks): seconds for the megabytes of SQL a 10,000-rule report reads and writes."""
        connections = self.adapter.connections
        handle = connections.get_thread_connection().handle
        if handle is None:  # dbt's open() failed and recorded it (was: 'NoneType' object has no attribute 'cursor')
            raise WarehouseError(f"the connection to the {self.adapter_type} target is closed (it failed to open)")
        with connections.exception_handler(sql):
            cursor = handle.cursor()
            cursor.execute(sql)
        return cursor

    def query_with_types(self, sql: str) -> tuple[list[tuple[str, str]], list[tuple[Any, ...]]]:
        """Rows of a SELECT with (column name, agate type name) pairs."""
        try:
            _, table = self.adapter.execute(sql, fetch=True)
        except Exception as exc:
            raise WarehouseError(f"query failed on {self.adapter_type}: {exc}") from exc
        cols = [(n, type(t).__name__) for n, t in zip(table.column_names, table.column_types, strict=True)]
        return cols, [tuple(r) for r in table.rows]

    def macro(self, name: str, **kwargs: Any) -> Any:
        """Run a macro of the dataplex_dq package and return what it returns. The macros are manifest.json's: one
        it lacks was written by an older package than the one installed now, and dbt's own message for that ("could
        not find a macro") does not say so."""
        if f"macro.dataplex_dq.{name}" not in self._macro_ids:
            raise WarehouseError(
                f"{self.manifest_path} has no macro dataplex_dq.{name}: it was written by an older dataplex_dq "
                "package than the one installed. Run dbt again with this package (e.g. `dbt build`), then dataplex-dq "
                "again"
            )
        try:
            return self.adapter.execute_macro(name, kwargs=kwargs, project="dataplex_dq")
        except Exception as exc:
            raise WarehouseError(f"macro dataplex_dq.{name} failed on {self.adapter_type}: {exc}") from exc

    def begin(self) -> None:
        """Open a transaction on the post-hook's connection unless one is open.

        dbt's run_query never opens one (auto_begin=False), and whether some earlier metadata call
        did depends on dbt's relation cache: after `dbt build` ran in the same process
        (`dataplex-dq build`) the cache answers and nothing does, so the writes must open their own
        (PostgreSQL then commits them; BigQuery has no transactions and ignores both)."""
        try:
            connections = self.adapter.connections
            if not connections.get_thread_connection().transaction_open:
                connections.begin()
        except Exception as exc:
            raise WarehouseError(f"begin failed on {self.adapter_type}: {exc}") from exc

    def commit(self) -> None:
        """Commit what the post-hook wrote (see :meth:`begin`)."""
        try:
            conn = self.adapter.connections.get_if_exists()
            if conn is not None and not getattr(conn, "transaction_open", True):
                # dbt's bookkeeping says no transaction (after `dataplex-dq build` ran dbt in this
                # process, PostgreSQL's connection can be in that state) while the driver has one open:
                # commit it on the driver (psycopg2 reports it), else there is nothing to commit.
                status = getattr(getattr(conn, "handle", None), "get_transaction_status", None)
                if status is not None and status() != 0:
                    conn.handle.commit()
                return
            self.adapter.commit_if_has_connection()
        except Exception as exc:
            raise WarehouseError(f"commit failed on {self.adapter_type}: {exc}") from exc

    def relation_exists(self, relation: Any) -> bool:
        """Whether the warehouse has ``relation`` (a table or view)."""
        try:
            found = self.adapter.get_relation(relation.database, relation.schema, relation.identifier)
        except Exception as exc:
            raise WarehouseError(f"cannot look {relation} up on {self.adapter_type}: {exc}") from exc
        return found is not None

    def relation(self, database: str | None, schema: str | None, identifier: str) -> Any:
        return self.adapter.Relation.create(database=database, schema=schema, identifier=identifier)


def check_connection(project_dir: Path, profiles_dir: Path | None, target: str | None, profile: str | None) -> None:
    """Connect to the target once and let go: WarehouseError (one line, the real cause) when it cannot be
    reached. `dataplex-dq build` calls it before dbt runs, so an unreachable warehouse touches nothing."""
    from dbt.adapters.factory import reset_adapters

    config, adapter = _open_adapter(project_dir, profiles_dir, target, profile)
    try:  # a DuckDB file that does not exist yet is fine here: dbt is about to create it
        with adapter.connection_named("dataplex_dq_check"):
            _connect(adapter, config.credentials)
    finally:
        adapter.cleanup_connections()
        reset_adapters()


def _open_adapter(
    project_dir: Path, profiles_dir: Path | None, target: str | None, profile: str | None
) -> tuple[Any, Any]:
    """dbt's runtime config and registered adapter of the target (nothing connects yet)."""
    from dbt.adapters.factory import get_adapter, register_adapter
    from dbt.config.runtime import RuntimeConfig
    from dbt.flags import set_from_args
    from dbt.mp_context import get_mp_context
    from dbt_common.context import set_invocation_context

    args = Namespace(
        project_dir=str(project_dir),
        profiles_dir=str(profiles_dir) if profiles_dir else None,
        target=target,
        profile=profile,
        threads=None,
        vars={},
    )
    _plain_dbt_logs()
    try:
        set_invocation_context(os.environ)  # lets profiles.yml use env_var()
        set_from_args(args, {})
        config = RuntimeConfig.from_args(args)
        register_adapter(config, get_mp_context())
        return config, get_adapter(config)
    except Exception as exc:  # dbt raises many types here; all mean the profile/project is unusable
        first = " ".join(str(exc).split())[:500]
        raise WarehouseError(
            f"cannot open the dbt target (project {project_dir}, profiles dir {profiles_dir or '~/.dbt'}, "
            f"target {target or 'default'}): {first}"
        ) from exc


def _connect(adapter: Any, credentials: Any) -> None:
    """Open the connection of the current thread's name and make one round trip (the dialect's probe):
    a warehouse that cannot be reached is one line naming it and the real cause, before anything is read
    or written."""
    dialect = dialect_of(str(adapter.type()))
    try:
        dialect.probe(adapter)
    except Exception as exc:  # the driver's own error types: all mean the target cannot be reached
        raise WarehouseError(
            f"cannot connect to the {dialect.name} target ({dialect.where(credentials)}): {root_cause(exc)}"
        ) from exc


def root_cause(exc: BaseException) -> str:
    """The first line of the innermost exception ``exc`` was raised from (dbt and the drivers wrap the
    socket's or the file lock's error in several layers, each repeating part of it)."""
    seen = {id(exc)}
    inner: BaseException = exc
    while True:  # as a traceback shows the chain: the explicit cause, else the context unless `from None`
        nxt = inner.__cause__ or (None if inner.__suppress_context__ else inner.__context__)
        if nxt is None or id(nxt) in seen:
            break
        seen.add(id(nxt))
        inner = nxt
    return first_line(inner) or first_line(exc)


def _plain_dbt_logs() -> None:
    """No colour codes in dbt's own log lines ("Registered adapter ...") when stdout is not a
    terminal: outside `dbt` itself, dbt's default stdout logger writes them unconditionally."""
    import sys

    from dbt_common.events.event_manager_client import get_event_manager

    if sys.stdout.isatty():
        return
    for logger in getattr(get_event_manager(), "loggers", []):
        if getattr(logger, "use_colors", False):
            logger.use_colors = False


def _macros_only_manifest(path: Path, macros: dict[str, Any] | None = None) -> Any:
    """A Manifest holding just the macros of manifest.json (or ``macros``, already read from it): all
    the post-hook renders. Much faster than loading every node of a large project."""
    import json

    from dbt.contracts.graph.manifest import Manifest
    from dbt.contracts.graph.nodes import Macro

    if macros is None:
        with Path(path).open("rb") as fh:
            macros = json.load(fh).get("macros", {})
    manifest = Manifest()
    manifest.macros = {uid: Macro.from_dict(m) for uid, m in (macros or {}).items()}
    return manifest
