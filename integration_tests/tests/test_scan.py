"""dataplex_dq.data_quality_scan on DuckDB: the scan project (integration_tests/scan_project, the same
rules as the per-rule suite, one fused scan per seed) against the hand-computed expectations AND the
per-rule suite's metrics rows, dbt's one-test-per-seed status, the post-hook report, the single table
scan, and the scan's declaration checks."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest
import yaml

from dataplex_dq.run.assemble import result_from_bytes, result_from_json
from dbt_harness import INTEGRATION_DIR, DbtProject, assert_metrics, fetch_metrics_rows, run_dataplex_dq, write_project

SCAN_PROJECT = INTEGRATION_DIR / "scan_project"
EXPECTED: dict = yaml.safe_load((INTEGRATION_DIR / "expected_metrics.yml").read_text())
# per-rule tests scoped by dbt's `where` config: not expressible in a scan (see scan_project/seeds/scans.yml)
WHERE_RULES = {
    "qty-range-where-cat-a",
    "qty-not-null-cat-a-threshold-equal",
    "event-ts-web-first-half",
    "customer-ref-unique-where",
}
SCAN_RULES = sorted(set(EXPECTED) - WHERE_RULES)
EXTRA_PER_RULE = "big-id-not-null-per-rule"  # a per-rule test next to the dq_bigints scan
# columns that differ between two runs of the same rule by construction
RUN_COLUMNS = {"dq_invocation_id", "dq_test_unique_id", "rule_index", "evaluated_at"}


def _prepare_module():
    spec = importlib.util.spec_from_file_location("scan_project_prepare", SCAN_PROJECT / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


class ScanBuild:
    def __init__(self, project: DbtProject, build, metrics, db: Path):
        self.project, self.build, self.metrics, self.db = project, build, metrics, db
        nodes = build.manifest["nodes"]
        self.scans = {
            n["name"]: n
            for n in nodes.values()
            if (n.get("test_metadata") or {}).get("namespace") == "dataplex_dq"
            and n["test_metadata"]["name"] == "data_quality_scan"
        }


@pytest.fixture(scope="module")
def scan_build(duckdb_build, tmp_path_factory) -> ScanBuild:
    """`dbt build` of the scan project on DuckDB. Its DuckDB file has the same name as the per-rule
    build's, so relation names (in failing_rows_query, debug queries) are the same text in both."""
    _, _, per_rule_db = duckdb_build
    work = tmp_path_factory.mktemp("scan_build")
    proj = _prepare_module().prepare(work / "proj")
    db = work / Path(per_rule_db).name
    project = DbtProject(proj, INTEGRATION_DIR, work / "target", {"DBT_DUCKDB_PATH": str(db)})
    deps = project.run("deps")
    assert deps.returncode == 0, deps.output
    build = project.run("build")
    assert build.run_results, build.output
    return ScanBuild(project, build, fetch_metrics_rows(db, build.manifest), db)


def _project_free(uid: str | None) -> str | None:
    """seed.<project>.<name> -> seed.<name>: the two projects have different names."""
    if uid is None:
        return None
    parts = uid.split(".")
    return ".".join([parts[0], *parts[2:]])


# ------------------------------------------------------------------ the same rules, the same results


def test_every_rule_of_the_per_rule_suite_is_in_a_scan(scan_build):
    assert sorted(set(scan_build.metrics) - {EXTRA_PER_RULE}) == SCAN_RULES
    assert sorted(scan_build.scans) == sorted(f"{s}_scan" for s in {e["seed"] for e in EXPECTED.values()})


def test_rule_index_is_the_position_in_rules(scan_build):
    for scan in scan_build.scans.values():
        rules = scan["test_metadata"]["kwargs"]["rules"]
        rows = [m for m in scan_build.metrics.values() if m["dq_test_unique_id"] == scan["unique_id"]]
        assert len(rows) == len(rules)
        assert sorted((m["rule_index"], m["rule_name"]) for m in rows) == [(i, r["name"]) for i, r in enumerate(rules)]
        assert {m["dq_data_source"] for m in rows} == {scan["attached_node"]}


@pytest.mark.parametrize("rule", SCAN_RULES)
def test_scan_rule_matches_the_hand_computed_metrics(scan_build, rule):
    assert_metrics(scan_build.metrics, {rule: EXPECTED[rule]})


