"""docs/SEMANTICS.md §3: bad declarations fail at compile time with an error naming the data source, rule and field."""

from __future__ import annotations

import textwrap

import pytest

from dbt_harness import INTEGRATION_DIR, DbtProject

SEED = (
    "id,amount,name,created_on,created_at\n1,5,a,2024-01-01,2024-01-01 10:00:00\n2,,b,2024-02-01,2024-02-01 11:30:00\n"
)

# (rule name, YAML of the test under column `amount` or at model level, expected fragments of the error)
COLUMN_CASES = [
    (
        "unknown-arg",
        "dataplex_dq.range_expectation: {name: unknown-arg, arguments: {min_value: 0, maximum: 3}}",
        ["seed 'checks'", "rule 'unknown-arg'", "dataplex_dq.range_expectation", "field 'maximum'", "unknown argument"],
    ),
    (
        "no-bounds",
        "dataplex_dq.range_expectation: {name: no-bounds, arguments: {strict_min_enabled: true}}",
        ["rule 'no-bounds'", "field 'min_value'", "at least one of min_value and max_value"],
    ),
    (
        "stat-no-bounds",
        "dataplex_dq.statistic_range_expectation: {name: stat-no-bounds, arguments: {statistic: MEAN}}",
        ["rule 'stat-no-bounds'", "at least one of min_value and max_value"],
    ),
    (
        "bad-threshold",
        "dataplex_dq.non_null_expectation: {name: bad-threshold, arguments: {threshold: 1.5}}",
        ["rule 'bad-threshold'", "field 'threshold'", "between 0 and 1", "1.5"],
    ),
    (
        "negative-threshold",
        "dataplex_dq.non_null_expectation: {name: negative-threshold, arguments: {threshold: -0.1}}",
        ["field 'threshold'", "between 0 and 1"],
    ),
    (
        "threshold-on-aggregate",
        "dataplex_dq.statistic_range_expectation: {name: threshold-on-aggregate, arguments: {statistic: MAX, "
        "max_value: 9, threshold: 0.5}}",
        ["rule 'threshold-on-aggregate'", "field 'threshold'", "only allowed on row-level rules"],
    ),
    (
        "ignore-null-on-non-null",
        "dataplex_dq.non_null_expectation: {name: ignore-null-on-non-null, arguments: {ignore_null: true}}",
        ["field 'ignore_null'", "only valid for range, regex, set and uniqueness"],
    ),
    (
        "bad-dimension",
        "dataplex_dq.non_null_expectation: {name: bad-dimension, arguments: {dimension: validity}}",
        ["field 'dimension'", "'validity'", "upper-case"],
    ),
    (
        "long-dimension",
        "dataplex_dq.non_null_expectation: {name: long-dimension, arguments: {dimension: "
        "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDE}}",
        ["field 'dimension'", "1 to 30 upper-case letters"],
    ),
    (
        "bad_rule_name",
        "dataplex_dq.non_null_expectation: {name: bad_rule_name}",
        ["rule 'bad_rule_name'", "field 'name'", "not a valid Dataplex rule name"],
    ),
    (
        "ends-with-hyphen-",
        "dataplex_dq.non_null_expectation: {name: ends-with-hyphen-}",
        ["field 'name'", "not a valid Dataplex rule name"],
    ),
    (
        "long-description",
        "dataplex_dq.non_null_expectation: {name: long-description, description: '" + "x" * 1025 + "'}",
        ["field 'description'", "1025 characters", "at most 1024"],
    ),
    (
        "bad-statistic",
        "dataplex_dq.statistic_range_expectation: {name: bad-statistic, arguments: {statistic: MEDIAN, min_value: 1}}",
        ["field 'statistic'", "MEAN, MIN, MAX", "MEDIAN"],
    ),
    (
        "empty-set",
        "dataplex_dq.set_expectation: {name: empty-set, arguments: {values: []}}",
        ["field 'values'", "non-empty list"],
    ),
    (
        "unbalanced-regex",
        "dataplex_dq.regex_expectation: {name: unbalanced-regex, arguments: {regex: '^(ab'}}",
        ["field 'regex'", "unmatched '('"],
    ),
    (
        "lookahead-regex",
        "dataplex_dq.regex_expectation: {name: lookahead-regex, arguments: {regex: 'a(?=b)'}}",
        ["field 'regex'", "RE2 does not support"],
    ),
    (
        "unterminated-class",
        "dataplex_dq.regex_expectation: {name: unterminated-class, arguments: {regex: '[a-z'}}",
        ["field 'regex'", "unterminated character class"],
    ),
    (
        "bound-not-integer",
        "dataplex_dq.range_expectation: {name: bound-not-integer, arguments: {min_value: abc}}",
        ["field 'min_value'", "'abc' is not an integer", "INTEGER"],
    ),
    (
        "set-value-not-integer",
        "dataplex_dq.set_expectation: {name: set-value-not-integer, arguments: {values: ['1', 'two']}}",
        ["field 'values[1]'", "'two' is not an integer"],
    ),
    (
        "bad-bool",
        "dataplex_dq.range_expectation: {name: bad-bool, arguments: {min_value: 1, strict_min_enabled: 'yes'}}",
        ["field 'strict_min_enabled'", "must be true or false"],
    ),
    (
        "bad-debug-query",
        "dataplex_dq.non_null_expectation: {name: bad-debug-query, arguments: {debug_queries: [{sql_statement: "
        "'select 1; select 2'}]}}",
        ["field 'debug_queries[0].sql_statement'", "semicolon"],
    ),
    # issue 9, E.1
    (
        "nan-threshold",
        "dataplex_dq.non_null_expectation: {name: nan-threshold, arguments: {threshold: .nan}}",
        ["field 'threshold'", "between 0 and 1", "nan"],
    ),
    (
        "inf-threshold",
        "dataplex_dq.non_null_expectation: {name: inf-threshold, arguments: {threshold: .inf}}",
        ["field 'threshold'", "between 0 and 1", "inf"],
    ),
    (
        "debug-query-string",
        "dataplex_dq.non_null_expectation: {name: debug-query-string, arguments: {debug_queries: 'select 1'}}",
        ["field 'debug_queries'", "must be a list of {description, sql_statement}"],
    ),
    (
        "debug-query-strings",
        "dataplex_dq.non_null_expectation: {name: debug-query-strings, arguments: {debug_queries: ['select 1']}}",
        ["field 'debug_queries[0]'", "must be a mapping with sql_statement", "select 1"],
    ),
    (
        "attributes-not-strings",
        "dataplex_dq.non_null_expectation: {name: attributes-not-strings, arguments: {attributes: {owner: [a, b]}}}",
        ["field 'attributes.owner'", "must be a string", "['a', 'b']"],
    ),
    (
        "attributes-list",
        "dataplex_dq.non_null_expectation: {name: attributes-list, arguments: {attributes: [a]}}",
        ["field 'attributes'", "mapping of string keys"],
    ),
    (
        "nested-set",
        "dataplex_dq.set_expectation: {name: nested-set, arguments: {values: [[1, 2], 3]}}",
        ["field 'values'", "item 0 must be a single value", "[1, 2]"],
    ),
    (
        "nested-set-map",
        "dataplex_dq.set_expectation: {name: nested-set-map, arguments: {values: [1, {a: 2}]}}",
        ["field 'values'", "item 1 must be a single value"],
    ),
    # the rule types whose column is optional, declared under a column: that column is theirs
    (
        "row-condition-under-column",
        "dataplex_dq.row_condition_expectation: {name: row-condition-under-column, arguments: {sql_expression: "
        "'amount > 0'}}",
        None,
    ),
    (
        "table-condition-under-column",
        "dataplex_dq.table_condition_expectation: {name: table-condition-under-column, arguments: {sql_expression: "
        "'count(amount) = 1'}}",
        None,
    ),
    (
        "assertion-under-column",
        "dataplex_dq.sql_assertion: {name: assertion-under-column, arguments: {sql_statement: 'select * from "
        "${data()} where amount < 0', column: AMOUNT}}",
        None,
    ),
    (
        "assertion-other-column",
        "dataplex_dq.sql_assertion: {name: assertion-other-column, arguments: {sql_statement: 'select 1', column: "
        "name}}",
        ["rule 'assertion-other-column'", "field 'column'", "declared under column 'amount'", "says 'name'"],
    ),
]

