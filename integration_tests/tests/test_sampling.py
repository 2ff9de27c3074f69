"""Sampling (docs/SEMANTICS.md §4: the row filter first, then `sampling_percent`) and `${data()}` aliases on each
target, in a small project of its own: a 400-row seed (300 rows pass the row filter) sampled at 50 %,
directly (a table: the warehouse's sampler, TABLESAMPLE on PostgreSQL and BigQuery) and through a view
(a row-wise random filter, as TABLESAMPLE cannot read views); and SQL assertions that write
`${data()}` with and without their own alias (PostgreSQL 15 needs one on a FROM subquery)."""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import target_env
from dbt_harness import INTEGRATION_DIR, Db, DbtProject, fetch_metrics_rows_from, parse_bigquery

ROWS, IN_FILTER = 400, 300  # grp is 'x' on every 4th row; the row filter drops those

SCHEMA = """\
version: 2
seeds:
  - name: sample_rows
    config:
      meta:
        dataplex_dq: {row_filter: "grp <> 'x'", sampling_percent: 50}
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: table-sample-filtered
          arguments: {sql_expression: "grp <> 'x'", dimension: VALIDITY}
      - dataplex_dq.row_condition_expectation:
          name: table-sample-data-ref
          arguments:
            sql_expression: "id >= (select min(id) from ${data()})"
            debug_queries:
              - {description: sampled rows, sql_statement: "select count(*) as n from ${data()}"}
          config: {severity: warn}
      - dataplex_dq.data_quality_scan:
          name: sample_scan
          config: {severity: warn}
          arguments:
            rules:
              - {name: scan-range, column: val, ignore_null: true, range_expectation: {min_value: "0", max_value: "400"}}
              - {name: scan-not-null, column: val, non_null_expectation: {}, threshold: 0.5}
              - {name: scan-set, column: grp, set_expectation: {values: [a]}}
              - {name: scan-regex, column: grp, regex_expectation: {regex: "^a$"}}
              - {name: scan-unique-id, column: id, uniqueness_expectation: {}}
              - {name: scan-unique-score, column: score, uniqueness_expectation: {}, dimension: UNIQUENESS}
              - {name: scan-max-id, column: id, statistic_range_expectation: {statistic: MAX, max_value: "400"}}
              - name: scan-row-data-ref
                row_condition_expectation: {sql_expression: "id >= (select min(id) from ${data()})"}
                debug_queries:
                  - {description: sampled rows, sql_statement: "select count(*) as n from ${data()}"}
                  - {description: a self-join, sql_statement: "select count(*) as n from ${data()} d join ${data()} e on d.id = e.id"}
              - {name: scan-table-data-ref, table_condition_expectation: {sql_expression: "count(*) >= 0 and (select count(*) from ${data()} where grp = 'x') = 0"}}
              - {name: scan-assertion-data-ref, sql_assertion: {sql_statement: "select id from ${data()} where grp = 'x' or id not in (select id from ${data()})"}}
    columns:
      - name: val
        data_tests:
          - dataplex_dq.non_null_expectation: {name: table-sample-val, arguments: {threshold: 0.5}}
models:
  - name: plain_view
    data_tests:
      - dataplex_dq.sql_assertion:
          name: alias-as
          arguments: {sql_statement: "select d.id from ${data()} AS d where d.grp = 'x'"}
          config: {severity: warn}
      - dataplex_dq.sql_assertion:
          name: alias-bare-self-join
          arguments: {sql_statement: "select d.id from ${data()} d join ${data()} e on d.id = e.id where e.grp = 'x'"}
          config: {severity: warn}
      - dataplex_dq.sql_assertion:
          name: alias-none-twice
          arguments: {sql_statement: "select id from ${data()} where id in (select id from ${data()} where grp = 'x')"}
          config: {severity: warn}
      - dataplex_dq.sql_assertion:
          name: alias-none-then-keyword
          arguments: {sql_statement: "select grp, count(*) as n from ${data()}\n  where grp = 'x' group by grp"}
          config: {severity: warn}
  - name: sample_view
    config:
      meta:
        dataplex_dq: {row_filter: "grp <> 'x'", sampling_percent: 50}
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: view-sample-filtered
          arguments: {sql_expression: "grp <> 'x'", dimension: VALIDITY}
"""  # noqa: E501 - embedded SQL/YAML/JS kept as written