@pytest.mark.parametrize("rule", SCAN_RULES)
def test_scan_rule_equals_the_per_rule_test(scan_build, duckdb_build, rule):
    """Metric for metric, the same row as the per-rule test (failing_rows_query, rule_spec and debug
    queries included): only the run's own columns and the project name differ."""
    _, per_rule, _ = duckdb_build
    scan_row, rule_row = scan_build.metrics[rule], per_rule[rule]
    assert set(scan_row) == set(rule_row)
    _assert_same_metrics(rule, scan_row, rule_row)
    if "dq_row" in scan_row:  # DuckDB: the row packed as JSON (macros/metrics.sql, metrics_packed)
        scan_packed, rule_packed = json.loads(scan_row["dq_row"]), json.loads(rule_row["dq_row"])
        assert set(scan_packed) == set(scan_row) - {"dq_row"}
        _assert_same_metrics(rule, scan_packed, rule_packed)


def _assert_same_metrics(rule: str, scan_row: dict, rule_row: dict) -> None:
    for key, value in scan_row.items():
        if key in RUN_COLUMNS or key == "dq_row":
            continue
        a, b = value, rule_row[key]
        if key == "dq_data_source":
            a, b = _project_free(a), _project_free(b)
        assert a == b, f"{rule}: {key}: scan {a!r} != per-rule {b!r}"


def test_failing_rows_queries_run(scan_build):
    con = duckdb.connect(str(scan_build.db), read_only=True)
    try:
        for name in SCAN_RULES:
            row = scan_build.metrics[name]
            if row["failing_rows_query"] and not row["rule_suspended"]:
                ids = sorted(r[0] for r in con.execute(f"select id from ({row['failing_rows_query']}) q").fetchall())
                assert ids == EXPECTED[name]["failing_ids"], name
    finally:
        con.close()


# ------------------------------------------------------------------ dbt: one test per seed


def test_dbt_shows_one_test_per_seed_failing_iff_a_rule_failed(scan_build):
    results = scan_build.build.results_by_name()
    for name, scan in scan_build.scans.items():
        seed = scan["attached_node"].split(".")[-1]
        rules = [r for r in SCAN_RULES if EXPECTED[r]["seed"] == seed]
        failed = [r for r in rules if not EXPECTED[r]["passed"]]
        r = results[name]
        assert r["failures"] == len(failed), f"{name}: {r['failures']} failures, expected {len(failed)}: {failed}"
        assert r["status"] == ("fail" if failed else "pass"), f"{name}: {r['status']} {r['message']}"
    assert results[EXTRA_PER_RULE]["status"] == "pass"
    extra = scan_build.metrics[EXTRA_PER_RULE]
    assert (extra["row_count"], extra["evaluated_count"], extra["passed_count"], extra["null_count"]) == (10, 10, 9, 1)


def _table_scans(db: Path, sql: str, table: str, tmp_path: Path) -> int:
    """How many times DuckDB's executed plan (EXPLAIN ANALYZE's profile) scans `table`."""
    profile = tmp_path / "profile.json"
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.execute("set enable_profiling = 'json'")
        con.execute(f"set profiling_output = '{profile}'")
        con.execute(sql).fetchall()
    finally:
        con.close()
    scans = []

    def walk(node):
        if node.get("type") == "TABLE_SCAN" and str((node.get("extra_info") or {}).get("Table", "")).endswith(
            f".{table}"
        ):
            scans.append(node)
        for child in node.get("children", []):
            walk(child)

    tree = json.loads(profile.read_text())
    for op in tree.get("operator") or tree.get("children") or []:  # DuckDB 2.x: "operator"; 1.x: "children"
        walk(op)
    return len(scans)


def _compiled_scan(target_path: Path, seed: str) -> str:
    return (
        target_path / "compiled" / "dataplex_dq_scan_tests" / "seeds" / "scans.yml" / f"{seed}_scan.sql"
    ).read_text()


def _scan_counts(scan_build, seed: str) -> tuple[int, int]:
    """(distinct uniqueness columns, `${data()}` references) of the evaluated rules of a seed's scan."""
    rules = [r for r in scan_build.scans[f"{seed}_scan"]["test_metadata"]["kwargs"]["rules"] if not r.get("suspended")]
    unique_columns = {r["column"] for r in rules if "uniqueness_expectation" in r or "uniquenessExpectation" in r}
    return len(unique_columns), sum(json.dumps(r).count("${data()}") for r in rules)