MODEL_CASES = [
    (
        "semicolon-assertion",
        "dataplex_dq.sql_assertion: {name: semicolon-assertion, arguments: {sql_statement: 'select * from ${data()} "
        "where amount < 0;'}}",
        [
            "seed 'checks'",
            "rule 'semicolon-assertion'",
            "dataplex_dq.sql_assertion",
            "field 'sql_statement'",
            "semicolon",
        ],
    ),
    (
        "threshold-on-assertion",
        "dataplex_dq.sql_assertion: {name: threshold-on-assertion, arguments: {sql_statement: 'select 1', threshold: "
        "0.9}}",
        ["field 'threshold'", "only allowed on row-level rules"],
    ),
    (
        "missing-column",
        "dataplex_dq.non_null_expectation: {name: missing-column}",
        ["rule 'missing-column'", "field 'column'", "is required"],
    ),
    (
        "valid-row-condition",
        "dataplex_dq.row_condition_expectation: {name: valid-row-condition, arguments: {sql_expression: 'amount > "
        "0', column: amount}}",
        None,
    ),  # valid: must compile
    (
        "no-such-column",
        "dataplex_dq.row_condition_expectation: {name: no-such-column, arguments: {column: amnt, sql_expression: "
        "'amount > 0'}}",
        [
            "rule 'no-such-column'",
            "field 'column'",
            "'amnt' does not exist",
            "its columns are: id, amount, name, created_on",
        ],
    ),
    (
        "empty-expression",
        "dataplex_dq.table_condition_expectation: {name: empty-expression, arguments: {sql_expression: '  '}}",
        ["field 'sql_expression'", "is required"],
    ),
    (
        "dup-name",
        "dataplex_dq.table_condition_expectation: {name: dup-name, arguments: {sql_expression: 'count(*) > 0'}}",
        None,
    ),
]

