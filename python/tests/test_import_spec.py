"""`dataplex-dq import-spec`: merging into schema.yml (comments kept), refusal and --force, forms,
transpiling, and the command's output and exit codes. No dbt run: test_spec_roundtrip.py parses."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplex_dq.cli.main import main
from dataplex_dq.spec.import_spec import ImportSpecError, guess_indent, import_spec, target_dialect
from dataplex_dq.spec.reader import load_spec_file
from dataplex_dq.spec.transpile import bigquery_tables, transpile

CORPUS = Path(__file__).resolve().parents[2] / "integration_tests" / "specs"

SCHEMA = """\
version: 2

# Orders of the shop. This comment must survive.
models:
  - name: orders
    description: "Orders, one row each"   # trailing comment
    columns:
      - name: qty
        description: quantity ordered
        data_tests:
          - not_null
          - dataplex_dq.non_null_expectation:
              name: qty-present
  - name: customers   # another model, untouched
    columns:
      - name: id
"""


def project(tmp_path: Path, schema: str | None = SCHEMA) -> Path:
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n")
    (tmp_path / "models" / "orders.sql").write_text("select 1 as id\n")
    if schema is not None:
        (tmp_path / "models" / "schema.yml").write_text(schema)
    return tmp_path


def write_spec(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


SPEC = """\
    rowFilter: "status <> 'test'"
    rules:
      - name: qty-in-range
        column: qty
        dimension: VALIDITY
        threshold: 0.9
        rangeExpectation: {minValue: 1, maxValue: "100"}
      - name: price-positive
        column: price
        rowConditionExpectation: {sqlExpression: "price > 0"}
      - nonNullExpectation: {}
        column: price
        dimension: COMPLETENESS
    """


def test_merges_tests_form_keeping_comments_order_and_other_entries(tmp_path):
    root = project(tmp_path)
    result = import_spec(write_spec(tmp_path, SPEC), "orders", project_dir=root)
    assert result.path == root / "models" / "schema.yml"
    assert (
        (root / "models" / "schema.yml").read_text()
        == """\
version: 2

# Orders of the shop. This comment must survive.
models:
  - name: orders
    description: "Orders, one row each"   # trailing comment
    columns:
      - name: qty
        description: quantity ordered
        data_tests:
          - not_null
          - dataplex_dq.non_null_expectation:
              name: qty-present
          - dataplex_dq.range_expectation:
              name: qty-in-range
              arguments:
                min_value: '1'
                max_value: '100'
                dimension: VALIDITY
                threshold: 0.9
      - name: price
        data_tests:
          - dataplex_dq.non_null_expectation:
              arguments:
                dimension: COMPLETENESS
    config:
      meta:
        dataplex_dq:
          row_filter: status <> 'test'
    data_tests:
      - dataplex_dq.row_condition_expectation:
          name: price-positive
          arguments:
            column: price
            sql_expression: price > 0
  - name: customers   # another model, untouched
    columns:
      - name: id
"""
    )
    assert [a[0] for a in result.added] == ["qty-in-range", "price-positive", "(unnamed)"]
    assert result.settings == {"row_filter": "status <> 'test'"}


def test_scan_form_creates_one_data_quality_scan_then_merges_into_it(tmp_path):
    root = project(tmp_path, schema=None)
    import_spec(write_spec(tmp_path, SPEC), "orders", form="scan", project_dir=root)
    text = (root / "models" / "schema.yml").read_text()
    assert (
        text
        == """\
version: 2
models:
  - name: orders
    data_tests:
      - dataplex_dq.data_quality_scan:
          name: orders_scan
          arguments:
            row_filter: status <> 'test'
            rules:
              - name: qty-in-range
                column: qty
                dimension: VALIDITY
                range_expectation:
                  min_value: '1'
                  max_value: '100'
                threshold: 0.9
              - name: price-positive
                column: price
                row_condition_expectation:
                  sql_expression: price > 0
              - column: price
                dimension: COMPLETENESS
                non_null_expectation: {}
