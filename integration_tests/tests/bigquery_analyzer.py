"""Google's SQL analyzer (ZetaSQL) configured close to BigQuery, for the tests' analyzer gate.

ZetaSQL is the analyzer BigQuery's GoogleSQL is built on. The PyPI package `zetasql` (0.1.5) runs a
WebAssembly build of it offline, through wasmtime. It is configured here as BigQuery uses it:

* external product mode (FLOAT64, no DOUBLE; no proto types), every language feature on;
* BigQuery's type aliases registered as catalog types (INT, INTEGER, BIGINT, SMALLINT, TINYINT,
  BYTEINT -> INT64; DECIMAL -> NUMERIC; BIGDECIMAL -> BIGNUMERIC), which ZetaSQL itself does not know;
* a catalog `project.dataset.table` of the known tables: the ones a statement creates are added as
  the statements are analyzed in order (seed DDL from the seeds' column types, CREATE TABLE AS of the
  models and tests, CREATE VIEW), and `add_table` adds others (the results-table schema).

Compiling the 60 MB WebAssembly module takes about a minute of CPU; the compiled module is kept in
the user's cache directory (XDG_CACHE_HOME or ~/.cache, `dataplex_dq/zetasql-*.cwasm`) so later runs
load it in well under a second.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import threading
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# BigQuery type names that ZetaSQL does not know (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types)
BIGQUERY_TYPE_ALIASES = {
    "INT": "INT64",
    "INTEGER": "INT64",
    "BIGINT": "INT64",
    "SMALLINT": "INT64",
    "TINYINT": "INT64",
    "BYTEINT": "INT64",
    "DECIMAL": "NUMERIC",
    "BIGDECIMAL": "BIGNUMERIC",
}


class AnalyzerError(Exception):
    """The analyzer refused a statement: `message` is ZetaSQL's own text."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dataplex_dq"


def _engine() -> Any:
    from wasmtime import Config, Engine

    config = Config()
    config.shared_memory = True
    return Engine(config)


