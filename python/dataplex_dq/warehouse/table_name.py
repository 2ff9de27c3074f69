"""`post_scan_actions.bigquery_export.results_table` parsed into (database, schema, identifier) and
validated part by part, so that nothing from YAML reaches SQL but names the adapter then quotes.

Accepted shapes (as Dataplex, plus a relation name for the other warehouses):
``projects/P/datasets/D/tables/T``, ``//bigquery.googleapis.com/projects/P/datasets/D/tables/T``,
``db.schema.table``, ``schema.table``, ``table``; a part of a dotted name may be quoted with double
quotes or backticks (``"my.project".dataset.table``). Each part is a name, never SQL: letters
(any script), digits, ``_``, ``-``, ``$`` and spaces (a project id also ``.`` and ``:``); quotes,
backslashes, semicolons, parentheses and control characters are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dataplex_dq.errors import DataplexDqError

RESOURCE = re.compile(r"^(?://bigquery\.googleapis\.com/)?projects/([^/]+)/datasets/([^/]+)/tables/([^/]+)$")
NAME_CHAR = re.compile(r"[\w$ -]")
PROJECT_CHAR = re.compile(r"[\w$ .:-]")
MAX_PART = 1024


class TableNameError(DataplexDqError, ValueError):
    """A results_table that is not a table name."""


@dataclass(frozen=True)
class TableName:
    database: str | None
    schema: str | None
    identifier: str


def _split_dotted(text: str) -> list[str]:
    """Split on dots outside "..." and `...` quotes; quoted parts lose their quotes."""
    parts: list[str] = []
    i = 0
    while True:
        if i < len(text) and text[i] in '"`':
            q = text[i]
            end = text.find(q, i + 1)
            if end < 0:
                raise TableNameError(f"unbalanced {q} quote")
            parts.append(text[i + 1 : end])
            i = end + 1
            if i < len(text) and text[i] != ".":
                raise TableNameError(f"unexpected {text[i]!r} after a quoted part")
        else:
            end = text.find(".", i)
            end = len(text) if end < 0 else end
            parts.append(text[i:end])
            i = end
        if i >= len(text):
            return parts
        i += 1  # the dot
        if i >= len(text):
            raise TableNameError("ends with a dot")


def _check(part: str, what: str, chars: re.Pattern[str]) -> str:
    if not part.strip():
        raise TableNameError(f"empty {what}")
    if len(part) > MAX_PART:
        raise TableNameError(f"{what} longer than {MAX_PART} characters")
    bad = next((c for c in part if not chars.fullmatch(c)), None)
    if bad is not None:
        allowed = "letters, digits, _, -, $, spaces" + (", . and :" if chars is PROJECT_CHAR else "")
        raise TableNameError(f"{what} {part!r} contains {bad!r}: a name may only contain {allowed}")
    return part


def parse_table_name(text: object) -> TableName:
    """The parts of a results_table; TableNameError with the reason when it is not a table name."""
    if not isinstance(text, str):
        raise TableNameError(f"must be a string, got {type(text).__name__}")
    text = text.strip()
    m = RESOURCE.match(text)
    parts = [m.group(1), m.group(2), m.group(3)] if m else _split_dotted(text)
    if len(parts) > 3:
        raise TableNameError(f"{len(parts)} dotted parts: expected table, schema.table or database.schema.table")
    *prefix, identifier = parts
    database = prefix[0] if len(prefix) == 2 else None
    schema = prefix[-1] if prefix else None
    return TableName(
        database=_check(database, "project/database", PROJECT_CHAR) if database is not None else None,
        schema=_check(schema, "dataset/schema", NAME_CHAR) if schema is not None else None,
        identifier=_check(identifier, "table", NAME_CHAR),
    )
