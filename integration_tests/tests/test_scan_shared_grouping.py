"""DuckDB: one grouping per key shared by a scan's uniqueness rules and its duplicate-key SQL assertions
(scan_shared_groupings, macros/scan_cross_db.sql), and the per-rule tests' perfect-hash setting.

Every count is checked against the statement run as written on the same rows (NULL ids, ids occurring
two and three times, row filters, `${data()}`, a name that another schema's relation shadows), so a
shared grouping that answered with a wrong count fails here; the compiled SQL is checked for what was
shared and what was left to run as written."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from dbt_harness import fetch_metrics_rows, write_project

# id, cat: NULL ids (3 in `ids`, 1 in `ids1`), ids 1 and 7 twice, 2 three times, 3..6 and 100000 once
ROWS = [
    (None, "a"),
    (None, "a"),
    (None, "b"),
    (1, "a"),
    (1, "b"),
    (2, "a"),
    (2, "a"),
    (2, "b"),
    (3, "a"),
    (4, "b"),
    (5, "a"),
    (6, "b"),
    (7, "b"),
    (7, "b"),
    (100000, "b"),  # a key range wider than DuckDB's default perfect-hash bits (12)
]
SEEDS = {
    "ids": ROWS,
    "ids1": [r for i, r in enumerate(ROWS) if r[0] is not None or i == 0],
    # `twin` has a namesake in another schema (the model twin_shadow): a bare `twin` is never shared
    "twin": ROWS,
}
DB_NAME = "shared_grouping"
# regex rules on DuckDB: an anchored list of plain strings is an IN list (duckdb__regex_contains)
STATUSES = ["ok", "OK", "o k", "retry", "fail", None, "failx", "xok", "ok-1", "ok"]
PATTERNS = {
    "rx-list": ("^(ok|retry|fail)$", True),
    "rx-noncapturing": ("^(?:ok|o k|ok-1)$", True),
    "rx-one": ("^retry$", True),
    "rx-dot": ("^(ok|fai.)$", False),
    "rx-unanchored": ("ok|retry", False),
    "rx-flag": ("(?i)^(ok)$", False),
}


def _csv(rows: list[tuple]) -> str:
    return "id,cat\n" + "".join(f"{'' if i is None else i},{c}\n" for i, c in rows)


def _statements(seed: str) -> dict[str, str]:
    """rule name suffix -> the assertion's statement."""
    return {
        "dups": f"select id from {seed} where id is not null group by id having count(*) > 1",
        "dups-nulls": f"select id, count(*) as n from {seed} group by id having count(*) >= 2",
        "dups-schema": f"select ID from main.{seed} group by id having count(1) > 1",
        "dups-3part": f'select "id" from {DB_NAME}.main."{seed}" where "id" is not null group by "id" '
        "having count(*) > 1",
        "dups-data": 'select d.id from ${data()} as d where d.id is not null group by "ID" having count(*) > 1',
        "dups-data-nulls": "select id from ${data()} group by id having count(*) > 1",
        "not-the-shape": f"select id from {seed} where id > 1 group by id having count(*) > 1",
    }


def _scan(seed: str, name: str, row_filter: str | None) -> str:
    rules = [
        f"{{name: uniq-{name}, column: id, ignore_null: true, uniqueness_expectation: {{}}}}",
        f"{{name: uniq-all-{name}, column: id, uniqueness_expectation: {{}}}}",
    ]
    for suffix, sql in _statements(seed).items():
        rules.append(f"{{name: {suffix}-{name}, sql_assertion: {{sql_statement: '{sql}'}}}}")
    filt = f'row_filter: "{row_filter}", ' if row_filter else ""
    return (
        f"      - dataplex_dq.data_quality_scan:\n          name: {name}\n"
        f"          arguments: {{{filt}rules: [{', '.join(rules)}]}}\n"
    )


FILTER = "cat = 'a'"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shared_grouping")
    db = tmp / f"{DB_NAME}.duckdb"
    schema = "version: 2\nseeds:\n"
    for seed in SEEDS:
        schema += f"  - name: {seed}\n    data_tests:\n"
        schema += _scan(seed, f"{seed}-scan", None) + _scan(seed, f"{seed}-filtered", FILTER)
        if seed == "ids":
            schema += (
                "      - dataplex_dq.sql_assertion:\n          name: per-rule-dups\n"
                f"          arguments: {{sql_statement: '{_statements(seed)['dups']}'}}\n"
                "    columns:\n      - name: id\n        data_tests:\n"
                "          - dataplex_dq.uniqueness_expectation:\n"
                "              {name: per-rule-uniq, arguments: {ignore_null: true}}\n"
            )
    rx = ", ".join(
        f"{{name: {n}-scan, column: s, regex_expectation: {{regex: '{p}'}}}}" for n, (p, _) in PATTERNS.items()
    )
    schema += "  - name: statuses\n    data_tests:\n      - dataplex_dq.data_quality_scan:\n          name: rx-scan\n"
    schema += f"          arguments: {{rules: [{rx}]}}\n    columns:\n      - name: s\n        data_tests:\n"
    for n, (p, _) in PATTERNS.items():
        schema += f"          - dataplex_dq.regex_expectation: {{name: {n}, arguments: {{regex: '{p}'}}}}\n"
    files = {f"seeds/{seed}.csv": _csv(rows) for seed, rows in SEEDS.items()}
    files["seeds/statuses.csv"] = "s\n" + "".join(f"{'' if v is None else v}\n" for v in STATUSES)
    files["seeds/schema.yml"] = schema
    files["models/twin_shadow.sql"] = "{{ config(alias='twin', schema='other') }}\nselect 1 as id, 'a' as cat\n"
    project = write_project(
        tmp,
        "shared_grouping_project",
        files,
        env={"DBT_DUCKDB_PATH": str(db)},
        project_config="""\
        seeds:
          shared_grouping_project:
            +column_types: {id: integer, cat: varchar, s: varchar}
        """,
    )
    for step in (("seed",), ("run",), ("test",)):  # the shadow exists before any test compiles
        result = project.run(*step)
        assert result.returncode in (0, 1), result.output[-3000:]
    compiled = {
        n["name"]: n.get("compiled_code") or ""
        for n in result.manifest["nodes"].values()
        if n["resource_type"] == "test"
    }
    return fetch_metrics_rows(db, result.manifest), compiled, db