"""
    )
    more = write_spec(
        tmp_path,
        """\
        rules:
          - name: qty-unique
            column: qty
            uniquenessExpectation: {}
        """,
        "more.yaml",
    )
    import_spec(more, "orders", form="scan", project_dir=root)
    text = (root / "models" / "schema.yml").read_text()
    assert text.count("dataplex_dq.data_quality_scan") == 1
    assert text.endswith("""\
              - column: price
                dimension: COMPLETENESS
                non_null_expectation: {}
              - name: qty-unique
                column: qty
                uniqueness_expectation: {}
""")


def test_refuses_a_rule_of_the_same_name_unless_force(tmp_path):
    root = project(tmp_path)
    spec = write_spec(
        tmp_path,
        """\
        rules:
          - name: qty-present
            column: qty
            dimension: COMPLETENESS
            threshold: 0.5
            nonNullExpectation: {}
        """,
    )
    before = (root / "models" / "schema.yml").read_text()
    with pytest.raises(ImportSpecError) as info:
        import_spec(spec, "orders", project_dir=root)
    assert str(info.value) == (
        f"model 'orders' already declares rule 'qty-present' ({root / 'models' / 'schema.yml'}); "
        "nothing was written. Pass --force to replace them, or rename them in the spec"
    )
    assert (root / "models" / "schema.yml").read_text() == before
    result = import_spec(spec, "orders", force=True, project_dir=root)
    assert result.replaced == ["qty-present"]
    after = (root / "models" / "schema.yml").read_text()
    assert after.count("name: qty-present") == 1
    assert (
        """\
          - not_null
          - dataplex_dq.non_null_expectation:
              name: qty-present
              arguments:
                dimension: COMPLETENESS
                threshold: 0.5
