"""GoogleSQL of a Dataplex spec, rewritten for another warehouse with sqlglot -- or left alone.

Dataplex runs ``sql_expression``, ``sql_statement``, ``row_filter`` and debug queries on BigQuery.
:func:`transpile` turns one of them into DuckDB or PostgreSQL SQL when that changes something, keeps
the text as written when the target dialect reads it the same, and never rewrites what sqlglot
cannot render faithfully (it reports it instead). ``${data()}`` survives untouched.
:func:`bigquery_tables` finds table names written out in full, where ``${data()}`` belongs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlglot import exp

DIALECTS = ("duckdb", "postgres", "bigquery")

_DATA = "${data()}"
_PLACEHOLDER = "__dataplex_dq_data_ref__"


@dataclass(frozen=True)
class Transpiled:
    sql: str  # the SQL to write (the original when unchanged or not transpilable)
    changed: bool = False
    problem: str | None = None  # why it was left as written, when it could not be transpiled


def _unfaithful(tree: exp.Expr, dialect: str) -> str | None:
    """What sqlglot renders in ``dialect`` without raising, but with another meaning."""
    from sqlglot import exp

    for node in tree.walk():
        if isinstance(node, exp.TryCast) and dialect == "postgres":
            return "SAFE_CAST has no PostgreSQL equivalent (a plain CAST raises where SAFE_CAST gives NULL)"
    return None


def _simplify(tree: exp.Expr) -> None:
    """BigQuery's LENGTH also takes BYTES, so sqlglot guards it with a type switch in DuckDB; the rule
    columns are text, so keep plain LENGTH."""
    from sqlglot import exp

    for node in tree.walk():
        if isinstance(node, exp.Length) and node.args.get("binary"):
            node.set("binary", None)


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if errors:
        e = errors[0]
        description = re.sub(r"<Token token_type: [^,]+, text: ([^,]*),[^>]*>", r"'\1'", str(e.get("description")))
        return f"{description} at line {e.get('line')}, column {e.get('col')}"
    return str(exc).splitlines()[0]


def _round_trips(text: str, dialect: str) -> bool:
    """Whether sqlglot reads ``text`` in ``dialect`` and writes exactly it back."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        return bool(sqlglot.parse_one(text, read=dialect).sql(dialect=dialect) == text)
    except SqlglotError:
        return False


def already_in(sql: str, dialect: str) -> bool:
    """Whether ``sql`` is already written for ``dialect`` rather than in GoogleSQL: sqlglot writes it back
    exactly as ``dialect`` and not as BigQuery. SQL dataplex-dq wrote (an import transpiled it, then
    export-spec wrote it out again) is such text: importing it again leaves it alone instead of reading
    ``DATE_DIFF('DAY', a, b)`` as GoogleSQL's ``DATE_DIFF(date, date, part)``."""
    text = sql.replace(_DATA, _PLACEHOLDER)
    return _round_trips(text, dialect) and not _round_trips(text, "bigquery")


def transpile(sql: str, dialect: str) -> Transpiled:
    """``sql`` (GoogleSQL, an expression or a statement, may use ``${data()}``) for ``dialect``."""
    if dialect == "bigquery" or not sql.strip():
        return Transpiled(sql)
    import sqlglot
    from sqlglot.errors import ErrorLevel, SqlglotError

    text = sql.replace(_DATA, _PLACEHOLDER)
    if already_in(text, dialect):
        return Transpiled(sql)
    try:
        tree = sqlglot.parse_one(text, read="bigquery")
    except SqlglotError as exc:
        return Transpiled(sql, problem=f"sqlglot cannot parse it as GoogleSQL ({_first_error(exc)})")
    problem = _unfaithful(tree, dialect)
    if problem:
        return Transpiled(sql, problem=problem)
    _simplify(tree)
    try:
        as_bigquery = tree.sql(dialect="bigquery")
        out = tree.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        return Transpiled(sql, problem=f"sqlglot cannot write it for {dialect} ({_first_error(exc)})")
    if out == as_bigquery:
        return Transpiled(sql)  # the dialect reads it the same: keep the user's own text
    return Transpiled(out.replace(_PLACEHOLDER, _DATA), changed=True)


def bigquery_tables(sql: str) -> list[str]:
    """Qualified table names (``dataset.table``, ``project.dataset.table``) read by ``sql``."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql.replace(_DATA, _PLACEHOLDER), read="bigquery")
    except SqlglotError:
        return []
    names = []
    for table in tree.find_all(exp.Table):
        if table.name == _PLACEHOLDER or not table.args.get("db"):
            continue
        name = ".".join(p for p in (table.catalog, table.db, table.name) if p)
        if name not in names:
            names.append(name)
    return names