# issue 9, E.1: under column created_on (a date): the right shape, an impossible value
DATE_CASES = [
    (
        "impossible-date",
        "dataplex_dq.range_expectation: {name: impossible-date, arguments: {min_value: '2024-13-45'}}",
        ["field 'min_value'", "'2024-13-45' is not a valid date"],
    ),
    (
        "impossible-day",
        "dataplex_dq.set_expectation: {name: impossible-day, arguments: {values: ['2024-01-01', '2023-02-29']}}",
        ["field 'values[1]'", "'2023-02-29' is not a valid date"],
    ),
    ("leap-day-ok", "dataplex_dq.range_expectation: {name: leap-day-ok, arguments: {min_value: '2024-02-29'}}", None),
]

# issue 9, E.1: under column created_at (a timestamp): the right shape, an impossible value
TIMESTAMP_CASES = [
    (
        "impossible-hour",
        "dataplex_dq.range_expectation: {name: impossible-hour, arguments: {max_value: '2024-01-01 24:30:00'}}",
        ["field 'max_value'", "'2024-01-01 24:30:00' is not a valid timestamp"],
    ),
    (
        "impossible-ts-day",
        "dataplex_dq.range_expectation: {name: impossible-ts-day, arguments: {min_value: '2023-02-29 00:00:00'}}",
        ["field 'min_value'", "'2023-02-29 00:00:00' is not a valid timestamp"],
    ),
    (
        "timestamp-ok",
        "dataplex_dq.range_expectation: {name: timestamp-ok, arguments: {min_value: '2024-02-29 23:59:59'}}",
        None,
    ),
]