# what the compiled scope of each data source must contain, per target
SAMPLER = {
    "duckdb": {
        "table-sample-filtered": "using sample 50 percent (bernoulli, 42)",
        "view-sample-filtered": "using sample 50 percent (bernoulli, 42)",
    },
    "postgres": {
        "table-sample-filtered": "tablesample bernoulli (50) repeatable (42) where (grp <> 'x')",
        "view-sample-filtered": "random() < 0.5",
    },
    "bigquery": {
        "table-sample-filtered": "tablesample system (50 percent) where (grp <> 'x')",
        "view-sample-filtered": "rand() < 0.5",
    },
}


@pytest.fixture(scope="module")
def sampled(dbt_target, tmp_path_factory):
    return build_sampling_project(dbt_target, tmp_path_factory)


def build_sampling_project(dbt_target: str, tmp_path_factory) -> tuple:
    """`dbt build` of the sampling project, once per session and target (the BigQuery analyzer gate
    reads the same build): (target, project, build, metrics rows)."""
    from conftest import shared_build

    return shared_build(
        "sampling", dbt_target, lambda register_env: _build_sampling_project(dbt_target, tmp_path_factory, register_env)
    )


def _build_sampling_project(dbt_target: str, tmp_path_factory, register_env) -> tuple:
    tmp = tmp_path_factory.mktemp(f"sampling_{dbt_target}")
    proj = tmp / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    lines = ["id,grp,val,score"] + [
        f"{i},{'x' if i % 4 == 0 else 'a'},{'' if i % 10 == 0 else i},{i / 4}" for i in range(1, ROWS + 1)
    ]
    (proj / "seeds" / "sample_rows.csv").write_text("\n".join(lines) + "\n")
    (proj / "models" / "plain_view.sql").write_text(
        "{{ config(materialized='view') }}\nselect * from {{ ref('sample_rows') }}\n"
    )
    (proj / "models" / "sample_view.sql").write_text(
        "{{ config(materialized='view') }}\nselect * from {{ ref('sample_rows') }}\n"
    )
    (proj / "models" / "schema.yml").write_text(SCHEMA)
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: sampling
        version: "1.0"
        config-version: 2
        profile: dataplex_dq_integration_tests
        seeds:
          sampling:
            +column_types:
              id: "{{ 'INT64' if target.type == 'bigquery' else 'integer' }}"
              grp: "{{ 'STRING' if target.type == 'bigquery' else 'varchar' }}"
              val: "{{ 'INT64' if target.type == 'bigquery' else 'integer' }}"
              score: "{{ 'FLOAT64' if target.type == 'bigquery' else 'double precision' }}"
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    env = target_env(dbt_target, tmp, "dq_sampling")
    register_env(env)
    p = DbtProject(proj, INTEGRATION_DIR, tmp / "target", env, target=dbt_target)
    assert p.run("deps").returncode == 0
    build = p.run("build")
    assert build.returncode == 0, build.output[-4000:]
    with Db(dbt_target, env) as db:
        metrics = fetch_metrics_rows_from(db, build.manifest)
    return dbt_target, p, build, metrics


def test_sampled_scope_is_filtered_then_sampled(sampled):
    target, _, _, metrics = sampled
    for rule in ("table-sample-filtered", "view-sample-filtered"):
        m = metrics[rule]
        assert m["scope_sampling_percent"] == 50
        # every sampled row is inside the row filter
        assert m["passed_count"] == m["evaluated_count"] == m["row_count"], rule
        if target == "bigquery" and rule == "table-sample-filtered":
            # TABLESAMPLE SYSTEM keeps whole storage blocks: a table this small is kept whole or not at all
            assert m["row_count"] in (0, IN_FILTER)
        else:
            # Bernoulli 50 % of 300 rows: 150 on average, standard deviation 8.7
            assert 60 < m["row_count"] < 240, f"{rule}: {m['row_count']} rows sampled out of {IN_FILTER}"


def test_sampler_per_warehouse(sampled):
    target, _, build, _ = sampled
    compiled = {p.stem: p.read_text() for p in (build.target_path / "compiled").rglob("*.sql")}
    for rule, fragment in SAMPLER[target].items():
        assert fragment in compiled[rule], f"{target}, {rule}: expected `{fragment}` in\n{compiled[rule]}"
        if target == "bigquery":
            parse_bigquery(compiled[rule], rule)