"""
        in after
    )


def test_force_replaces_a_scan_rule_in_place_and_a_changed_setting(tmp_path):
    root = project(tmp_path, schema=None)
    import_spec(write_spec(tmp_path, SPEC), "orders", form="scan", project_dir=root)
    changed = write_spec(
        tmp_path,
        """\
        row_filter: "status = 'live'"
        rules:
          - name: price-positive
            column: price
            row_condition_expectation: {sql_expression: "price >= 0"}
        """,
        "changed.yaml",
    )
    with pytest.raises(ImportSpecError, match="already declares rule 'price-positive'"):
        import_spec(changed, "orders", form="scan", project_dir=root)
    other = write_spec(
        tmp_path,
        "row_filter: \"status = 'live'\"\nrules: [{name: new-rule, column: a, nonNullExpectation: {}}]\n",
        "other.yaml",
    )
    with pytest.raises(ImportSpecError, match=r"already sets row_filter to another value .* Pass --force to replace"):
        import_spec(other, "orders", form="scan", project_dir=root)
    import_spec(changed, "orders", form="scan", force=True, project_dir=root)
    text = (root / "models" / "schema.yml").read_text()
    assert "row_filter: status = 'live'" in text
    rules = text[text.index("rules:") :]
    # replaced where it was: second of three
    assert rules.index("qty-in-range") < rules.index("price >= 0") < rules.index("non_null_expectation")
    assert "price > 0" not in text


def test_every_corpus_file_imports_in_both_forms(tmp_path):
    root = project(tmp_path, schema=None)
    for spec in sorted(CORPUS.glob("*.*")):
        if spec.suffix not in (".yaml", ".json") or spec.name == "index.yml":
            continue
        for form in ("tests", "scan"):
            model = f"m_{form}_{spec.stem}"
            (root / "models" / f"{model}.sql").write_text("select 1 as id\n")
            schema = root / "models" / f"{model}.yml"
            result = import_spec(spec, model, form=form, schema_file=schema, project_dir=root)
            assert len(result.added) == len(load_spec_file(spec).rules), spec.name
            assert schema.read_text().startswith(f"version: 2\nmodels:\n  - name: {model}\n")


def test_import_of_the_gcloud_describe_shape_sets_incremental_field_and_notes(tmp_path):
    root = project(tmp_path, schema=None)
    result = import_spec(CORPUS / "terraform_full_quality_state.json", "orders", project_dir=root)
    text = (root / "models" / "schema.yml").read_text()
    assert "          incremental_field: event_ts\n" in text
    assert "          row_filter: source_system <> 'test'\n" in text
    assert any("execution_spec.trigger is left out" in n for n in result.notes)


def test_yaml_1_1_lookalikes_stay_strings_for_dbt(tmp_path):
    root = project(tmp_path, schema=None)
    import_spec(CORPUS / "all_null_explicit_unset.yaml", "orders", project_dir=root)
    text = (root / "models" / "schema.yml").read_text()
    assert "                  - 'yes'\n                  - 'no'\n" in text
    import yaml  # dbt reads schema files with PyYAML (YAML 1.1)

    doc = yaml.safe_load(text)
    note = next(c for c in doc["models"][0]["columns"] if c["name"] == "note")
    assert note["data_tests"][0]["dataplex_dq.set_expectation"]["arguments"]["values"] == ["yes", "no"]


def test_transpiles_googlesql_for_duckdb_and_postgres(tmp_path):
    root = project(tmp_path, schema=None)
    result = import_spec(CORPUS / "googlesql_functions.yaml", "orders", dialect="duckdb", project_dir=root)
    assert result.sql_changes == [
        ("row_filter", "DATE(event_ts) >= DATE '2000-01-01'", "CAST(event_ts AS DATE) >= CAST('2000-01-01' AS DATE)"),
        (
            "rule 'event-within-a-year' sql_expression",
            "DATE_DIFF(event_date, DATE '2024-01-01', DAY) BETWEEN 0 AND 366",
            "DATE_DIFF('DAY', CAST('2024-01-01' AS DATE), event_date) BETWEEN 0 AND 366",
        ),
        (
            "rule 'session-id-shape' sql_expression",
            "REGEXP_CONTAINS(session_id, r'^s[0-9]+$')",
            "REGEXP_MATCHES(session_id, '^s[0-9]+$')",
        ),
        (
            "rule 'web-events-at-least-five' sql_expression",
            "COUNTIF(source_system = 'web') >= 5",
            "COUNT_IF(source_system = 'web') >= 5",
        ),
        (
            "rule 'no-numeric-session-ids' sql_statement",
            "SELECT id FROM ${data()} WHERE SAFE_CAST(session_id AS INT64) IS NOT NULL",
            "SELECT id FROM ${data()} WHERE NOT TRY_CAST(session_id AS BIGINT) IS NULL",
        ),
        (
            "rule 'no-numeric-session-ids' debug query 1",
            "SELECT COUNTIF(source_system = 'web') AS web, COUNTIF(source_system = 'app') AS app FROM ${data()}",
            "SELECT COUNT_IF(source_system = 'web') AS web, COUNT_IF(source_system = 'app') AS app FROM ${data()}",
        ),
    ]
    assert result.sql_problems == []
    text = (root / "models" / "schema.yml").read_text()
    assert "sql_statement: SELECT id FROM ${data()} WHERE NOT TRY_CAST(session_id AS BIGINT) IS NULL\n" in text

    (tmp_path / "pg").mkdir()
    root2 = project(tmp_path / "pg", schema=None)
    result = import_spec(CORPUS / "googlesql_functions.yaml", "orders", dialect="postgres", project_dir=root2)
    # SAFE_CAST cannot be written faithfully for PostgreSQL: reported and left as written
    assert result.sql_problems == [
        (
            "rule 'no-numeric-session-ids' sql_statement",
            "SAFE_CAST has no PostgreSQL equivalent (a plain CAST raises where SAFE_CAST gives NULL)",
        ),
    ]
    assert "WHERE SAFE_CAST(session_id AS INT64) IS NOT NULL" in (root2 / "models" / "schema.yml").read_text()
    assert (
        "rule 'web-events-at-least-five' sql_expression",
        "COUNTIF(source_system = 'web') >= 5",
        "SUM(CASE WHEN source_system = 'web' THEN 1 ELSE 0 END) >= 5",
    ) in result.sql_changes


def test_transpile_keeps_text_the_dialect_reads_the_same_and_reports_unparsable_sql():
    assert transpile("status != 'test'", "duckdb").sql == "status != 'test'"  # sqlglot would write <>
    assert transpile("LENGTH(code) > 0", "duckdb").changed is False
    assert transpile("x > (select min(x) from ${data()})", "postgres").changed is False
    bad = transpile("SELECT FROM WHERE", "duckdb")
    assert bad.sql == "SELECT FROM WHERE" and bad.changed is False
    assert (
        bad.problem == "sqlglot cannot parse it as GoogleSQL (Expected table name but got 'WHERE' at line 1, column 17)"
    )
    assert transpile("COUNTIF(a) > 1", "bigquery").changed is False


def test_table_names_in_sql_are_pointed_out(tmp_path):
    assert bigquery_tables(
        "SELECT * FROM `my-project.sales.orders` o JOIN ${data()} d ON o.id = d.id JOIN cte ON TRUE"
    ) == ["my-project.sales.orders"]
    root = project(tmp_path, schema=None)
    spec = write_spec(
        tmp_path,
        """\
        rules:
          - name: orders-exist
            sqlAssertion:
              sqlStatement: SELECT * FROM `my-project.sales.orders` WHERE amount < 0
        """,
    )
    result = import_spec(spec, "orders", dialect="bigquery", project_dir=root)
    assert result.table_hints == [("rule 'orders-exist' sql_statement", "my-project.sales.orders")]
    runner = CliRunner()
    out = runner.invoke(
        main,
        ["import-spec", str(spec), "--model", "orders", "--dialect", "bigquery", "--project-dir", str(root), "--force"],
    )
    assert out.exit_code == 0, out.output
    assert (
        "check: rule 'orders-exist' sql_statement reads the table my-project.sales.orders by name; "
        "use ${data()} for the data source itself (row filter and sampling apply to it)"
    ) in out.output


def test_errors_are_one_line_with_exit_code_2(tmp_path):
    root = project(tmp_path)
    runner = CliRunner()
    spec = write_spec(tmp_path, "rules: [{rangeExpectation: {minValue: 1}}]\n")
    out = runner.invoke(
        main, ["import-spec", str(spec), "--model", "orders", "--project-dir", str(root), "--dialect", "duckdb"]
    )
    assert out.exit_code == 2
    assert (
        out.output == f"dataplex-dq import-spec failed: {spec}: model 'orders', rule #0 'range_expectation-0', field "
        "'column': is required: give the rule a column: (range_expectation checks one column); nothing was written "
        "(dbt would refuse it at compile time)\n"
    )
    out = runner.invoke(
        main,
        [
            "import-spec",
            str(CORPUS / "notifications_snake.yaml"),
            "--model",
            "nope",
            "--project-dir",
            str(root),
            "--dialect",
            "duckdb",
        ],
    )
    assert out.exit_code == 2
    assert out.output.startswith("dataplex-dq import-spec failed: no model, seed or snapshot named 'nope' in ")
    bad = write_spec(tmp_path, "rules: [{column: a, nonNullExpectation: {}, treshold: 1}]\n", "bad.yaml")
    out = runner.invoke(
        main, ["import-spec", str(bad), "--model", "orders", "--project-dir", str(root), "--dialect", "duckdb"]
    )
    assert out.exit_code == 2
    assert (
        out.output
        == f"dataplex-dq import-spec failed: {bad}: unknown field 'rules[0].treshold' in DataQualityRule (did you "
        "mean 'threshold'?)\n"
    )


def test_command_prints_what_it_added(tmp_path, monkeypatch):
    root = project(tmp_path)
    (root / "profiles.yml").write_text("shop:\n  target: dev\n  outputs:\n    dev: {type: duckdb, path: x.duckdb}\n")
    monkeypatch.chdir(root)
    monkeypatch.delenv("DBT_PROFILES_DIR", raising=False)
    out = CliRunner().invoke(main, ["import-spec", str(CORPUS / "notifications_snake.yaml"), "--model", "orders"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == "Added 4 rules to model 'orders' in models/schema.yml, as per-rule tests."
    assert any(
        line.split() == ["event-ts-present", "│", "non_null_expectation", "│", "column", "event_ts"] for line in lines
    )
    assert "Setting row_filter = \"source_system <> 'test'\" in meta.dataplex_dq." in lines


def test_dialect_comes_from_the_profile(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.delenv("DBT_PROFILES_DIR", raising=False)
    monkeypatch.delenv("DBT_TARGET", raising=False)
    (root / "profiles.yml").write_text(
        "shop:\n  target: dev\n  outputs:\n    dev: {type: duckdb, path: x.duckdb}\n    prod: {type: bigquery, "
        "method: oauth, project: p, dataset: d}\n"
    )
    assert target_dialect(root, None, None) == "duckdb"
    assert target_dialect(root, None, "prod") == "bigquery"
    (root / "profiles.yml").write_text("shop:\n  target: \"{{ env_var('T') }}\"\n  outputs: {}\n")
    assert target_dialect(root, None, None) is None


def test_guess_indent():
    assert guess_indent(SCHEMA) == (2, 2)
    assert guess_indent("models:\n- name: a\n  columns:\n  - name: b\n") == (2, 0)
    assert guess_indent("models:\n    -   name: a\n        config:\n            meta: {}\n") == (4, 4)


FORCE_SCHEMA = """\
version: 2
models:
  - name: orders
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.range_expectation:
              name: qty-in-range   # the range the shop allows
              arguments:
                min_value: 0
              config:
                severity: warn
                tags: [dq]
          - not_null
      - name: price
        data_tests:
          - dataplex_dq.non_null_expectation:
              name: price-present
              severity: warn