# issue 9, C.3: every problem of a declaration in one run, each on its own line naming the data
# source, the rule and the field (one per-rule test with four problems, one scan with seven)
MANY_PROBLEMS_RULE = (
    "dataplex_dq.range_expectation: {name: many-problems-rule, arguments: "
    "{threshold: 2, dimension: validity, strict_min_enabled: 'yes'}}"
)
MANY_PROBLEMS_RULE_LINES = [
    "dataplex_dq: seed 'checks_many', rule 'many-problems-rule' (dataplex_dq.range_expectation), field 'dimension': "
    "'validity' must be 1 to 30 upper-case letters",
    "dataplex_dq: seed 'checks_many', rule 'many-problems-rule' (dataplex_dq.range_expectation), field 'threshold': "
    "must be a number between 0 and 1 (0 means 1.0), got 2",
    "dataplex_dq: seed 'checks_many', rule 'many-problems-rule' (dataplex_dq.range_expectation), field 'min_value': "
    "at least one of min_value and max_value must be given",
    "dataplex_dq: seed 'checks_many', rule 'many-problems-rule' (dataplex_dq.range_expectation), field "
    "'strict_min_enabled': must be true or false, got yes",
]
MANY_PROBLEMS_SCAN = (
    "{samplingPercent: 150, rules: ["
    "{nonNullExpectation: {}, column: id, threshold: 1.5}, "
    "{rangeExpectation: {minValue: abc}, column: amount, name: bound-abc}, "
    "{setExpectation: {values: []}, column: name, dimension: validity}, "
    "{regexExpectation: {regex: '^(ab'}, column: name}, "
    "{uniquenessExpectation: {}, column: nope}, "
    "{fooExpectation: {}, column: id}]}"
)
_SCAN = "dataplex_dq: seed 'checks_many', "
MANY_PROBLEMS_SCAN_LINES = [
    _SCAN + "data_quality_scan 'many-problems-scan' (dataplex_dq.data_quality_scan), field 'sampling_percent': "
    "must be a number between 0 and 100, got 150",
    _SCAN + "rule #0 'non-null-id-0' (dataplex_dq.data_quality_scan non_null_expectation), field 'threshold': "
    "must be a number between 0 and 1",
    _SCAN + "rule #2 'set-name-2' (dataplex_dq.data_quality_scan set_expectation), field 'dimension': "
    "'validity' must be 1 to 30 upper-case letters",
    _SCAN + "rule #2 'set-name-2' (dataplex_dq.data_quality_scan set_expectation), field 'values': "
    "must be a non-empty list of values",
    _SCAN + "rule #3 'regex-name-3' (dataplex_dq.data_quality_scan regex_expectation), field 'regex': '^(ab' ",
    _SCAN + "rule #5 'rule-id-5' (dataplex_dq.data_quality_scan), field 'fooExpectation': is not a Dataplex rule "
    "type; give exactly one of: range_expectation, ",
    _SCAN + "rule #1 'bound-abc' (dataplex_dq.data_quality_scan range_expectation), field 'min_value': "
    "'abc' is not an integer",
    _SCAN + "rule #4 'uniqueness-nope-4' (dataplex_dq.data_quality_scan uniqueness_expectation), field 'column': "
    "column 'nope' does not exist",
]