def _expected(db: Path, seed: str, row_filter: str | None) -> dict[str, int]:
    """The statements run as written, on the scan's rows for `${data()}` (the seed, filtered)."""
    scope = f"(select * from main.{seed}" + (f" where {row_filter})" if row_filter else ")")
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for suffix, sql in _statements(seed).items():
            out[suffix] = con.execute(f"select count(*) from ({sql.replace('${data()}', scope)})").fetchone()[0]
        counts = con.execute(f"select id, count(*) from {scope} group by id").fetchall()
    finally:
        con.close()
    out["uniq"] = sum(1 for i, c in counts if i is not None and c == 1)
    return out


@pytest.mark.parametrize("seed", sorted(SEEDS))
@pytest.mark.parametrize("row_filter", [None, FILTER], ids=["whole", "filtered"])
def test_every_count_equals_the_statement_run_as_written(shared, seed, row_filter):
    metrics, _, db = shared
    name = f"{seed}-{'filtered' if row_filter else 'scan'}"
    want = _expected(db, seed, row_filter)
    for suffix in _statements(seed):
        assert metrics[f"{suffix}-{name}"]["assertion_row_count"] == want[suffix], suffix
    for rule in (f"uniq-{name}", f"uniq-all-{name}"):
        assert metrics[rule]["passed_count"] == want["uniq"], rule


def test_the_expected_counts_are_not_vacuous(shared):
    """The data has what a wrong sharing would miscount: NULL groups, pairs, a triple, a filter."""
    _, _, db = shared
    assert _expected(db, "ids", None) | {"uniq": 0} == {
        "dups": 3, "dups-nulls": 4, "dups-schema": 4, "dups-3part": 3, "dups-data": 3, "dups-data-nulls": 4,
        "not-the-shape": 2, "uniq": 0,
    }  # fmt: skip
    assert _expected(db, "ids1", None)["dups-nulls"] == 3  # one NULL: no NULL group row
    want = _expected(db, "ids", FILTER)
    assert (want["dups"], want["dups-data"], want["dups-data-nulls"], want["uniq"]) == (3, 1, 2, 3)


def _groupings(sql: str) -> tuple[int, int]:
    """(shared groupings, uniqueness groupings of their own) in a compiled scan."""
    return sql.count(") dq_groups"), sql.count(") dq_singletons")


def _kept(sql: str, seed: str) -> set[str]:
    """The statements the compiled scan runs as written (`${data()}` expanded to a parenthesized scope)."""
    kept = set()
    for suffix, stmt in _statements(seed).items():
        head, data, tail = stmt.partition("${data()}")
        end = "\n  ) dq_assertion_rows"  # the scalar subquery counting its rows (not the rule_spec text)
        if (head + "(" in sql and ")" + tail + end in sql) if data else stmt + end in sql:
            kept.add(suffix)
    return kept


def test_shared_where_provably_the_same_rows(shared):
    _, compiled, _ = shared
    # whole table: every duplicate-key statement naming the seed or ${data()} reads the one grouping
    assert _kept(compiled["ids-scan"], "ids") == {"not-the-shape"}
    assert _groupings(compiled["ids-scan"]) == (1, 0)
    # row filter: a statement naming the table reads rows the scope does not have: kept as written
    by_name = {"dups", "dups-nulls", "dups-schema", "dups-3part", "not-the-shape"}
    assert _kept(compiled["ids-filtered"], "ids") == by_name
    # a namesake in another schema: bare and schema.name are kept; the three-part name binds exactly
    assert _kept(compiled["twin-scan"], "twin") == {"dups", "dups-nulls", "dups-schema", "not-the-shape"}
    assert _groupings(compiled["ids-filtered"]) == _groupings(compiled["twin-scan"]) == (1, 0)


def test_per_rule_tests_set_perfect_hashing_and_keep_their_statement(shared):
    metrics, compiled, db = shared
    for name in ("per-rule-dups", "per-rule-uniq"):
        assert compiled[name].lstrip().startswith("-- dataplex_dq: perfect_ht_threshold = "), name
    assert _statements("ids")["dups"] in compiled["per-rule-dups"]
    want = _expected(db, "ids", None)
    assert metrics["per-rule-dups"]["assertion_row_count"] == want["dups"]
    assert metrics["per-rule-uniq"]["passed_count"] == want["uniq"]


def test_an_anchored_list_of_strings_is_an_in_list_with_the_regex_counts(shared):
    metrics, compiled, db = shared
    con = duckdb.connect(str(db), read_only=True)
    try:
        values = [r[0] for r in con.execute("select s from main.statuses").fetchall()]
        assert sorted(values, key=str) == sorted(STATUSES, key=str)
        for name, (pattern, as_list) in PATTERNS.items():
            (want,) = con.execute(
                "select count(*) filter (regexp_matches(s, ?)) from main.statuses", [pattern]
            ).fetchone()
            for rule in (name, f"{name}-scan"):
                assert metrics[rule]["passed_count"] == want, rule
            assert ('collate "binary") in (' in compiled[name]) == as_list, name
    finally:
        con.close()