SEEDS_WITH_UNIQUENESS = ["dq_strings", "dq_all_null", "dq_numbers"]


@pytest.mark.parametrize("seed", SEEDS_WITH_UNIQUENESS)
def test_one_aggregate_query_over_the_table(scan_build, seed, tmp_path):
    """DuckDB's default ('grouped'): the one aggregate query reads the table once; each distinct
    uniqueness column adds one read of that column; `${data()}` subqueries (SQL assertions) are their
    own reads by definition. DuckDB prunes reads its statistics prove empty (dq_numbers' `qty > 1000`,
    dq_all_null's all-NULL column)."""
    sql = _compiled_scan(scan_build.build.target_path, seed)
    assert sql.count("from dq_agg") == 1 and sql.count(" as dq_agg") == 0
    unique_columns, data_refs = _scan_counts(scan_build, seed)
    scans = _table_scans(scan_build.db, sql, seed, tmp_path)
    assert 1 <= scans <= 1 + unique_columns + data_refs, f"{seed}: {scans} table scans"
    if seed == "dq_strings":  # no ${data()}, two uniqueness columns with values (dq_all_null's are pruned)
        assert scans == 1 + unique_columns == 3


@pytest.fixture(scope="module")
def compiled_strategies(scan_build):
    """The scan project compiled with the two single-scan uniqueness strategies."""
    out = {}
    for strategy in ("grouped_one_scan", "window"):
        project = DbtProject(
            scan_build.project.project_dir,
            INTEGRATION_DIR,
            scan_build.build.target_path.parent / f"target_{strategy}",
            scan_build.project.env,
        )
        result = project.run(
            "compile",
            "--select",
            "test_name:data_quality_scan",
            "--vars",
            f"{{dataplex_dq_scan_uniqueness: {strategy}}}",
        )
        assert result.returncode == 0, result.output
        out[strategy] = project.target_path
    return out


