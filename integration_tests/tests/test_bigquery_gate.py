"""The BigQuery analyzer gate: every statement the integration suite runs on the BigQuery target is
analyzed by Google's own SQL analyzer (ZetaSQL in BigQuery mode, bigquery_analyzer.py) and linted for
what the analyzer does not check (bigquery_lint.py), since the local emulator (DuckDB + sqlglot)
accepts SQL that real BigQuery refuses.

Analyzed, in order, against a catalog of the known tables (the seeds from their column types, the
results-table schema, and every table or view a statement creates):
* every statement dbt ran on BigQuery (its debug log and target/run) in the builds of the integration
  project, the scan project and the sampling project, and in a second run of the results-table model
  (dbt-bigquery's incremental path: a temporary table, then MERGE);
* the golden files (integration_tests/golden/bigquery/);
* every failing-rows query and debug query the rules handed out.
Any refusal fails the test with the statement, where it came from and the analyzer's message.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bigquery_statements import Statement, executed, seed_tables
from dbt_harness import INTEGRATION_DIR, DbtProject
from expected_schema import RESULTS_SCHEMA

GOLDEN_DIR = INTEGRATION_DIR / "golden" / "bigquery"
GATE_SUMMARY: list[str] = []  # printed in the terminal summary (conftest.py)


def _analyzer():
    try:
        from bigquery_analyzer import BigQueryAnalyzer
    except ImportError as exc:  # pragma: no cover - the test extra pins zetasql
        pytest.fail(f"the analyzer gate needs the `zetasql` package of the test extra: {exc}", pytrace=False)
    return BigQueryAnalyzer()


@dataclass
class Gate:
    statements: list[Statement]
    errors: list[tuple[Statement, str]]
    lint: list[tuple[Statement, list[str]]]
    seconds: float
    analyzer: object


@pytest.fixture(scope="module")
def incremental_run(bigquery_build):
    """A second `dbt run` of the results-table model: dbt-bigquery's incremental path (a temporary
    table `..__dbt_tmp..`, then MERGE into the results table)."""
    p = bigquery_build.project
    again = DbtProject(p.project_dir, p.profiles_dir, p.target_path.parent / "target_incremental", p.env, p.target)
    result = again.run("run", "--select", "dataplex_dq_results")
    assert result.returncode == 0, result.output[-4000:]
    return result


@pytest.fixture(scope="module")
def gate(bigquery_build, incremental_run, tmp_path_factory) -> Gate:
    from test_sampling import build_sampling_project
    from test_scan import build_scan_project

    metrics = [bigquery_build.metrics]
    scan_build, scan_metrics, scan_project = build_scan_project("bigquery", tmp_path_factory)
    _, sampling_project, sampling_build, sampling_metrics = build_sampling_project("bigquery", tmp_path_factory)
    projects = [
        (bigquery_build.build, bigquery_build.project.project_dir),
        (scan_build, scan_project.project_dir),
        (sampling_build, sampling_project.project_dir),
    ]
    metrics += [scan_metrics, sampling_metrics]

    started = time.monotonic()
    analyzer = _analyzer()
    project_id = bigquery_build.env["DBT_BQ_PROJECT"]
    datasets = [bigquery_build.schema, scan_project.env["DBT_BQ_DATASET"], sampling_project.env["DBT_BQ_DATASET"]]
    for build, project_dir in projects:
        for path, columns in seed_tables(build.manifest, project_dir):
            analyzer.add_table(path, columns)
    for dataset in [*datasets, "dq_it"]:
        analyzer.add_table((project_id, dataset, "dataplex_dq_results"), [(n, t) for n, t in _results_columns()])

    statements: list[Statement] = []
    for build in [bigquery_build.build, incremental_run, scan_build, sampling_build]:
        statements += executed(build.target_path)
    for rows in metrics:
        for name, row in sorted(rows.items()):
            if row["failing_rows_query"]:
                statements.append(Statement(f"{name}: failing_rows_query", row["failing_rows_query"]))
            for q in json.loads(row["debug_queries_sql"] or "[]"):
                statements.append(Statement(f"{name}: debug query {q.get('description')!r}", q["sql_statement"]))
    run_errors = analyzer.analyze_in_passes(statements)

    # the golden files name the dataset dq_it: the same tables under that name
    for (proj, dataset, table), rel in list(analyzer.relations.items()):
        for d in datasets:
            if dataset == d.lower() or dataset == f"{d.lower()}_dbt_test__audit":
                analyzer.add_table((proj, dataset.replace(d.lower(), "dq_it"), table), rel.columns, rel.kind)
    golden = [Statement(f"golden/bigquery/{p.name}", p.read_text()) for p in _golden_files()]
    golden_errors = analyzer.analyze_in_passes(golden)

    from bigquery_lint import lint

    linted = [(s, problems) for s in statements + golden if (problems := lint(s.sql, analyzer.is_table))]
    seconds = time.monotonic() - started
    GATE_SUMMARY.append(
        f"BigQuery analyzer gate: {len(statements) + len(golden)} statements ({len(statements)} run or handed out by "
        "the builds, "
        f"{len(golden)} golden files) analyzed with ZetaSQL and linted in {seconds:.1f}s"
    )
    return Gate(statements + golden, run_errors + golden_errors, linted, seconds, analyzer)


def _results_columns() -> list[tuple[str, str]]:
    return [(name, _ddl_type(spec)) for name, spec in RESULTS_SCHEMA]


def _ddl_type(spec) -> str:
    """expected_schema.RESULTS_SCHEMA's type -> a BigQuery type name."""
    if isinstance(spec, str):
        return spec
    kind, inner = spec
    if kind == "ARRAY":
        return f"ARRAY<{_ddl_type(inner)}>"
    return "STRUCT<" + ", ".join(f"{n} {_ddl_type(t)}" for n, t in inner) + ">"


