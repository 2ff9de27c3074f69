"""Slim CI: `dbt test --defer --state prod-artifacts` runs the rules of a model this target never built
against the deferred (production) relation, as dbt's own `model` does. The package's metadata queries
(column types, key ranges, the incremental window) must read that relation too, not the dev one."""

from __future__ import annotations

import shutil

import pytest

from dbt_harness import write_project

PROFILES = """\
defer_check:
  target: dev
  outputs:
    dev: {{type: duckdb, path: "{db}", schema: dev, threads: 2}}
    prod: {{type: duckdb, path: "{db}", schema: prod, threads: 2}}
"""

SCHEMA = """\
models:
  - name: deferred_orders
    config:
      meta:
        dataplex_dq: {incremental_field: ordered_on}
    columns:
      - name: amount
        data_tests:
          - dataplex_dq.non_null_expectation: {name: amount-present}
    data_tests:
      - dataplex_dq.data_quality_scan:
          name: orders-scan
          arguments:
            rules:
              - {name: id-unique, column: id, uniquenessExpectation: {}}
              - {name: amount-small, column: amount, rangeExpectation: {maxValue: '10'}, ignoreNull: true}
"""


@pytest.fixture(scope="module")
def deferred(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("defer")
    db = tmp / "defer.duckdb"
    project = write_project(
        tmp,
        "defer_check",
        {
            "profiles.yml": PROFILES.format(db=db),
            "seeds/raw_orders.csv": "id,amount,ordered_on\n1,5,2026-01-01\n2,,2026-01-02\n2,20,2026-01-03\n",
            "models/deferred_orders.sql": "select id, amount, cast(ordered_on as date) as ordered_on "
            "from {{ ref('raw_orders') }}\n",
            "models/schema.yml": SCHEMA,
        },
        env={"DBT_DUCKDB_PATH": str(db)},  # the test's own reads (the profiles above name the same file)
        profile="defer_check",
    )
    prod = project.run("build", "--target", "prod")
    assert prod.returncode in (0, 1), prod.output[-3000:]
    state = tmp / "prod_state"
    shutil.copytree(project.target_path, state)
    # dev: the model is not built here; its rules run against prod's relation
    test = project.run("test", "--select", "deferred_orders", "--defer", "--state", str(state))
    return project, test


def test_rules_of_an_unbuilt_model_run_on_the_deferred_relation(deferred):
    project, test = deferred
    statuses = test.statuses("defer_check")
    assert statuses == {"amount-present": "fail", "orders-scan": "fail"}, test.output[-3000:]
    assert "does not exist" not in test.output and "reports no columns" not in test.output
    rows = project.metrics(test)
    # raw_orders: ids 1, 2, 2; amounts 5, NULL, 20
    assert {n: (r["evaluated_count"], r["passed_count"]) for n, r in rows.items()} == {
        "amount-present": (3, 2),
        "id-unique": (3, 1),
        "amount-small": (2, 1),
    }
    # the incremental window's end came from prod's data
    assert {r["incremental_end"] for r in rows.values()} == {"2026-01-03"}
    # and dev has no such relation: nothing was built there
    assert project.query(
        "select count(*) as n from information_schema.tables where table_schema = 'dev' "
        "and table_name = 'deferred_orders'"
    ) == [{"n": 0}]