def _rows(db: Path, sql: str) -> list[tuple]:
    """The metrics rows without the run's own columns (dq_row, the packed row, carries them too)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        run_columns = "dq_invocation_id, evaluated_at, dq_row"
        res = con.execute(f"select * exclude ({run_columns}) from ({sql}) q order by rule_index")
        return res.fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("strategy", ["grouped_one_scan", "window"])
@pytest.mark.parametrize("seed", SEEDS_WITH_UNIQUENESS)
def test_single_scan_strategies_read_the_table_once_with_the_same_results(
    scan_build, compiled_strategies, strategy, seed, tmp_path
):
    """'grouped_one_scan' (DuckDB streams the materialized scope CTE to every consumer) reads the table
    once -- checked on the executed plan -- and 'window' references the scope once; both give the same
    rows as the default."""
    sql = _compiled_scan(compiled_strategies[strategy], seed)
    assert ("over (partition by" in sql) == (strategy == "window")
    unique_columns, data_refs = _scan_counts(scan_build, seed)
    scans = _table_scans(scan_build.db, sql, seed, tmp_path)
    if strategy == "grouped_one_scan":
        assert 1 <= scans <= 1 + data_refs, f"{seed}/{strategy}: {scans} table scans"
        if data_refs == 0:
            assert scans == 1
    else:  # our SQL reads the scope once; DuckDB's optimizer may turn a window count into a grouped count joined back
        assert 1 <= scans <= 1 + unique_columns + data_refs, f"{seed}/{strategy}: {scans} table scans"
    default = _rows(scan_build.db, _compiled_scan(scan_build.build.target_path, seed))
    got = _rows(scan_build.db, sql)
    assert len(got) == len(default)
    for a, b in zip(got, default, strict=True):
        for x, y in zip(a, b, strict=True):
            assert x == (pytest.approx(y, rel=1e-12) if isinstance(y, float) else y), f"{seed}/{strategy}: {a} != {b}"


# ------------------------------------------------------------------ the post-hook


@pytest.fixture(scope="module")
def scan_report(scan_build):
    args = [
        "report",
        "--project-dir",
        str(scan_build.project.project_dir),
        "--profiles-dir",
        str(INTEGRATION_DIR),
        "--target-path",
        str(scan_build.build.target_path),
    ]
    proc = run_dataplex_dq(*args, env={"DBT_DUCKDB_PATH": str(scan_build.db)})
    return proc


def test_report_lists_every_scan_rule(scan_build, scan_report):
    assert scan_report.returncode == 1, scan_report.stdout + scan_report.stderr  # rules failed
    out_dir = scan_build.build.target_path / "dataplex_dq"
    by_source = defaultdict(list)
    for name, m in scan_build.metrics.items():
        by_source[m["dq_data_source"]].append(name)
    assert len(by_source) == 6
    for source, names in by_source.items():
        result = result_from_json((out_dir / f"{source}.json").read_text())
        assert result == result_from_bytes((out_dir / f"{source}.pb").read_bytes())
        evaluated = sorted(n for n in names if scan_build.metrics[n]["rule_status"] in ("PASSED", "FAILED"))
        assert sorted(r.rule.name for r in result.rules) == evaluated, source
        for r in result.rules:
            m = scan_build.metrics[r.rule.name]
            assert r.rule.dimension == (m["rule_dimension"] or "")
            assert r.rule.column == (m["rule_column"] or "")
            assert r.passed is m["passed"]
        # the per-rule test and the scan on dq_bigints land in one DataQualityResult
        if source.endswith(".dq_bigints"):
            assert EXTRA_PER_RULE in [r.rule.name for r in result.rules]
            assert len(result.rules) == 6


def test_report_exports_one_row_per_scan_rule(scan_build, scan_report):
    con = duckdb.connect(str(scan_build.db), read_only=True)
    try:
        res = con.execute("select * from main.dataplex_dq_results")
        cols = [d[0] for d in res.description]
        rows = [dict(zip(cols, r, strict=True)) for r in res.fetchall()]
    finally:
        con.close()
    assert sorted(r["rule_name"] for r in rows) == sorted(scan_build.metrics)
    scan_ids = {n["unique_id"] for n in scan_build.scans.values()}
    for row in rows:
        m = scan_build.metrics[row["rule_name"]]
        assert row["rule_status"] == m["rule_status"]
        assert row["rule_dimension"] == m["rule_dimension"]
        assert row["rule_column"] == m["rule_column"]
        assert row["dbt_test_unique_id"] == m["dq_test_unique_id"]
        if row["rule_name"] != EXTRA_PER_RULE:
            assert row["dbt_test_unique_id"] in scan_ids
        config = row["data_quality_job_configuration"]
        config = json.loads(config) if isinstance(config, str) else config
        if row["dbt_node_unique_id"].endswith(".dq_events"):
            assert config["row_filter"] == "source_system <> 'test'"  # the scan's rowFilter


# ------------------------------------------------------------------ the other warehouses


@pytest.fixture(scope="module")
def scan_on_target(dbt_target, tmp_path_factory):
    """The scan project on each server target of the suite (PostgreSQL, the BigQuery emulator), where
    the scan counts uniqueness with window counts instead of DuckDB's grouped counts."""
    if dbt_target == "duckdb":
        pytest.skip("DuckDB is covered by scan_build above")
    return build_scan_project(dbt_target, tmp_path_factory)[:2]


def build_scan_project(target: str, tmp_path_factory) -> tuple:
    """`dbt build` of the scan project on a server target, once per session (the BigQuery analyzer
    gate reads the same build): (build, metrics rows, project)."""
    from conftest import shared_build, target_env
    from dbt_harness import Db, fetch_metrics_rows_from

    def build(register_env):
        work = tmp_path_factory.mktemp(f"scan_{target}")
        proj = _prepare_module().prepare(work / "proj")
        env = target_env(target, work, "dq_scan")
        register_env(env)
        project = DbtProject(proj, INTEGRATION_DIR, work / "target", env, target=target)
        assert project.run("deps").returncode == 0
        result = project.run("build")
        assert result.run_results, result.output
        with Db(target, env) as db:
            metrics = fetch_metrics_rows_from(db, result.manifest)
        return result, metrics, project

    return shared_build("scan_project", target, build)


def test_scan_on_other_warehouses_matches_the_hand_computed_metrics(scan_on_target):
    build, metrics = scan_on_target
    assert sorted(set(metrics) - {EXTRA_PER_RULE}) == SCAN_RULES
    assert_metrics(metrics, {rule: EXPECTED[rule] for rule in SCAN_RULES})
    results = build.results_by_name()
    for rule_names in [
        [r for r in SCAN_RULES if EXPECTED[r]["seed"] == seed] for seed in {e["seed"] for e in EXPECTED.values()}
    ]:
        seed = EXPECTED[rule_names[0]]["seed"]
        assert results[f"{seed}_scan"]["failures"] == sum(1 for r in rule_names if not EXPECTED[r]["passed"]), seed