def _golden_files() -> list[Path]:
    # the results table's CREATE first: the other statements read it
    return sorted(GOLDEN_DIR.glob("*.sql"), key=lambda p: (p.name != "results_table_create.sql", p.name))


def _report(items: list[tuple[Statement, str]]) -> str:
    return "\n\n".join(f"{s.origin}: {msg}\n--- SQL ---\n{s.sql[:4000]}" for s, msg in items)


def test_every_bigquery_statement_passes_the_analyzer(gate):
    assert not gate.errors, (
        f"{len(gate.errors)} of {len(gate.statements)} statements refused by ZetaSQL (BigQuery mode):\n\n"
        + _report(gate.errors)
    )


def test_every_bigquery_statement_passes_the_lint(gate):
    assert not gate.lint, "BigQuery lint:\n\n" + _report([(s, "; ".join(p)) for s, p in gate.lint])


def test_gate_covers_every_kind_of_statement(gate):
    """The gate saw what it is meant to see (so an empty log would not pass silently)."""
    text = [s.sql.lower() for s in gate.statements]
    origins = [s.origin for s in gate.statements]
    assert sum("create or replace table" in t for t in text) > 100  # the tests' metrics tables, the results model
    assert any(re.search(r"\bmerge into\b", t) for t in text), "no MERGE of the incremental results model"
    assert any("__dbt_tmp" in t and "create or replace table" in t for t in text), (
        "no temporary table of the incremental run"
    )
    assert any("tablesample system" in t for t in text)
    assert sum(o.endswith("failing_rows_query") for o in origins) > 50
    assert sum(": debug query " in o for o in origins) >= 4
    assert sum(o.startswith("golden/") for o in origins) == len(list(GOLDEN_DIR.glob("*.sql")))
    assert any("data_quality_scan" in o or "_scan" in o for o in origins)


# ------------------------------------------------------------------ the gate catches what BigQuery refuses


def test_analyzer_refuses_a_window_partitioned_by_float64():
    """The scan's window strategy on a FLOAT64 column (before the fix): BigQuery refuses it."""
    from bigquery_analyzer import AnalyzerError

    a = _analyzer()
    a.add_table(("dq-local", "dq_it", "dq_all_null"), [("id", "INT64"), ("val", "FLOAT64")])
    with pytest.raises(AnalyzerError, match="Partitioning by expressions of type FLOAT64 is not allowed"):
        a.analyze_script(
            "with dq_scope as (select * from `dq-local`.`dq_it`.`dq_all_null`)\n"
            "select dq_scope.*, count(*) over (partition by `val`) as dq_u0 from dq_scope"
        )
    # the grouped count of the fix is valid
    a.analyze_script(
        "with dq_scope as (select * from `dq-local`.`dq_it`.`dq_all_null`)\n"
        "select count(*) as dq_u0 from (select `val` from dq_scope where `val` is not null group by `val` having "
        "count(*) = 1) dq_singletons"
    )


def test_lint_refuses_a_table_sampled_twice_and_sampled_views():
    """`${data()}` expanded to the sampled scope again (before the fix): the table is sampled twice."""
    from bigquery_lint import lint

    scope = "select * from `dq-local`.`dq_it`.`sample_rows` tablesample system (50 percent) where (grp <> 'x')"
    before = (
        f"with dq_scope as (\n  {scope}\n)\nselect count(*) from dq_scope where id >= (select min(id) from ({scope}))"
    )
    assert lint(before, lambda p: True) == [
        "table dq-local.dq_it.sample_rows is sampled 2 times in one statement; a sampled table can only appear once "
        "in a BigQuery statement"
    ]
    after = (
        f"with dq_scope as (\n  {scope}\n)\n"
        "select count(*) from dq_scope where id >= (select min(id) from (select * from dq_scope))"
    )
    assert lint(after, lambda p: True) == []
    assert lint(scope, lambda p: False) == [
        "TABLESAMPLE on dq-local.dq_it.sample_rows, which is not a table; BigQuery samples tables only (not views)"
    ]


