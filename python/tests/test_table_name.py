"""results_table parsing (issue 9, D.1): every shape Dataplex accepts, and injection payloads refused."""

from __future__ import annotations

import pytest

from dataplex_dq.run.report import results_table_of
from dataplex_dq.warehouse.table_name import TableName, TableNameError, parse_table_name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("projects/my-proj/datasets/dq/tables/results", TableName("my-proj", "dq", "results")),
        (
            "//bigquery.googleapis.com/projects/example.com:p/datasets/dq/tables/r",
            TableName("example.com:p", "dq", "r"),
        ),
        ("db.schema.results", TableName("db", "schema", "results")),
        ("schema.results", TableName(None, "schema", "results")),
        ("results", TableName(None, None, "results")),
        ('"my.project".dq.res', TableName("my.project", "dq", "res")),
        ("`p-1`.`dq`.`dq results$1`", TableName("p-1", "dq", "dq results$1")),
        ("Résultats_été", TableName(None, None, "Résultats_été")),
    ],
)
def test_table_names_are_parsed_per_part(text, expected):
    assert parse_table_name(text) == expected


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('x" (a int); drop table s; create table "z', "contains '\"'"),  # DuckDB / PostgreSQL
        ("x (a int); drop table s; create table z", "contains '('"),
        ('s.x"; drop table s; --', "contains '\"'"),
        ("x` (a int64); drop table s; create table `z", "contains '`'"),  # BigQuery
        ("projects/p/datasets/d/tables/t`; drop table s; --", "contains '`'"),
        ("t'; delete from s; --", 'contains "\'"'),
        ("a\\b", "contains '\\\\'"),
        ("a.b.c.d", "4 dotted parts"),
        ("a..b", "empty"),
        ("a.", "ends with a dot"),
        ('"unbalanced', "unbalanced"),
        ("tab\tle", "contains '\\t'"),
        ("", "empty table"),
    ],
)
def test_anything_but_a_name_is_refused(payload, reason):
    with pytest.raises(TableNameError) as err:
        parse_table_name(payload)
    assert reason in str(err.value)


def test_results_table_in_either_casing_at_every_level():
    assert results_table_of({"postScanActions": {}}) is None
    assert results_table_of({"bigqueryExport": {"resultsTable": "a.b"}}) == "a.b"
    assert results_table_of({"bigquery_export": {"results_table": "a.c"}}) == "a.c"
    assert results_table_of({"bigquery_export": {"resultsTable": "a.d"}}) == "a.d"
    assert results_table_of({"bigquery_export": None}) is None
