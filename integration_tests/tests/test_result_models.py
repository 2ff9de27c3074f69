"""The package's result models (models/): `dbt build` creates an empty results table and the dq_* views
over it, reruns leave its rows alone, and the views give the scores computed by hand (docs/SEMANTICS.md §7 and §9)
for a handful of hand-written result rows."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from fractions import Fraction

import duckdb
import pytest

from dbt_harness import INTEGRATION_DIR, DbtProject

RESULT_MODELS = [
    "dataplex_dq_results",
    "dataplex_dq_latest_results",
    "dq_rule_results",
    "dq_rule_results_latest",
    "dq_job_scores",
    "dq_dimension_scores",
    "dq_column_scores",
    "dq_column_dimension_scores",
    "dq_latest_scores",
    "dq_anomaly_verdicts",
]

ORDERS, CUSTOMERS = "model.shop.orders", "model.shop.customers"

# (job, node, start hour on 2024-01-0D as (D, H), job score, job passed,
#  [(rule, column, dimension, rule_status, rule_passed, rule_suspended)])
JOBS = [
    # orders, first job: 3 of 5 evaluated rules pass -> 60.0; VALIDITY 1 of 3 -> 33.33
    (
        "job-1",
        ORDERS,
        (1, 10),
        60.0,
        False,
        [
            ("amount-not-null", "amount", "COMPLETENESS", "PASSED", True, False),
            ("amount-range", "amount", "VALIDITY", "FAILED", False, False),
            ("status-set", "status", "VALIDITY", "FAILED", False, False),
            ("table-not-empty", None, "VALIDITY", "PASSED", True, False),
            ("amount-unique", "amount", "UNIQUENESS", "PASSED", True, False),  # only in this job
        ],
    ),
    # orders, latest job: 4 of 5 evaluated -> 80.0; VALIDITY 2 of 3 -> 66.67; ACCURACY only errored
    (
        "job-2",
        ORDERS,
        (2, 10),
        80.0,
        False,
        [
            ("amount-not-null", "amount", "COMPLETENESS", "PASSED", True, False),
            ("amount-range", "amount", "VALIDITY", "PASSED", True, False),
            ("status-set", "status", "VALIDITY", "FAILED", False, False),
            ("table-not-empty", None, "VALIDITY", "PASSED", True, False),
            ("status-regex", "status", "VALIDITY", "SUSPENDED", None, True),
            ("amount-mean", "amount", "ACCURACY", "ERROR", None, False),
            ("name-not-null", "name", None, "PASSED", True, False),
        ],
    ),
    # customers, one job: 1 of 3 -> 33.33; one row without rule_status (derived: FAILED)
    (
        "job-3",
        CUSTOMERS,
        (1, 12),
        33.33,
        False,
        [
            ("email-not-null", "email", "COMPLETENESS", "PASSED", True, False),
            ("email-regex", "email", "COMPLETENESS", "FAILED", False, False),
            ("email-unique", "email", "COMPLETENESS", None, False, False),
        ],
    ),
]


def _sql_str(v) -> str:
    return "null" if v is None else "'" + str(v).replace("'", "''") + "'"


def _sql_bool(v) -> str:
    return "null" if v is None else ("true" if v else "false")


# What each job's data source declares (job_declared_rules) and its dbt target; jobs not listed
# carry neither (rows written before they were recorded). job-2: amount-unique was removed from the
# project after job-1, so it drops out of the latest results. job-4: a `--select` of one test on
# orders, later. job-5: the same orders table reported by another target (ci).
DECLARED = {
    "job-2": [
        "amount-not-null",
        "amount-range",
        "status-set",
        "table-not-empty",
        "status-regex",
        "amount-mean",
        "name-not-null",
    ],
    "job-3": ["email-not-null", "email-regex", "email-unique"],
    "job-4": [
        "amount-not-null",
        "amount-range",
        "status-set",
        "table-not-empty",
        "status-regex",
        "amount-mean",
        "name-not-null",
    ],
    "job-5": ["amount-not-null"],
}
TARGETS = {"job-5": "ci"}
LATER_JOBS = [
    # orders, partial run (one test): status-set now passes -> that job alone: 1 of 1 -> 100.0
    (
        "job-4",
        ORDERS,
        (3, 10),
        100.0,
        True,
        [
            ("status-set", "status", "VALIDITY", "PASSED", True, False),
        ],
    ),
    # orders on the ci target, latest of all by time: must not hide the default target's orders
    (
        "job-5",
        ORDERS,
        (4, 10),
        0.0,
        False,
        [
            ("amount-not-null", "amount", "COMPLETENESS", "FAILED", False, False),
        ],
    ),
]


def insert_sql(relation: str, jobs=None) -> str:
    rows = []
    for job, node, (day, hour), score, passed, rules in jobs or JOBS:
        table = node.rsplit(".", 1)[1]
        declared = DECLARED.get(job)
        declared_json = _sql_str("[" + ",".join(f'"{r}"' for r in sorted(declared)) + "]") if declared else "null"
        for rule, column, dimension, status, rule_passed, suspended in rules:
            rows.append(f"""
            select
              {{'resource_name': 'scan-{table}', 'project_id': 'p', 'location': 'local', 'data_scan_id': 'scan-{table}', 'display_name': null}} as data_quality_scan,
              {{'resource_name': '//duckdb/main/{table}', 'dataplex_entity_project_id': null, 'dataplex_entity_project_number': null,
                'dataplex_lake_id': null, 'dataplex_zone_id': null, 'dataplex_entity_id': null, 'table_project_id': 'shopdb',
                'table_project_number': null, 'dataset_id': 'main', 'table_id': '{table}'}} as data_source,
              '{job}' as data_quality_job_id,
              timestamp '2024-01-0{day} {hour}:00:00' as job_start_time,
              timestamp '2024-01-0{day} {hour}:05:00' as job_end_time,
              {{'passed': {_sql_bool(passed)}, 'score': {score}, 'incremental_start': null, 'incremental_end': null}} as job_quality_result,
              1000 as job_rows_scanned,
              {_sql_str(rule)} as rule_name,
              {_sql_str(column)} as rule_column,
              {_sql_str(dimension)} as rule_dimension,
              {_sql_str(status)} as rule_status,
              {_sql_bool(rule_passed)} as rule_passed,
              {_sql_bool(suspended)} as rule_suspended,
              100 as rule_rows_evaluated,
              90 as rule_rows_passed,
              90.0 as rule_rows_passed_percent,
              'select 1' as rule_failed_records_query,
              97.5 as job_row_weighted_score,
              'inv-{job}' as dbt_invocation_id,
              'test.shop.{rule}' as dbt_test_unique_id,
              '{node}' as dbt_node_unique_id,
              {_sql_str(TARGETS.get(job))} as dbt_target,
              {declared_json} as job_declared_rules,
              {len(declared) if declared else "null"} as job_declared_rule_count,
              {len(rules)} as job_run_rule_count""")  # noqa: E501 - embedded SQL/YAML/JS kept as written
    return f"insert into {relation} by name\n" + "\nunion all\n".join(rows)


def _exact(passed: int, evaluated: int) -> Decimal:
    hundredths = (Fraction(10000 * passed, evaluated) * 2 + 1) // 2  # half up on non-negative values
    return Decimal(int(hundredths)).scaleb(-2)


def _project(tmp_path) -> DbtProject:
    proj = tmp_path / "proj"
    (proj / "models").mkdir(parents=True)
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: result_models_check
        version: "1.0"
        config-version: 2
        profile: dataplex_dq_integration_tests
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    # every (passed, evaluated) pair up to 200 rules through the package's score macro
    (proj / "models" / "score_grid.sql").write_text(
        "select p, e, {{ dataplex_dq.score_percent('p', 'e') }} as score\n"
        "from range(0, 201) as evaluated_rules(e), range(0, 201) as passed_rules(p)\nwhere p <= e\n"
    )
    return DbtProject(proj, INTEGRATION_DIR, tmp_path / "target", {"DBT_DUCKDB_PATH": str(tmp_path / "results.duckdb")})


def _query(db, sql: str) -> list[dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        res = con.execute(sql)
        cols = [d[0] for d in res.description]
        return [dict(zip(cols, r, strict=True)) for r in res.fetchall()]
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("result_models")
    project = _project(tmp)
    db = tmp / "results.duckdb"
    deps = project.run("deps")
    assert deps.returncode == 0, deps.output
    empty = project.run("build", "--vars", "{dataplex_dq_package_tests: true}")  # the package's own tests too
    empty_counts = {m: _query(db, f"select count(*) as n from main.{m}")[0]["n"] for m in RESULT_MODELS}

    con = duckdb.connect(str(db))
    try:
        con.execute(insert_sql("main.dataplex_dq_results"))
    finally:
        con.close()
    rerun = project.run("build", "--select", "dataplex_dq")
    full_refresh = project.run("build", "--select", "dataplex_dq", "--full-refresh")
    return empty, empty_counts, rerun, full_refresh, db


def test_builds_on_an_empty_results_table(built):
    empty, counts, _, _, _ = built
    assert empty.returncode == 0, empty.output
    statuses = {n: r["status"] for n, r in empty.results_by_name().items()}
    for model in RESULT_MODELS:
        assert statuses.get(model) == "success", (model, statuses)
    tests = [r for r in empty.run_results["results"] if r["unique_id"].startswith("test.")]
    assert tests and all(r["status"] == "pass" for r in tests), [(r["unique_id"], r["status"]) for r in tests]
    assert counts == dict.fromkeys(RESULT_MODELS, 0)


def test_reruns_keep_the_rows(built):
    _, _, rerun, full_refresh, db = built
    for run in (rerun, full_refresh):
        assert run.returncode == 0, run.output
        assert all(r["status"] in ("success", "pass") for r in run.run_results["results"]), run.output
    n_rows = sum(len(rules) for *_, rules in JOBS)
    assert _query(db, "select count(*) as n from main.dataplex_dq_results")[0]["n"] == n_rows


def test_the_package_tests_run_only_when_asked(built):
    """The package's data tests check its models, not the user's data: a plain `dbt build` leaves them out
    (models/schema.yml, var dataplex_dq_package_tests)."""
    empty, _, rerun, _, _ = built
    package_tests = [r["unique_id"] for r in empty.run_results["results"] if r["unique_id"].startswith("test.")]
    assert len(package_tests) == 16 and all(t.startswith("test.dataplex_dq.") for t in package_tests)
    assert [r["unique_id"] for r in rerun.run_results["results"] if r["unique_id"].startswith("test.")] == []


def test_score_macro_rounds_like_dataplex(built):
    _, _, _, _, db = built
    rows = _query(db, "select p, e, score from main.score_grid")
    assert len(rows) == sum(e + 1 for e in range(201))
    for r in rows:
        expected = None if r["e"] == 0 else float(_exact(r["p"], r["e"]))
        assert r["score"] == expected, r
    by_pair = {(r["p"], r["e"]): r["score"] for r in rows}
    assert (by_pair[(2, 3)], by_pair[(1, 3)], by_pair[(1, 8)], by_pair[(3, 5)]) == (66.67, 33.33, 12.5, 60.0)


def test_job_scores(built):
    _, _, _, _, db = built
    rows = {r["data_quality_job_id"]: r for r in _query(db, "select * from main.dq_job_scores")}
    assert sorted(rows) == ["job-1", "job-2", "job-3"]
    counts = [
        "rules_total",
        "rules_evaluated",
        "rules_passed",
        "rules_failed",
        "rules_errored",
        "rules_skipped",
        "rules_suspended",
    ]
    assert {j: [rows[j][c] for c in counts] for j in rows} == {
        "job-1": [5, 5, 3, 2, 0, 0, 0],
        "job-2": [7, 5, 4, 1, 1, 0, 1],
        "job-3": [3, 3, 1, 2, 0, 0, 0],
    }
    assert {j: (rows[j]["score"], rows[j]["passed"]) for j in rows} == {
        "job-1": (60.0, False),
        "job-2": (80.0, False),
        "job-3": (33.33, False),
    }
    j2 = rows["job-2"]
    assert (j2["dbt_node_unique_id"], j2["table_id"], j2["dataset_id"], j2["table_project_id"]) == (
        ORDERS,
        "orders",
        "main",
        "shopdb",
    )
    assert (j2["row_weighted_score"], j2["rows_scanned"], j2["dbt_invocation_id"], j2["data_scan_id"]) == (
        97.5,
        1000,
        "inv-job-2",
        "scan-orders",
    )
    assert str(j2["job_start_time"]) == "2024-01-02 10:00:00" and str(j2["job_end_time"]) == "2024-01-02 10:05:00"


def test_dimension_scores(built):
    _, _, _, _, db = built
    rows = {
        (r["data_quality_job_id"], r["dimension"]): (
            r["score"],
            r["passed"],
            r["rules_evaluated"],
            r["rules_errored"],
            r["rules_suspended"],
        )
        for r in _query(db, "select * from main.dq_dimension_scores")
    }
    assert rows == {
        ("job-1", "COMPLETENESS"): (100.0, True, 1, 0, 0),
        ("job-1", "VALIDITY"): (33.33, False, 3, 0, 0),
        ("job-1", "UNIQUENESS"): (100.0, True, 1, 0, 0),
        ("job-2", "COMPLETENESS"): (100.0, True, 1, 0, 0),
        ("job-2", "VALIDITY"): (66.67, False, 3, 0, 1),  # 2 of 3; the suspended rule is left out
        ("job-2", "ACCURACY"): (None, None, 0, 1, 0),  # only an errored rule: no score
        ("job-3", "COMPLETENESS"): (33.33, False, 3, 0, 0),
    }


def test_column_scores(built):
    _, _, _, _, db = built
    cols = {
        (r["data_quality_job_id"], r["column_name"]): (r["score"], r["passed"], r["rules_evaluated"], r["rules_total"])
        for r in _query(db, "select * from main.dq_column_scores")
    }
    assert cols == {
        ("job-1", "amount"): (66.67, False, 3, 3),
        ("job-1", "status"): (0.0, False, 1, 1),
        ("job-2", "amount"): (100.0, True, 2, 3),
        ("job-2", "status"): (0.0, False, 1, 2),
        ("job-2", "name"): (100.0, True, 1, 1),
        ("job-3", "email"): (33.33, False, 3, 3),
    }
    dims = {
        (r["data_quality_job_id"], r["column_name"], r["dimension"]): (r["score"], r["passed"])
        for r in _query(db, "select * from main.dq_column_dimension_scores")
    }
    assert dims == {
        ("job-1", "amount", "COMPLETENESS"): (100.0, True),
        ("job-1", "amount", "VALIDITY"): (0.0, False),
        ("job-1", "amount", "UNIQUENESS"): (100.0, True),
        ("job-1", "status", "VALIDITY"): (0.0, False),
        ("job-2", "amount", "COMPLETENESS"): (100.0, True),
        ("job-2", "amount", "VALIDITY"): (100.0, True),
        ("job-2", "amount", "ACCURACY"): (None, None),
        ("job-2", "status", "VALIDITY"): (0.0, False),
        ("job-3", "email", "COMPLETENESS"): (33.33, False),
    }


def test_latest_scores(built):
    _, _, _, _, db = built
    rows = _query(db, "select * from main.dq_latest_scores")
    got = {
        (r["dbt_node_unique_id"], r["score_level"], r["column_name"], r["dimension"]): (
            r["data_quality_job_id"],
            r["score"],
            r["passed"],
        )
        for r in rows
    }
    assert got == {
        (ORDERS, "table", None, "(overall)"): ("job-2", 80.0, False),
        (ORDERS, "table", None, "COMPLETENESS"): ("job-2", 100.0, True),
        (ORDERS, "table", None, "VALIDITY"): ("job-2", 66.67, False),
        (ORDERS, "table", None, "ACCURACY"): ("job-2", None, None),
        (ORDERS, "column", "amount", "(overall)"): ("job-2", 100.0, True),
        (ORDERS, "column", "status", "(overall)"): ("job-2", 0.0, False),
        (ORDERS, "column", "name", "(overall)"): ("job-2", 100.0, True),
        (ORDERS, "column", "amount", "COMPLETENESS"): ("job-2", 100.0, True),
        (ORDERS, "column", "amount", "VALIDITY"): ("job-2", 100.0, True),
        (ORDERS, "column", "amount", "ACCURACY"): ("job-2", None, None),
        (ORDERS, "column", "status", "VALIDITY"): ("job-2", 0.0, False),
        (CUSTOMERS, "table", None, "(overall)"): ("job-3", 33.33, False),
        (CUSTOMERS, "table", None, "COMPLETENESS"): ("job-3", 33.33, False),
        (CUSTOMERS, "column", "email", "(overall)"): ("job-3", 33.33, False),
        (CUSTOMERS, "column", "email", "COMPLETENESS"): ("job-3", 33.33, False),
    }
    assert len(rows) == len(got)
    assert all(r["table_id"] == r["dbt_node_unique_id"].rsplit(".", 1)[1] for r in rows)


def test_rule_results_latest(built):
    _, _, _, _, db = built
    rows = {
        (r["dbt_node_unique_id"], r["rule_name"]): r for r in _query(db, "select * from main.dq_rule_results_latest")
    }
    assert {k: (r["data_quality_job_id"], r["rule_status"]) for k, r in rows.items()} == {
        (ORDERS, "amount-not-null"): ("job-2", "PASSED"),
        (ORDERS, "amount-range"): ("job-2", "PASSED"),
        (ORDERS, "status-set"): ("job-2", "FAILED"),
        (ORDERS, "table-not-empty"): ("job-2", "PASSED"),
        (ORDERS, "status-regex"): ("job-2", "SUSPENDED"),
        (ORDERS, "amount-mean"): ("job-2", "ERROR"),
        (ORDERS, "name-not-null"): ("job-2", "PASSED"),
        # amount-unique (only in job-1) is no longer declared in job-2: it dropped out
        (CUSTOMERS, "email-not-null"): ("job-3", "PASSED"),
        (CUSTOMERS, "email-regex"): ("job-3", "FAILED"),
        (CUSTOMERS, "email-unique"): ("job-3", "FAILED"),  # no rule_status: derived from rule_passed
    }
    r = rows[(ORDERS, "amount-range")]
    assert (
        r["table_id"],
        r["job_score"],
        r["rule_column"],
        r["rule_dimension"],
        r["rule_rows_passed_percent"],
        r["rule_failed_records_query"],
    ) == ("orders", 80.0, "amount", "VALIDITY", 90.0, "select 1")


@pytest.fixture(scope="module")
def later(built, tmp_path_factory):
    """The same results table plus a partial run of orders (job-4) and orders on another target (job-5)."""
    import shutil

    db = built[4]
    copy = tmp_path_factory.mktemp("later") / "later.duckdb"
    shutil.copy(db, copy)
    con = duckdb.connect(str(copy))
    try:
        con.execute(insert_sql("main.dataplex_dq_results", LATER_JOBS))
    finally:
        con.close()
    # rows written by hand, not by the writer: the latest results table is rebuilt from the history (issue 32)
    project = DbtProject(db.parent / "proj", INTEGRATION_DIR, copy.parent / "target", {"DBT_DUCKDB_PATH": str(copy)})
    refresh = project.run("build", "--select", "dataplex_dq_latest_results+", "--full-refresh")
    assert refresh.returncode == 0, refresh.output
    return copy


def test_partial_run_updates_only_the_rules_it_ran(later):
    """issue 9 B: job-4 ran one rule of orders; the latest picture keeps the other six declared rules'
    latest results (job-2) and takes status-set from job-4: 5 of 5 evaluated -> 100.0, not '1 rule'."""
    rules = {
        (r["dbt_target"], r["rule_name"]): (r["data_quality_job_id"], r["rule_status"])
        for r in _query(later, f"select * from main.dq_rule_results_latest where dbt_node_unique_id = '{ORDERS}'")
    }
    assert rules == {
        (None, "amount-not-null"): ("job-2", "PASSED"),
        (None, "amount-range"): ("job-2", "PASSED"),
        (None, "status-set"): ("job-4", "PASSED"),
        (None, "table-not-empty"): ("job-2", "PASSED"),
        (None, "status-regex"): ("job-2", "SUSPENDED"),
        (None, "amount-mean"): ("job-2", "ERROR"),
        (None, "name-not-null"): ("job-2", "PASSED"),
        ("ci", "amount-not-null"): ("job-5", "FAILED"),
    }
    scores = {
        (r["dbt_target"], r["score_level"], r["column_name"], r["dimension"]): (
            r["data_quality_job_id"],
            r["score"],
            r["passed"],
            r["rules_total"],
            r["rules_declared"],
        )
        for r in _query(later, f"select * from main.dq_latest_scores where dbt_node_unique_id = '{ORDERS}'")
    }
    assert scores[(None, "table", None, "(overall)")] == ("job-4", 100.0, True, 7, 7)
    assert scores[(None, "table", None, "VALIDITY")] == ("job-4", 100.0, True, 4, 7)  # 3 evaluated + 1 suspended
    assert scores[(None, "column", "status", "(overall)")] == ("job-4", 100.0, True, 2, 7)
    jobs = {
        r["data_quality_job_id"]: (r["score"], r["rules_total"], r["rules_declared"])
        for r in _query(later, "select * from main.dq_job_scores")
    }
    assert jobs["job-4"] == (100.0, 1, 7)  # the job itself says it ran 1 of 7 declared rules


def test_targets_stay_apart(later):
    """issue 17 item 4: job-5 (target ci, the latest by time) does not hide the default target's orders."""
    rows = _query(later, "select * from main.dq_latest_scores where score_level = 'table' and dimension = '(overall)'")
    got = {(r["dbt_node_unique_id"], r["dbt_target"]): (r["data_quality_job_id"], r["score"]) for r in rows}
    assert got == {
        (ORDERS, None): ("job-4", 100.0),
        (ORDERS, "ci"): ("job-5", 0.0),
        (CUSTOMERS, None): ("job-3", 33.33),
    }