@pytest.mark.parametrize(
    "sql, fragment",
    [
        ("select cast(x as string)::int64 from t", "`::` cast"),
        ("select count(*) filter (where x > 1) from t", "FILTER (WHERE"),
        ("select * from t where name ilike 'a%'", "ILIKE"),
        ("select * from t using sample 10 percent (bernoulli, 42)", "USING SAMPLE"),
        ("select * from t where random() < 0.5", "random()"),
        ("select regexp_matches(name, 'a') from t", "regexp_matches"),
        ("select try_cast(x as double precision) from t", "TRY_CAST"),
        ("with s as materialized (select 1) select * from s", "MATERIALIZED CTE"),
        (
            "create table p.d.t partition by timestamp_trunc(ts, week) as select current_timestamp() as ts",
            "PARTITION BY timestamp_trunc(ts, week)",
        ),
        ("select 1 " + " " * 1_024_000, "1,024,009 characters"),
    ],
)
def test_lint_finds_what_bigquery_refuses(sql, fragment):
    from bigquery_lint import lint

    problems = lint(sql, lambda p: True)
    assert any(fragment in p for p in problems), problems


def test_lint_ignores_literals_and_comments():
    from bigquery_lint import lint

    sql = "select 'a::b ilike random()' as s, `weird::name` -- using sample\nfrom t /* filter (where */"
    assert lint(sql, lambda p: True) == []
    assert (
        lint(
            "create or replace table `p`.`d`.`r` partition by timestamp_trunc(job_start_time, day) options() as "
            "(select 1)",
            lambda p: True,
        )
        == []
    )


# ------------------------------------------------------------------ statements too long for BigQuery


def _wide_scan_project(root: Path, rules: int, padding: int) -> Path:
    """A project with one seed and a data_quality_scan of `rules` distinct row conditions, each with
    `padding` characters of string literal (the fused SQL grows by ~3x that per rule)."""
    import textwrap

    proj = root / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "seeds" / "wide.csv").write_text("id\n1\n")
    pad = "x" * padding
    rule_lines = "\n".join(
        f"            - {{name: r{i}, row_condition_expectation: {{sql_expression: \"id <> {i} or '{pad}' = ''\"}}}}"
        for i in range(rules)
    )
    (proj / "seeds" / "wide.yml").write_text(
        "version: 2\nseeds:\n  - name: wide\n    data_tests:\n      - dataplex_dq.data_quality_scan:\n          "
        f"name: wide_scan\n          arguments:\n            rules:\n{rule_lines}\n"
    )
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: wide
        version: "1.0"
        config-version: 2
        profile: dataplex_dq_integration_tests
        seeds:
          wide:
            +column_types: {id: "{{ 'INT64' if target.type == 'bigquery' else 'integer' }}"}
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    return proj


def _size_error(output: str) -> tuple[int, int, int, int]:
    m = re.search(
        r"seed 'wide', data_quality_scan 'wide_scan' \(dataplex_dq\.data_quality_scan\): the compiled SQL is "
        r"([\d,]+) characters, "
        r"more than the ([\d,]+) a \w+ statement may have; split (\d+) of its (\d+) rules off into another "
        r"data_quality_scan on the same data source",
        output,
    )
    assert m, output[-3000:]
    size, limit, split, total = (int(g.replace(",", "")) for g in m.groups())
    # moving `split` rules of the average size leaves a statement under the limit
    assert size - split * size / total <= limit < size - (split - 2) * size / total
    return size, limit, split, total


def test_scan_over_a_statement_limit_is_a_compile_error(tmp_path):
    """The var dataplex_dq_max_statement_chars sets a limit on any warehouse (here DuckDB)."""
    proj = _wide_scan_project(tmp_path, rules=60, padding=200)
    p = DbtProject(proj, INTEGRATION_DIR, tmp_path / "target", {"DBT_DUCKDB_PATH": str(tmp_path / "w.duckdb")})
    assert p.run("deps").returncode == 0
    res = p.run("compile", "--vars", "{dataplex_dq_max_statement_chars: 50000}", check=False)
    assert res.returncode != 0
    _size, limit, split, total = _size_error(res.output)
    assert limit == 50_000 and total == 60 and 0 < split < 60


def test_scan_over_bigquerys_statement_limit_is_a_compile_error(tmp_path):
    """On BigQuery the limit is BigQuery's: 1,024,000 characters per statement."""
    from conftest import require_target, target_env

    require_target("bigquery")
    proj = _wide_scan_project(tmp_path, rules=400, padding=900)
    p = DbtProject(
        proj, INTEGRATION_DIR, tmp_path / "target", target_env("bigquery", tmp_path, "dq_wide"), target="bigquery"
    )
    assert p.run("deps").returncode == 0
    res = p.run("compile", "--select", "wide_scan", check=False)
    assert res.returncode != 0
    size, limit, _split, total = _size_error(res.output)
    assert limit == 1_024_000 and total == 400 and size > limit