# ------------------------------------------------------------------ declaration checks

SEED = "id,amount,name,created_on\n1,5,a,2024-01-01\n2,,b,2024-02-01\n"

# (scan test name, the scan's arguments as YAML, expected fragments of the compile error or None when valid)
SCAN_CASES = [
    (
        "scan_bad_threshold",
        """{rules: [{name: ok-rule, column: amount, nonNullExpectation: {}},
        {name: bad-threshold, column: amount, nonNullExpectation: {}, threshold: 1.5},
        {column: amount, rangeExpectation: {minValue: "0"}}]}""",
        [
            "seed 'checks'",
            "rule #1 'bad-threshold'",
            "data_quality_scan non_null_expectation",
            "field 'threshold'",
            "between 0 and 1",
        ],
    ),
    (
        "scan_camel_unknown_field",
        "{rules: [{name: camel-range, column: amount, rangeExpectation: {minValue: '0', maxVal: '3'}}]}",
        ["rule #0 'camel-range'", "field 'range_expectation.maxVal'", "unknown field", "min_value, max_value"],
    ),
    (
        "scan_camel_unknown_key",
        "{rules: [{name: ok-two, column: amount, nonNullExpectation: {}}, {name: camel-key, column: amount, "
        "ignoreNulls: true, uniquenessExpectation: {}}]}",
        ["rule #1 'camel-key'", "field 'ignoreNulls'", "unknown key"],
    ),
    (
        "scan_unnamed_bad_bound",
        "{rules: [{column: amount, rangeExpectation: {minValue: abc}}]}",
        ["rule #0 'range-amount-0'", "field 'min_value'", "'abc' is not an integer"],
    ),
    (
        "scan_duplicate_names",
        "{rules: [{name: twice, column: amount, nonNullExpectation: {}}, {name: other, sqlAssertion: {sqlStatement: "
        "'select 1'}}, {name: twice, tableConditionExpectation: {sqlExpression: 'count(*) > 0'}}]}",
        ["rule #2 'twice'", "field 'name'", "rule #0 of this scan has the same name"],
    ),
    (
        "scan_name_of_a_per_rule_test",
        "{rules: [{name: per-rule-name, column: amount, nonNullExpectation: {}}]}",
        [
            "rule #0 'per-rule-name'",
            "field 'name'",
            "another rule on the same data source is also named 'per-rule-name'",
        ],
    ),
    (
        "scan_no_rule_type",
        "{rules: [{name: typeless, column: amount, dimension: VALIDITY}]}",
        ["rule #0 'typeless'", "has no rule type"],
    ),
    (
        "scan_two_rule_types",
        "{rules: [{name: two-types, column: amount, nonNullExpectation: {}, uniquenessExpectation: {}}]}",
        ["rule #0 'two-types'", "exactly one rule type"],
    ),
    (
        "scan_both_spellings",
        "{rules: [{name: both-spellings, column: amount, ignore_null: true, ignoreNull: false, "
        "uniquenessExpectation: {}}]}",
        ["rule #0 'both-spellings'", "field 'ignore_null'", "given twice"],
    ),
    (
        "scan_missing_column",
        "{rules: [{name: no-such-col, column: amnt, nonNullExpectation: {}}]}",
        ["rule #0 'no-such-col'", "field 'column'", "'amnt' does not exist"],
    ),
    (
        "scan_rule_without_column",
        "{rules: [{name: columnless, rangeExpectation: {minValue: '0'}}]}",
        ["rule #0 'columnless'", "field 'column'", "is required: give the rule a column: (range_expectation"],
    ),
    (
        "scan_semicolon",
        "{rules: [{name: semi, sqlAssertion: {sqlStatement: 'select 1; select 2'}}]}",
        ["rule #0 'semi'", "field 'sql_statement'", "semicolon"],
    ),
    (
        "scan_unknown_argument",
        "{rowfilter: 'id > 1', rules: [{name: arg-ok, column: amount, nonNullExpectation: {}}]}",
        ["data_quality_scan 'scan_unknown_argument'", "field 'rowfilter'", "unknown argument"],
    ),
    (
        "scan_bad_sampling",
        "{samplingPercent: 150, rules: [{name: sampling-ok, column: amount, nonNullExpectation: {}}]}",
        ["data_quality_scan 'scan_bad_sampling'", "field 'sampling_percent'", "between 0 and 100, got 150"],
    ),
    ("scan_no_rules", "{rules: []}", ["data_quality_scan 'scan_no_rules'", "field 'rules'", "non-empty list"]),
    # on a seed of its own (seed checks_many): 1001 rules would put every scan of `checks` over the limit
    (
        "scan_too_many_rules",
        "{rules: [" + ", ".join(["{nonNullExpectation: {}, column: name}"] * 1001) + "]}",
        ["seed 'checks_many'", "field 'rules'", "1001 rules", "at most 1000"],
    ),
    (
        "scan_valid",
        """{rowFilter: "id > 0", samplingPercent: 100, postScanActions: {bigqueryExport: {resultsTable: x}}, catalogPublishingEnabled: false,
        rules: [{column: amount, nonNullExpectation: {}, dimension: COMPLETENESS}, {column: amount, rangeExpectation: {minValue: '0'}, ignoreNull: true},
                {tableConditionExpectation: {sqlExpression: 'count(*) = 2'}}, {column: name, setExpectation: {values: [a]}, suspended: true}]}""",  # noqa: E501 - embedded SQL/YAML/JS kept as written
        None,
    ),
    (
        "scan_sampled",
        """{samplingPercent: 50, rules: [{name: sampled-unique, column: name, uniquenessExpectation: {}},
        {name: sampled-count, tableConditionExpectation: {sqlExpression: 'count(*) >= 0'}}, {name: sampled-not-null, column: name, nonNullExpectation: {}}]}""",  # noqa: E501 - embedded SQL/YAML/JS kept as written
        None,
    ),
]