"""


def test_force_keeps_the_replaced_tests_config_in_place(tmp_path):
    """issue 30 item 13: `severity: warn` was dropped by --force, so a warning became a failure."""
    root = project(tmp_path, schema=FORCE_SCHEMA)
    spec = write_spec(
        tmp_path,
        """\
        rules:
          - {name: qty-in-range, column: qty, rangeExpectation: {minValue: "1", maxValue: "100"}}
          - {name: price-present, column: cost, nonNullExpectation: {}}
        """,
    )
    result = import_spec(spec, "orders", project_dir=root, force=True)
    assert result.replaced == ["qty-in-range", "price-present"]
    assert (
        (root / "models" / "schema.yml").read_text()
        == """\
version: 2
models:
  - name: orders
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.range_expectation:
              name: qty-in-range   # the range the shop allows
              arguments:
                min_value: '1'
                max_value: '100'
              config:
                severity: warn
                tags: [dq]
          - not_null
      - name: price
      - name: cost
        data_tests:
          - dataplex_dq.non_null_expectation:
              name: price-present
              severity: warn
"""
    )
    assert result.notes == [
        "rule 'qty-in-range' keeps the replaced test's config",
        "rule 'price-present' keeps the replaced test's severity",
    ]


def test_force_twice_is_a_fixed_point_and_leaves_no_empty_tests_list(tmp_path):
    root = project(tmp_path, schema=FORCE_SCHEMA)
    spec = write_spec(tmp_path, "rules: [{name: price-present, column: cost, nonNullExpectation: {}}]\n")
    import_spec(spec, "orders", project_dir=root, force=True)
    once = (root / "models" / "schema.yml").read_text()
    assert "data_tests: []" not in once
    import_spec(spec, "orders", project_dir=root, force=True)
    assert (root / "models" / "schema.yml").read_text() == once
