"""An existing results table checked against the expected columns (macros/results/results_table.sql)
before rows go in: a table of another version or made by hand gets a clear error naming the
difference, never misplaced values."""

from __future__ import annotations

from typing import Any

from dataplex_dq.errors import ExportError
from dataplex_dq.warehouse import Warehouse


def column_difference(expected: list[str], actual: list[str]) -> str | None:
    """What differs between the expected column names and a table's (case-insensitive), or None."""
    have = {c.lower() for c in actual}
    want = {c.lower() for c in expected}
    missing = [c for c in expected if c.lower() not in have]
    extra = [c for c in actual if c.lower() not in want]
    if not missing and not extra:
        return None
    parts = []
    if missing:
        parts.append(f"missing column(s) {', '.join(missing)}")
    if extra:
        parts.append(f"unexpected column(s) {', '.join(extra)}")
    return "; ".join(parts)


def check_results_columns(wh: Warehouse, relation: Any) -> None:
    """ExportError when the existing results table's columns differ from the expected ones."""
    expected = [name for name, _ in wh.macro("results_columns")]
    actual = [c.name for c in wh.adapter.get_columns_in_relation(relation)]
    diff = column_difference(expected, actual)
    if diff:
        raise ExportError(
            f"the results table {relation} does not have the expected columns: {diff}. It was made by another "
            "version of dataplex_dq or by hand: add the missing columns (new ones go at the end), or drop the table "
            "and let `dbt build` / `dataplex-dq report` create it"
        )