def test_table_sample_is_repeatable(sampled):
    """A seeded sampler (DuckDB's bernoulli seed, PostgreSQL's REPEATABLE) picks the same rows again."""
    target, p, _, metrics = sampled
    if target == "bigquery":
        pytest.skip("BigQuery's TABLESAMPLE SYSTEM takes no seed: repeated samples differ on real BigQuery")
    again = p.run("test", "--select", "table-sample-filtered")
    assert again.returncode == 0, again.output[-2000:]
    with Db(target, p.env) as db:
        rerun = fetch_metrics_rows_from(db, again.manifest)
    assert rerun["table-sample-filtered"]["row_count"] == metrics["table-sample-filtered"]["row_count"]


def test_data_reference_with_and_without_alias(sampled):
    """`${data()} AS d`, `${data()} d` (also twice in one statement) and `${data()}` followed by a
    keyword: the same answer on every warehouse, the user's aliases kept."""
    target, _, build, metrics = sampled
    expected = {"alias-as": 100, "alias-bare-self-join": 100, "alias-none-twice": 100, "alias-none-then-keyword": 1}
    for rule, rows in expected.items():
        assert metrics[rule]["assertion_row_count"] == rows, rule
    compiled = {p.stem: p.read_text() for p in (build.target_path / "compiled").rglob("*.sql")}
    added = {rule: re.findall(r"\) as (dq_data(?:_\d+)?)\b", compiled[rule]) for rule in expected}
    if target == "postgres":
        assert ") AS d where" in compiled["alias-as"] and added["alias-as"] == []
        assert ") d join (" in compiled["alias-bare-self-join"] and ") e on" in compiled["alias-bare-self-join"]
        assert added["alias-bare-self-join"] == []
        assert added["alias-none-twice"] == ["dq_data", "dq_data_2"]
        assert added["alias-none-then-keyword"] == ["dq_data"]
    else:
        assert all(a == [] for a in added.values()), added


SCAN_RULES = [
    "scan-range",
    "scan-not-null",
    "scan-set",
    "scan-regex",
    "scan-unique-id",
    "scan-unique-score",
    "scan-max-id",
    "scan-row-data-ref",
    "scan-table-data-ref",
    "scan-assertion-data-ref",
]


def test_sampled_scan_reads_one_sample(sampled):
    """The fused scan of every rule type on the sampled seed: one aggregate over one sampled scope, so
    every rule counts the same rows; `${data()}` inside the scan reads that same scope CTE (on DuckDB
    and PostgreSQL, which materialize it, the very same rows: the assertion finds no row of the scope
    missing from `${data()}`)."""
    target, _, build, metrics = sampled
    rows = {r: metrics[r] for r in SCAN_RULES}
    counts = {m["row_count"] for m in rows.values()}
    assert len(counts) == 1, counts
    [n] = counts
    if target == "bigquery":
        assert n in (0, IN_FILTER)
    else:
        assert 60 < n < 240, n
    for rule in ("scan-set", "scan-regex", "scan-unique-id", "scan-unique-score"):
        assert rows[rule]["passed_count"] == n, rule
    assert rows["scan-range"]["evaluated_count"] == n - rows["scan-range"]["null_count"]
    assert rows["scan-range"]["passed_count"] == rows["scan-range"]["evaluated_count"]
    assert rows["scan-max-id"]["statistic_value"] is None if n == 0 else rows["scan-max-id"]["statistic_value"] <= ROWS
    assert rows["scan-table-data-ref"]["passed"] is True
    assert {m["scope_sampling_percent"] for m in rows.values()} == {50}
    if target != "bigquery":
        assert rows["scan-assertion-data-ref"]["assertion_row_count"] == 0
        assert rows["scan-row-data-ref"]["passed_count"] == n
        assert metrics["table-sample-data-ref"]["passed_count"] == metrics["table-sample-data-ref"]["row_count"]
    compiled = {p.stem: p.read_text() for p in (build.target_path / "compiled").rglob("*.sql")}
    for rule in ("sample_scan", "table-sample-data-ref"):
        assert "(select * from dq_scope)" in compiled[rule], rule
    if target == "bigquery":
        from bigquery_lint import code_only  # the SQL outside string literals (the debug queries are one)

        assert code_only(compiled["sample_scan"]).lower().count("tablesample") == 1
        assert code_only(compiled["table-sample-data-ref"]).lower().count("tablesample") == 1