def _project(tmp_path, extra_seed_meta: str = "") -> DbtProject:
    proj = tmp_path / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    (proj / "seeds" / "checks.csv").write_text(SEED)
    (proj / "seeds" / "checks_meta.csv").write_text(SEED)
    (proj / "seeds" / "checks_incremental.csv").write_text(SEED)
    (proj / "seeds" / "checks_nan.csv").write_text(SEED)
    (proj / "seeds" / "checks_many.csv").write_text(SEED)
    (proj / "seeds" / "checks_quoted.csv").write_text("Event ID,amount\n1,5\n1,\n2,3\n")
    (proj / "models" / "ephemeral_orders.sql").write_text("{{ config(materialized='ephemeral') }}\nselect 1 as id\n")
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: validation_checks
        version: "1.0"
        config-version: 2
        profile: dataplex_dq_integration_tests
        seeds:
          validation_checks:
            +column_types: {id: integer, amount: integer, name: varchar, created_on: date, created_at: timestamp}
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    column_tests = "\n".join(f"          - {yaml}" for _, yaml, _ in COLUMN_CASES)
    date_tests = "\n".join(f"          - {yaml}" for _, yaml, _ in DATE_CASES)
    timestamp_tests = "\n".join(f"          - {yaml}" for _, yaml, _ in TIMESTAMP_CASES)
    model_tests = "\n".join(f"      - {yaml}" for _, yaml, _ in MODEL_CASES)
    (proj / "models" / "schema.yml").write_text(
        "version: 2\nseeds:\n"
        "  - name: checks\n"
        "    columns:\n"
        "      - name: amount\n"
        "        data_tests:\n" + column_tests + "\n"
        "          - dataplex_dq.non_null_expectation: {name: dup-name}\n"
        "      - name: created_on\n"
        "        data_tests:\n" + date_tests + "\n"
        "      - name: created_at\n"
        "        data_tests:\n" + timestamp_tests + "\n"
        "    data_tests:\n" + model_tests + "\n"
        "  - name: checks_meta\n"
        "    config: {meta: {dataplex_dq: {sampling_percent: 150}}}\n"
        "    data_tests:\n"
        "      - dataplex_dq.table_condition_expectation: {name: sampling-out-of-range, arguments: {sql_expression: "
        "'count(*) > 0'}}\n"
        "  - name: checks_nan\n"
        "    config: {meta: {dataplex_dq: {sampling_percent: .nan}}}\n"
        "    data_tests:\n"
        "      - dataplex_dq.table_condition_expectation: {name: sampling-nan, arguments: {sql_expression: 'count(*) "
        "> 0'}}\n"
        "  - name: checks_incremental\n"
        "    config: {meta: {dataplex_dq: {incremental_field: id}}}\n"
        "    data_tests:\n"
        "      - dataplex_dq.table_condition_expectation: {name: incremental-not-a-date, arguments: {sql_expression: "
        "'count(*) > 0'}}\n"
        "      - dataplex_dq.data_quality_scan:\n"
        "          name: incremental-scan-bad-lookback\n"
        "          arguments: {incrementalField: created_on, incrementalLookback: 'two days', rules: "
        "[{nonNullExpectation: {}, column: id}]}\n"
        "  - name: checks_many\n"
        "    columns:\n"
        "      - name: amount\n"
        "        data_tests:\n"
        "          - " + MANY_PROBLEMS_RULE + "\n"
        "    data_tests:\n"
        "      - dataplex_dq.data_quality_scan:\n"
        "          name: many-problems-scan\n"
        "          arguments: " + MANY_PROBLEMS_SCAN + "\n"
        # a column with `quote: true`: dbt passes the tests its name quoted
        "  - name: checks_quoted\n"
        "    columns:\n"
        "      - name: Event ID\n"
        "        quote: true\n"
        "        data_tests:\n"
        "          - dataplex_dq.uniqueness_expectation: {name: quoted-unique}\n"
        "          - dataplex_dq.non_null_expectation\n"
        "          - dataplex_dq.row_condition_expectation: {name: quoted-condition, arguments: {sql_expression: "
        "'\"Event ID\" > 1', column: Event ID}}\n"
        # an ephemeral model: no relation to scan
        "models:\n"
        "  - name: ephemeral_orders\n"
        "    columns:\n"
        "      - name: id\n"
        "        data_tests:\n"
        "          - dataplex_dq.non_null_expectation: {name: ephemeral-id}\n"
        "    data_tests:\n"
        "      - dataplex_dq.data_quality_scan:\n"
        "          name: ephemeral-scan\n"
        "          arguments: {rules: [{column: id, uniquenessExpectation: {}}]}\n"
        # a source whose table is not there (a wrong schema): its column rule says so
        "sources:\n"
        "  - name: elsewhere\n"
        "    schema: no_such_schema\n"
        "    tables:\n"
        "      - name: gone\n"
        "        columns:\n"
        "          - name: id\n"
        "            data_tests:\n"
        "              - dataplex_dq.non_null_expectation: {name: column-of-a-missing-table}\n"
    )
    return DbtProject(proj, INTEGRATION_DIR, tmp_path / "target", {"DBT_DUCKDB_PATH": str(tmp_path / "v.duckdb")})


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return _project(tmp_path_factory.mktemp("validation"))