def _cached_module_path() -> Path:
    from zetasql.wasi import get_wasm_path

    stat = Path(get_wasm_path()).stat()
    versions = f"{metadata.version('zetasql')}|{metadata.version('wasmtime')}"
    key = hashlib.sha256(f"{versions}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return _cache_dir() / f"zetasql-{metadata.version('zetasql')}-{key}.cwasm"


def _compile_to_cache() -> Path:
    """Compile zetasql.wasm and keep the compiled module in the cache (once)."""
    from wasmtime import Module
    from zetasql.wasi import get_wasm_path

    cached = _cached_module_path()
    if not cached.exists():
        module = Module.from_file(_engine(), str(get_wasm_path()))
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(module.serialize())
        tmp.replace(cached)
    return cached


_WARMING: list[threading.Thread] = []


def warm_up() -> None:
    """Compile the module in a background thread (wasmtime compiles outside the GIL), so that it is
    ready when the gate runs; the tests call this before their BigQuery builds. No-op when cached."""
    try:
        if _WARMING or _cached_module_path().exists():
            return
    except Exception:  # noqa: BLE001 - zetasql not installed or unusable: the gate reports it
        return
    thread = threading.Thread(target=_compile_to_cache, name="zetasql-compile", daemon=True)
    thread.start()
    _WARMING.append(thread)


class _Wasm:
    """The ZetaSQL local service in wasmtime: zetasql.core.wasm_client.WasmClient's setup, with the
    compiled module cached on disk and bulk memory copies (the original copies byte by byte)."""

    def __init__(self) -> None:
        from wasmtime import Linker, Module, Store, WasiConfig
        from zetasql.core.wasm_client import get_tzinfo_dir

        for thread in _WARMING:
            thread.join()
        wasi = WasiConfig()
        wasi.inherit_stderr()
        tz = get_tzinfo_dir()
        if tz:
            wasi.preopen_dir(tz, "/usr/share/zoneinfo")
        engine = _engine()
        self.store = Store(engine)
        self.store.set_wasi(wasi)
        try:
            module = Module.deserialize_file(engine, str(_compile_to_cache()))
        except Exception:  # noqa: BLE001 - a stale or damaged cache file (wasmtime raises several kinds): compile again
            _cached_module_path().unlink(missing_ok=True)
            module = Module.deserialize_file(engine, str(_compile_to_cache()))
        linker = Linker(engine)
        linker.define_wasi()
        instance = linker.instantiate(self.store, module)
        self.exports = instance.exports(self.store)
        if "_initialize" in self.exports:
            self.exports["_initialize"](self.store)
        self.memory = self.exports["memory"]

    def _base(self) -> int:
        return ctypes.addressof(self.memory.data_ptr().contents)

    def _write(self, offset: int, data: bytes) -> None:
        ctypes.memmove(self._base() + offset, data, len(data))

    def _read(self, offset: int, size: int) -> bytes:
        return ctypes.string_at(self._base() + offset, size)

    def call(self, method: str, request: Any, response_type: Any) -> Any:
        data = request.SerializeToString()
        ex, store = self.exports, self.store
        req = ex["wasm_malloc"](store, max(len(data), 1))
        size_ptr = ex["wasm_malloc"](store, 4)
        try:
            self._write(req, data)
            resp = ex[f"ZetaSqlLocalService_{method}"](store, req, len(data), size_ptr)
            if resp == 0:
                n = ex["wasm_get_last_error_size"](store)
                msg = (
                    self._read(ex["wasm_get_last_error"](store), n).decode("utf-8", "replace") if n else "unknown error"
                )
                raise AnalyzerError(msg)
            size = int.from_bytes(self._read(size_ptr, 4), "little")
            out = self._read(resp, size)
            ex["wasm_free"](store, resp)
            return response_type.FromString(out)
        finally:
            ex["wasm_free"](store, req)
            ex["wasm_free"](store, size_ptr)


@dataclass
class Relation:
    path: tuple[str, ...]  # project, dataset, table (as written in the SQL, unquoted)
    columns: list[tuple[str, Any]]  # (name, zetasql TypeProto)
    kind: str = "table"  # table | view


@dataclass
class BigQueryAnalyzer:
    """Analyze GoogleSQL statements in order against a catalog that grows with the tables they create."""

    relations: dict[tuple[str, ...], Relation] = field(default_factory=dict)
    statements: int = 0

    def __post_init__(self) -> None:
        from zetasql.wasi._pb2.zetasql.local_service import local_service_pb2 as ls
        from zetasql.wasi._pb2.zetasql.proto import options_pb2, simple_catalog_pb2
        from zetasql.wasi._pb2.zetasql.public import options_pb2 as public_options_pb2
        from zetasql.wasi._pb2.zetasql.public import type_pb2

        self._ls, self._cat, self._type = ls, simple_catalog_pb2, type_pb2
        self._wasm = _Wasm()
        lang = self._wasm.call(
            "GetLanguageOptions", ls.LanguageOptionsRequest(maximum_features=True), options_pb2.LanguageOptionsProto
        )
        lang.product_mode = public_options_pb2.PRODUCT_EXTERNAL
        del lang.supported_statement_kinds[:]  # none listed: every statement kind (DDL, DML, MERGE)
        self._lang = lang
        self._options = options_pb2.AnalyzerOptionsProto(
            language_options=lang, error_message_mode=public_options_pb2.ERROR_MESSAGE_ONE_LINE
        )
        self._types: dict[str, Any] = {}
        self._catalog_id: int | None = None
        self._stale = True
        for alias, name in BIGQUERY_TYPE_ALIASES.items():
            self._types[alias] = self.type_of(name)

    # ------------------------------------------------------------------ types and tables
    def type_of(self, type_sql: str) -> Any:
        """The zetasql TypeProto of a BigQuery type name (STRUCT<...> and ARRAY<...> included)."""
        key = type_sql.strip().upper()
        if key not in self._types:
            resp = self._analyze_raw(f"select cast(null as {type_sql}) as x", catalog=False)
            self._types[key] = resp.resolved_statement.resolved_query_stmt_node.output_column_list[0].column.type
        return self._types[key]

    def add_table(self, path: tuple[str, ...], columns: list[tuple[str, str | Any]], kind: str = "table") -> None:
        cols = [(n, self.type_of(t) if isinstance(t, str) else t) for n, t in columns]
        self.relations[tuple(p.lower() for p in path)] = Relation(tuple(path), cols, kind)
        self._stale = True

    def relation(self, path: tuple[str, ...]) -> Relation | None:
        return self.relations.get(tuple(p.lower() for p in path))

    def is_table(self, path: tuple[str, ...]) -> bool | None:
        """Whether the relation a statement names (project, dataset, table; or dataset, table) is a table (False: a
        view); None when the catalog does not know it. What bigquery_lint.lint asks."""
        rel = self.relation(path) or self.relation(path[-2:]) if len(path) >= 2 else None
        return None if rel is None else rel.kind == "table"

    def _catalog_proto(self) -> Any:
        cat = self._cat
        root = cat.SimpleCatalogProto(name="bigquery")
        root.builtin_function_options.language_options.CopyFrom(self._lang)
        for alias in BIGQUERY_TYPE_ALIASES:
            root.named_type.add(name=alias, type=self._types[alias])
        # nested catalogs project -> dataset -> table; a table is also reachable as dataset.table
        children: dict[tuple[str, ...], Any] = {}

        def sub(parent: Any, key: tuple[str, ...], name: str) -> Any:
            if key not in children:
                children[key] = parent.catalog.add(name=name)
            return children[key]

        for rel in self.relations.values():
            *prefix, table = rel.path
            targets = []
            if len(prefix) == 2:
                targets = [
                    sub(sub(root, (prefix[0],), prefix[0]), tuple(prefix), prefix[1]),
                    sub(root, ("~", prefix[1]), prefix[1]),
                ]
            elif len(prefix) == 1:
                targets = [sub(root, ("~", prefix[0]), prefix[0])]
            else:
                targets = [root]
            for parent in targets:
                t = parent.table.add(name=table)
                for name, typ in rel.columns:
                    t.column.add(name=name, type=typ)
        return root

    def _ensure_catalog(self) -> int:
        if self._catalog_id is None:
            self.refresh()
        assert self._catalog_id is not None
        return self._catalog_id

    @property
    def stale(self) -> bool:
        """Whether tables were added since the catalog was last handed to the analyzer."""
        return self._stale

    def refresh(self) -> None:
        """Hand the current catalog to the analyzer. Registering builds BigQuery's function catalog
        again (~0.1 s), so statements are analyzed against a registered catalog and it is refreshed
        only between passes (see analyze_in_passes)."""
        from google.protobuf import empty_pb2

        req = self._ls.RegisterCatalogRequest(simple_catalog=self._catalog_proto())
        new_id = self._wasm.call("RegisterCatalog", req, self._ls.RegisterResponse).registered_id
        if self._catalog_id is not None:
            self._wasm.call(
                "UnregisterCatalog", self._ls.UnregisterRequest(registered_id=self._catalog_id), empty_pb2.Empty
            )
        self._catalog_id, self._stale = new_id, False

    # ------------------------------------------------------------------ analysis
    def _analyze_raw(self, sql: str, catalog: bool = True, position: int | None = None) -> Any:
        req = self._ls.AnalyzeRequest(options=self._options)
        if catalog:
            req.registered_catalog_id = self._ensure_catalog()
        else:
            req.simple_catalog.builtin_function_options.language_options.CopyFrom(self._lang)
        if position is None:
            req.sql_statement = sql
        else:
            req.parse_resume_location.input = sql
            req.parse_resume_location.byte_position = position
            req.parse_resume_location.allow_resume = True
        return self._wasm.call("Analyze", req, self._ls.AnalyzeResponse)

    def analyze_script(self, sql: str) -> int:
        """Analyze every statement of `sql` (one, or several separated by semicolons); raise
        AnalyzerError with ZetaSQL's message at the first refused one. Tables created are added to
        the catalog. Returns the number of statements analyzed."""
        data = sql.encode("utf-8")
        position, count = 0, 0
        while data[position:].strip(b" \t\r\n;"):
            if not _has_statement(data[position:].decode("utf-8", "replace")):
                break
            resp = self._analyze_raw(sql, position=position)
            self._learn(resp.resolved_statement)
            count += 1
            self.statements += 1
            if not resp.HasField("resume_byte_position") or resp.resume_byte_position <= position:
                break
            position = resp.resume_byte_position
        return count

    def analyze_in_passes(self, statements: list[Any]) -> list[tuple[Any, str]]:
        """Analyze `statements` (objects with a `.sql`) in order; returns [(statement, message)] for
        each one the analyzer refuses. A statement that reads a table created by an earlier one is
        refused with "Table not found" (one reading a column an earlier ALTER TABLE added: "is not present in
        table") until the catalog is refreshed: such statements are retried in a next pass, after one refresh,
        as long as the catalog changed (a few passes instead of one catalog registration per created table)."""
        errors: list[tuple[Any, str]] = []
        pending = list(statements)
        while pending:
            self._ensure_catalog()
            retry = []
            for s in pending:
                try:
                    self.analyze_script(s.sql)
                except AnalyzerError as exc:
                    stale_catalog = "Table not found" in exc.message or "is not present in table" in exc.message
                    (retry if stale_catalog else errors).append((s, exc.message))
            if not retry or not self.stale:
                errors.extend(retry)
                break
            self.refresh()
            pending = [s for s, _ in retry]
        return errors

    def _learn(self, stmt: Any) -> None:
        """Add the relation a CREATE TABLE / CREATE TABLE AS / CREATE VIEW statement creates, and the columns an
        ALTER TABLE ... ADD COLUMN adds."""
        node, name = stmt, ""
        while node.DESCRIPTOR.oneofs_by_name.get("node") is not None and node.WhichOneof("node"):
            name = node.WhichOneof("node")
            node = getattr(node, name)
        path = _find_field(node, "name_path")
        if name.startswith("resolved_alter_table"):
            known = self.relation(tuple(path)) if path else None
            added = []
            for action in _find_field(node, "alter_action_list") or []:
                if action.WhichOneof("node") == "resolved_add_column_action_node":
                    column = action.resolved_add_column_action_node.column_definition
                    added.append((column.name, column.type))
            if known is not None and added:
                self.add_table(known.path, [*known.columns, *added], known.kind)
            return
        if name.startswith("resolved_create_table"):
            defs = _find_field(node, "column_definition_list")
            if path and defs is not None:
                self.add_table(tuple(path), [(d.name, d.type) for d in defs], "table")
        elif name.startswith(("resolved_create_view", "resolved_create_materialized_view")):
            outs = _find_field(node, "output_column_list")
            if path and outs is not None:
                self.add_table(tuple(path), [(o.name, o.column.type) for o in outs], "view")


def _find_field(msg: Any, name: str) -> Any:
    """A field of a resolved-AST proto, looked up through its `parent` chain (the proto's base classes)."""
    seen = 0
    while msg is not None and seen < 10:
        if name in msg.DESCRIPTOR.fields_by_name:
            return getattr(msg, name)
        if "parent" not in msg.DESCRIPTOR.fields_by_name:
            return None
        msg = msg.parent
        seen += 1
    return None


_COMMENT = re.compile(r"--[^\n]*|#[^\n]*|/\*.*?\*/", re.S)


def _has_statement(sql: str) -> bool:
    """Whether text holds more than comments, whitespace and semicolons."""
    return bool(_COMMENT.sub("", sql).strip(" \t\r\n;"))