@pytest.fixture(scope="module")
def scan_checks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scan_validation")

    def scans(names):
        return "\n".join(
            f"      - dataplex_dq.data_quality_scan:\n          name: {name}\n          arguments: "
            f"{textwrap.indent(args, '  ').strip()}"
            for name, args, _ in SCAN_CASES
            if name in names
        )

    many = {"scan_too_many_rules"}
    schema = (
        "version: 2\nseeds:\n  - name: checks\n    columns:\n      - name: amount\n        data_tests:\n"
        "          - dataplex_dq.non_null_expectation: {name: per-rule-name}\n"
        "    data_tests:\n" + scans({n for n, _, _ in SCAN_CASES} - many) + "\n"
        "  - name: checks_many\n    data_tests:\n" + scans(many) + "\n"
    )
    db = tmp / "checks.duckdb"
    project = write_project(
        tmp,
        "scan_checks",
        {"seeds/checks.csv": SEED, "seeds/checks_many.csv": SEED, "seeds/schema.yml": schema},
        env={"DBT_DUCKDB_PATH": str(db)},
        project_config="""\
        seeds:
          scan_checks:
            +column_types: {id: integer, amount: integer, name: varchar, created_on: date}
        """,
    )
    seed = project.run("seed")
    assert seed.returncode == 0, seed.output
    result = project.run("test")
    return project, result, db


@pytest.mark.parametrize("name,expected", [(n, e) for n, _, e in SCAN_CASES if e is not None])
def test_bad_scan_is_a_compile_error(scan_checks, name, expected):
    _, result, _ = scan_checks
    r = result.results_by_name()[name]
    assert r["status"] == "error", f"{name} compiled although it is invalid"
    for fragment in expected:
        assert fragment in r["message"], f"{name}: {fragment!r} not in error:\n{r['message']}"
    assert "dataplex_dq:" in r["message"]


def test_valid_scan_with_camel_case_settings_runs(scan_checks):
    _, result, db = scan_checks
    r = result.results_by_name()["scan_valid"]
    assert r["status"] == "fail" and r["failures"] == 1, r["message"]  # non-null-amount-0: 1 of 2 rows is NULL
    node = next(n for n in result.manifest["nodes"].values() if n["name"] == "scan_valid")
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            f"select rule_index, rule_name, rule_status, row_count, scope_row_filter from {node['relation_name']} "
            "order by rule_index"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        (0, "non-null-amount-0", "FAILED", 2, "id > 0"),
        (1, "range-amount-1", "PASSED", 2, "id > 0"),
        (2, "table-condition-2", "PASSED", 2, "id > 0"),
        (3, "set-name-3", "SUSPENDED", None, "id > 0"),
    ]