@pytest.fixture(scope="module")
def compiled(project):
    assert project.run("deps").returncode == 0
    seed = project.run("seed")
    assert seed.returncode == 0, seed.output
    result = project.run("test")
    return result, result.results_by_name()


@pytest.mark.parametrize(
    "name,expected", [(n, e) for n, _, e in COLUMN_CASES + MODEL_CASES + DATE_CASES + TIMESTAMP_CASES if e is not None]
)
def test_bad_declaration_is_a_compile_error(compiled, name, expected):
    _, results = compiled
    assert name in results, f"no compile result for {name}: {sorted(results)}"
    r = results[name]
    assert r["status"] == "error", f"{name} compiled although it is invalid"
    for fragment in expected:
        assert fragment in r["message"], f"{name}: {fragment!r} not in error:\n{r['message']}"
    assert "Compilation Error" in r["message"] or "dataplex_dq:" in r["message"]


def test_valid_declaration_compiles(compiled):
    _, results = compiled
    # it compiles and runs: 1 of 2 rows has amount > 0, so the rule fails on data, not on declaration
    assert results["valid-row-condition"]["status"] == "fail", results["valid-row-condition"]["message"]
    assert results["valid-row-condition"]["failures"] == 1


def test_rules_with_an_optional_column_take_the_column_they_are_declared_under(project, compiled):
    result, results = compiled
    rows = {}
    for name in ("row-condition-under-column", "table-condition-under-column", "assertion-under-column"):
        assert results[name]["status"] in {"pass", "fail"}, results[name]["message"]
        node = result.manifest["nodes"][results[name]["unique_id"]]
        # recorded at parse time with the column (export-spec and the report read it from here)
        assert [r["rule"]["column"] for r in node["config"]["meta"]["dataplex_dq_rules"]] == ["amount"]
        (rows[name],) = project.query(f"select * from {node['relation_name']}")
    # amount is 5 and NULL: the NULL row fails `amount > 0` and is the column's null count
    row = rows["row-condition-under-column"]
    assert (row["rule_column"], row["evaluated_count"], row["passed_count"], row["null_count"]) == ("amount", 2, 1, 1)
    assert results["row-condition-under-column"]["failures"] == 1
    assert (rows["table-condition-under-column"]["rule_column"], rows["table-condition-under-column"]["passed"]) == (
        "amount",
        True,
    )
    row = rows["assertion-under-column"]
    assert (row["rule_column"], row["assertion_row_count"], row["passed"]) == ("amount", 0, True)


def test_a_quoted_column_is_the_rules_column_by_its_own_name(project, compiled):
    """`quote: true`: dbt gives the tests the column as '"Event ID"'; the rule's column (metrics row, recorded
    identity, derived name) is `Event ID`, as Dataplex names it, and the SQL still reads that column."""
    result, results = compiled
    nodes = {
        n["name"]: n
        for n in result.manifest["nodes"].values()
        if n["resource_type"] == "test" and n["attached_node"] == "seed.validation_checks.checks_quoted"
    }
    assert len(nodes) == 3
    rows = {}
    for name, node in nodes.items():
        assert results[name]["status"] in {"pass", "fail"}, results[name]["message"]
        assert [r["rule"]["column"] for r in node["config"]["meta"]["dataplex_dq_rules"]] == ["Event ID"]
        (row,) = project.query(f"select * from {node['relation_name']}")
        rows[row["rule_name"]] = row
    derived = next(n for n in rows if n.startswith("non-null-"))
    assert derived.startswith("non-null-event-id-")
    # Event ID is 1, 1, 2: both 1s are duplicates; none is NULL; only 2 is > 1
    assert {n: (r["rule_column"], r["evaluated_count"], r["passed_count"]) for n, r in rows.items()} == {
        "quoted-unique": ("Event ID", 3, 1),
        derived: ("Event ID", 3, 3),
        "quoted-condition": ("Event ID", 3, 1),
    }


