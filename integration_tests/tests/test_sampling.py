"""Sampling (SPEC 4: the row filter first, then `sampling_percent`) and `${data()}` aliases on each
target, in a small project of its own: a 400-row seed (300 rows pass the row filter) sampled at 50 %,
directly (a table: the warehouse's sampler, TABLESAMPLE on PostgreSQL and BigQuery) and through a view
(a row-wise random filter, as TABLESAMPLE cannot read views); and SQL assertions that write
`${data()}` with and without their own alias (PostgreSQL 15 needs one on a FROM subquery)."""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import drop_target_schemas, target_env
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
"""

# what the compiled scope of each data source must contain, per target
SAMPLER = {
    "duckdb": {"table-sample-filtered": "using sample 50 percent (bernoulli, 42)", "view-sample-filtered": "using sample 50 percent (bernoulli, 42)"},
    "postgres": {"table-sample-filtered": "tablesample bernoulli (50) repeatable (42) where (grp <> 'x')", "view-sample-filtered": "random() < 0.5"},
    "bigquery": {"table-sample-filtered": "tablesample system (50 percent) where (grp <> 'x')", "view-sample-filtered": "rand() < 0.5"},
}


@pytest.fixture(scope="module")
def sampled(dbt_target, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"sampling_{dbt_target}")
    proj = tmp / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    lines = ["id,grp,val"] + [f"{i},{'x' if i % 4 == 0 else 'a'},{'' if i % 10 == 0 else i}" for i in range(1, ROWS + 1)]
    (proj / "seeds" / "sample_rows.csv").write_text("\n".join(lines) + "\n")
    (proj / "models" / "plain_view.sql").write_text("{{ config(materialized='view') }}\nselect * from {{ ref('sample_rows') }}\n")
    (proj / "models" / "sample_view.sql").write_text("{{ config(materialized='view') }}\nselect * from {{ ref('sample_rows') }}\n")
    (proj / "models" / "schema.yml").write_text(SCHEMA)
    (proj / "dbt_project.yml").write_text(textwrap.dedent("""\
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
        """))
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    env = target_env(dbt_target, tmp, "dq_sampling")
    p = DbtProject(proj, INTEGRATION_DIR, tmp / "target", env, target=dbt_target)
    assert p.run("deps").returncode == 0
    build = p.run("build")
    assert build.returncode == 0, build.output[-4000:]
    with Db(dbt_target, env) as db:
        metrics = fetch_metrics_rows_from(db, build.manifest)
    yield dbt_target, p, build, metrics
    drop_target_schemas(dbt_target, env)


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