def test_sampled_scan_samples_once_for_all_rules(scan_checks):
    """With sampling, the scope is materialized once: every rule sees the same sampled rows."""
    _, result, db = scan_checks
    r = result.nodes["scan_sampled"]
    # every rule passes on any sample: unique names, count(*) >= 0, no NULL name
    assert (r.status, r.failures) == ("pass", 0), r.message
    node = next(n for n in result.manifest["nodes"].values() if n["name"] == "scan_sampled")
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            f"select rule_name, row_count, evaluated_count, scope_sampling_percent from {node['relation_name']} "
            "order by rule_index"
        ).fetchall()
    finally:
        con.close()
    assert [r[0] for r in rows] == ["sampled-unique", "sampled-count", "sampled-not-null"]
    assert len({r[1] for r in rows}) == 1 and rows[0][2] == rows[2][2] == rows[0][1]
    assert {r[3] for r in rows} == {50.0}


def test_report_of_an_errored_scan_has_one_error_per_declared_rule(scan_checks):
    project, result, db = scan_checks
    proc = run_dataplex_dq(
        "report",
        "--project-dir",
        str(project.project_dir),
        "--profiles-dir",
        str(INTEGRATION_DIR),
        "--target-path",
        str(result.target_path),
        env={"DBT_DUCKDB_PATH": str(db)},
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr  # rules errored
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "select dbt_test_unique_id, rule_name, rule_status, rule_message from main.dataplex_dq_results"
        ).fetchall()
    finally:
        con.close()
    by_test = defaultdict(list)
    for uid, name, status, _message in rows:
        by_test[uid.split(".")[2]].append((name, status))
    assert sorted(by_test["scan_bad_threshold"]) == [
        ("bad-threshold", "ERROR"),
        ("ok-rule", "ERROR"),
        ("range-amount-2", "ERROR"),
    ]
    assert sorted(by_test["scan_valid"]) == [
        ("non-null-amount-0", "FAILED"),
        ("range-amount-1", "PASSED"),
        ("set-name-3", "SUSPENDED"),
        ("table-condition-2", "PASSED"),
    ]
    too_many = by_test["scan_too_many_rules"]
    assert (len(too_many), {status for _, status in too_many}) == (1001, {"ERROR"})


def test_a_scans_cost_belongs_to_its_job(scan_build, scan_report):
    """Issue 10 item 2: a scan's one query is shared by its rules: no rule cost on them, the job's cost is
    the scan's execution_time (plus the per-rule test's next to it), each test counted once."""
    con = duckdb.connect(str(scan_build.db), read_only=True)
    try:
        res = con.execute("select * from main.dataplex_dq_results")
        cols = [d[0] for d in res.description]
        rows = [dict(zip(cols, r, strict=True)) for r in res.fetchall()]
    finally:
        con.close()
    seconds = {r["unique_id"]: r["execution_time"] for r in scan_build.build.run_results["results"]}
    scan_ids = {n["unique_id"] for n in scan_build.scans.values()}
    by_job = defaultdict(list)
    for row in rows:
        by_job[row["data_quality_job_id"]].append(row)
        if row["dbt_test_unique_id"] in scan_ids:
            assert row["rule_execution_seconds"] is None, row["rule_name"]
        else:
            assert row["rule_name"] == EXTRA_PER_RULE
            assert row["rule_execution_seconds"] == seconds[row["dbt_test_unique_id"]]
        assert json.loads(row["dbt_test_cost"]) == {
            "execution_time": seconds[row["dbt_test_unique_id"]],
            "adapter_response": {"_message": "OK"},
        }
    for job_rows in by_job.values():
        tests = {r["dbt_test_unique_id"] for r in job_rows}
        for r in job_rows:
            assert r["job_query_count"] == len(tests)
            assert r["job_execution_seconds"] == pytest.approx(sum(seconds[t] for t in tests), rel=1e-12)
    assert sorted(len({r["dbt_test_unique_id"] for r in j}) for j in by_job.values()) == [1, 1, 1, 1, 1, 2]
    assert "scan of " in scan_report.stdout.split("Costliest queries: ")[1].splitlines()[0]