@pytest.mark.parametrize("name", ["ephemeral-id", "ephemeral-scan"])
def test_an_ephemeral_model_is_no_data_source(compiled, name):
    _, results = compiled
    r = results[name]
    assert r["status"] == "error"
    assert (
        "model 'ephemeral_orders' is ephemeral: it has no table or view in the warehouse to scan; materialize it as "
        "a view or table" in r["message"]
    ), r["message"]
    assert r["message"].count("dataplex_dq: ") == 1, r["message"]  # one line: not also "no columns for None"


def test_a_column_of_a_relation_that_is_not_there(compiled):
    _, results = compiled
    r = results["column-of-a-missing-table"]
    assert r["status"] == "error"
    assert (
        "dataplex_dq: source 'elsewhere.gone', rule 'column-of-a-missing-table' (dataplex_dq.non_null_expectation), "
        "field 'column': column 'id' cannot be checked: the warehouse reports no columns for " in r["message"]
    ), r["message"]
    assert "no_such_schema" in r["message"] and "it does not exist" in r["message"]
    assert "its columns are" not in r["message"]


@pytest.mark.parametrize("name", ["leap-day-ok", "timestamp-ok"])
def test_real_dates_and_timestamps_compile(compiled, name):
    _, results = compiled
    # a valid bound compiles and runs: both rows lie before 2024-02-29 (23:59:59), so the rule fails on data
    assert results[name]["status"] == "fail", results[name]["message"]
    assert results[name]["failures"] == 1


def test_duplicate_rule_names_on_one_data_source(compiled):
    result, _ = compiled
    dup_results = [
        r for r in result.run_results["results"] if result.manifest["nodes"][r["unique_id"]]["name"] == "dup-name"
    ]
    assert len(dup_results) == 2
    for r in dup_results:
        assert r["status"] == "error"
        assert "another rule on the same data source is also named 'dup-name'" in r["message"]


def test_scan_settings_are_checked(compiled):
    _, results = compiled
    msg = results["sampling-out-of-range"]["message"]
    assert "seed 'checks_meta'" in msg and "field 'sampling_percent'" in msg and "between 0 and 100, got 150" in msg
    # docs/SEMANTICS.md §12: the window's field must be a DATE or TIMESTAMP column, checked at compile time
    msg = results["incremental-not-a-date"]["message"]
    assert "seed 'checks_incremental'" in msg and "field 'incremental_field'" in msg
    assert "column 'id' is INTEGER; an incremental field must be a DATE or TIMESTAMP column" in msg
    msg = results["incremental-scan-bad-lookback"]["message"]
    assert "seed 'checks_incremental'" in msg and "field 'incremental_lookback'" in msg and "got two days" in msg
    msg = results["sampling-nan"]["message"]  # issue 9, E.1
    assert "seed 'checks_nan'" in msg and "field 'sampling_percent'" in msg and "between 0 and 100, got nan" in msg


@pytest.mark.parametrize(
    "name,lines",
    [("many-problems-rule", MANY_PROBLEMS_RULE_LINES), ("many-problems-scan", MANY_PROBLEMS_SCAN_LINES)],
)
def test_every_problem_of_a_declaration_in_one_run(compiled, name, lines):
    """Issue 9, C.3: one run reports every problem of the declaration (not only the first), in one
    compiler error whose lines each name the data source, the rule and the field."""
    _, results = compiled
    r = results[name]
    assert r["status"] == "error"
    message = r["message"]
    problems = [line.strip() for line in message.splitlines() if line.strip().startswith("dataplex_dq: seed")]
    assert "problems in the declaration of seed 'checks_many'" in message
    for expected in lines:
        assert any(p.startswith(expected) for p in problems), f"{expected!r} not a line of:\n{message}"
    assert len(problems) >= len(lines)
    # one line for a rule whose only mistake is a rule type Dataplex does not have (not also "has no rule type")
    assert [p for p in problems if "rule #5 'rule-id-5'" in p and "has no rule type" in p] == []
