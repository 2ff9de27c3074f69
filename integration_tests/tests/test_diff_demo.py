"""`dataplex-dq diff` on two runs of the demo, the second with a planted regression, the way the
docs/CI.md's example runs it: production builds the demo (target prod); a pull request drops the
upper-casing of country codes in stg_customers and adds a rule; CI clones production's database into
its own target (dev), builds the changed model and what depends on it there, and diffs -- against production's JSON
artifacts and against production's results table. The Markdown is checked line by line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dbt_harness import copy_demo, invoke_dbt, run_dataplex_dq

PROFILES = """\
dataplex_dq_demo:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: dev.duckdb
      threads: 4
    prod:
      type: duckdb
      path: prod.duckdb
      threads: 4
"""

TABLE = [
    "| data source | score | change | rows | newly failing | newly passing | added | removed |",
    "|---|---:|---:|---:|---|---|---|---|",
    "| fct_orders (partial) | 50.00 → — |  | 3,000 → — | — | — | — | — |",
    "| stg_customers | 87.50 → 77.78 | **-9.72** | 1,000 | `customer-country-known` | — | `customer-name-present` | "
    "— |",
    "| stg_orders (partial) | 80.00 → 0.00 | not compared | 3,000 | — | — | — | — |",
    # not built by the CI run: the report removed the previous run's result files, so it is "not run"
    "| stg_payments (not run) | 100.00 → — |  | 2,974 → — | — | — | — | — |",
    "",
    "### fct_orders",
    "",
    "- Score: 50.00 → — (partial run: not compared)",
    "- Rows: 3,000 → —",
    "- Not evaluated in this run (skipped, errored or not selected; score not compared): `fct-order-id-unique`, "
    "`order-amount-max`, `order-date-not-in-future`, `fct-customer-country-present`, `order-paid-in-full`, "
    "`fct-orders-complete`",
    "",
    "### stg_customers",
    "",
    "- Score: 87.50 → 77.78 (-9.72)",
    "- Dimensions: VALIDITY 100.00 → 75.00 (-25.00)",
    "- Columns: country_code 100.00 → 50.00 (-50.00); full_name — → 100.00",
    "- Newly failing: `customer-country-known`",
    "- Added: `customer-name-present` (passing)",
    "",
    "### stg_orders",
    "",
    "- Score: 80.00 → 0.00 (partial run: not compared)",
    "- Not evaluated in this run (skipped, errored or not selected; score not compared): `order-id-unique`, "
    "`order-status-valid`, `order-amount-in-range`, `orders-fresh`",
]


_UNSET = ("DBT_PROFILES_DIR", "DBT_DUCKDB_PATH")  # the demo's own profiles.yml and database file, as a user has them


def dq(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`dataplex-dq ARGS` in the demo folder `cwd` (the test harness's way: in this process unless
    DATAPLEX_DQ_TEST_DBT_SUBPROCESS is set)."""
    return run_dataplex_dq(*args, cwd=cwd, unset=_UNSET)


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    root = copy_demo(tmp_path_factory.mktemp("diff_demo"))
    (root / "profiles.yml").write_text(PROFILES)
    deps_env = {k: v for k, v in os.environ.items() if k not in _UNSET}
    code, output = invoke_dbt(
        ["deps", "--quiet"], cwd=root, env={**deps_env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    )
    assert code == 0, output[-3000:]

    # production: the whole demo, its results exported to prod's results table and kept as artifacts
    prod = dq(root, "build", "--target", "prod", "--profiles-dir", ".")
    assert prod.returncode == 1, prod.stdout[-3000:] + prod.stderr[-3000:]  # the demo's rules fail by design
    shutil.copytree(root / "target" / "dataplex_dq", root / "prod_results")

    # the pull request: a planted regression in a model, and a new rule
    model = root / "models" / "staging" / "stg_customers.sql"
    model.write_text(
        model.read_text().replace("nullif(upper(trim(country_code)), '')", "nullif(trim(country_code), '')")
    )
    schema = root / "models" / "schema.yml"
    schema.write_text(
        schema.read_text().replace(
            "      - name: loyalty_tier\n",
            "      - name: full_name\n        data_tests:\n          - dataplex_dq.non_null_expectation:\n"
            "              name: customer-name-present\n              arguments:\n                dimension: "
            "COMPLETENESS\n"
            "      - name: loyalty_tier\n",
            1,
        )
    )
    # CI: production's database cloned into the dev target, then only what changed is built
    shutil.copy(root / "prod.duckdb", root / "dev.duckdb")
    dev = dq(root, "build", "--target", "dev", "--profiles-dir", ".", "--select", "stg_customers+")
    return root, prod, dev


def test_diff_against_production_artifacts(demo_runs):
    root, _, dev = demo_runs
    assert "customer-country-known" in dev.stdout
    proc = dq(root, "diff", "prod_results")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Regression: 1 rule(s) newly failing; score of stg_customers down 9.72." in proc.stdout
    lines = (root / "target" / "dataplex_dq_diff.md").read_text().splitlines()
    assert lines[:6] == [
        "## Data quality diff",
        "",
        "**Regression:** 1 rule newly failing, 1 score drop above 0.00.",
        "",
        "Compared with `prod_results`: 4 data sources, 3 changed, 1 not run.",
        "",
    ]
    assert lines[6:] == TABLE


def test_diff_against_production_results_table(demo_runs):
    root, _, _ = demo_runs
    proc = dq(
        root,
        "diff",
        "--base-target",
        "prod",
        "--profiles-dir",
        ".",
        "--markdown",
        "from_table.md",
        "--json",
        "from_table.json",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = (root / "from_table.md").read_text().splitlines()
    # the same diff as from the JSON artifacts: scores recomputed from the rows as the report computes them
    assert lines[:4] == [
        "## Data quality diff",
        "",
        "**Regression:** 1 rule newly failing, 1 score drop above 0.00.",
        "",
    ]
    assert (
        lines[4]
        == 'Compared with target `prod` ("prod"."main"."dataplex_dq_results"): 4 data sources, 3 changed, 1 not run.'
    )
    assert lines[5:] == ["", *TABLE]


def test_a_tolerated_drop_and_a_run_against_itself(demo_runs):
    root, _, _ = demo_runs
    # a rule still newly fails: a larger --max-score-drop does not hide it
    assert dq(root, "diff", "prod_results", "--max-score-drop", "10").returncode == 1
    same = dq(root, "diff", "target")
    assert same.returncode == 0, same.stdout
    assert (root / "target" / "dataplex_dq_diff.md").read_text().splitlines()[2] == "**No regression.**"
