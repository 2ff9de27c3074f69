"""Issue 30 items 5-7 on every target (DuckDB, PostgreSQL, BigQuery emulator): one bad value never loses
an invocation, and bounds are exact on every warehouse.

One throwaway project, built once per target:

- item 7, exact decimals: bounds with more digits than a DECIMAL(38,0) column's scale, and bounds beyond
  its range, compared at values near 10^38 (BigQuery: NUMERIC, 10^28), as range, set and statistic rules;
- item 7, doubles: bounds and set values that underflow or overflow a double (`1e-324`, `-1e-324`,
  `2e-324`, `-1e309`, `1e400`) compare with the nearest double (±0, ±infinity), in per-rule tests and in
  a data_quality_scan (where one such bound used to lose every rule of the scan);
- item 7, RE2 on PostgreSQL: `.` does not match a newline, `\\x41b` is 'A' then 'b', `(?m)` keeps
  `[^x]` matching a newline; the expected counts come from Python's `re`, which reads these patterns as
  RE2 does;
- item 5, NUL: a rule whose description holds a NUL fails at compile time naming the field, and the
  writer still records every rule of the invocation (that one as ERROR).

Item 6 (an unquoted `max_value: 18446744073709551616`) is dbt's own: dbt keeps the YAML's integer in the
test's kwargs and in the schema file's parsed copy, and its partial-parse file (msgpack) cannot hold an
integer beyond 64 bits, before any package code runs; quoted, the same bound works (`d-max-2e64`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import drop_target_schemas
from dbt_harness import DbtProject, target_env, write_project

TOPS = {"duckdb": 10**38 - 1, "postgres": 10**38 - 1, "bigquery": 10**28 - 1}
"""The largest integer of column d: DECIMAL(38,0) / numeric(38,0); BigQuery NUMERIC, whose scale is 9 (the
emulator has no BIGNUMERIC and refuses NUMERIC's 29th integer digit)."""
TEXTS = ["a\nb", "axb", "Ab", "A", "xAbx"]
"""Column s, row by row."""

MODEL = """\
{%- set bq = target.type == 'bigquery' -%}
{%- set top = '9' * (28 if bq else 38) -%}
{%- set dec = 'numeric' if bq else 'decimal(38,0)' -%}
{%- set dbl = dataplex_dq.type_double() -%}
{%- set txt = 'string' if bq else 'varchar' -%}
{%- set rows = [
    (1, top, "'0'", "concat('a', chr(10), 'b')"),
    (2, '-' ~ top, "'1e-300'", "'axb'"),
    (3, '0', "'-1.5'", "'Ab'"),
    (4, '-1', "'1e150'", "'A'"),
    (5, '1', 'null', "'xAbx'"),
] -%}
{%- for id, d, f, s in rows %}
select {{ id }} as id, cast('{{ d }}' as {{ dec }}) as d, cast({{ f }} as {{ dbl }}) as f,
  cast({{ s }} as {{ txt }}) as s
{% if not loop.last %}union all{% endif %}
{%- endfor %}
"""


def _range(name: str, column: str, **args: object) -> str:
    inner = ", ".join(f"{k}: {v}" for k, v in args.items())
    return f"          - dataplex_dq.range_expectation: {{name: {name}, arguments: {{{inner}}}}}\n"


def d_rules(top: int) -> dict[str, tuple[str, int]]:
    """Rule name -> (YAML under column d, passed_count of its 5 rows: top, -top, 0, -1, 1). Ten fractional
    digits are more than the scale of every target's column (0, BigQuery NUMERIC 9)."""
    return {
        # more digits than the column's scale: rounded toward the comparison's side, never widened
        "d-min-neg-half": (_range("d-min-neg-half", "d", min_value="'-0.4999999999'"), 3),
        "d-max-neg-half": (_range("d-max-neg-half", "d", max_value="'-0.4999999999'"), 2),
        "d-strict-min-half": (_range("d-strict-min-half", "d", min_value="'0.5'", strict_min_enabled="true"), 2),
        "d-strict-max-half": (_range("d-strict-max-half", "d", max_value="'-0.5'", strict_max_enabled="true"), 2),
        "d-min-near-top": (_range("d-min-near-top", "d", min_value=f"'{top - 1}.0000000001'"), 1),
        "d-max-near-bottom": (_range("d-max-near-bottom", "d", max_value=f"'-{top - 1}.5'"), 1),
        # beyond the column's range: decided by the bound alone
        "d-strict-max-above-top": (
            _range("d-strict-max-above-top", "d", max_value=f"'{top + 1}'", strict_max_enabled="true"),
            5,
        ),
        "d-min-1e40": (_range("d-min-1e40", "d", min_value="'1e40'"), 0),
        "d-max-2e64": (_range("d-max-2e64", "d", max_value="'18446744073709551616'"), 4),
        # item 6: unquoted, as large as dbt itself can keep (an unsigned 64-bit integer)
        "d-max-uint64-unquoted": (_range("d-max-uint64-unquoted", "d", max_value=str(2**64 - 1)), 4),
        "d-set": (
            "          - dataplex_dq.set_expectation: {name: d-set, arguments: {values: "
            f"['{top}', '0.5', '-1', '1e40', '-0.000001', '0.0000000001']}}}}\n",
            2,
        ),
    }


F_RULES = {  # rows 0, 1e-300, -1.5, 1e150 (not 1e308: PostgreSQL's avg(double) overflows squaring it); NULL left out
    "f-min-1e-324": (_range("f-min-1e-324", "f", min_value="'1e-324'", ignore_null="true"), 3),
    "f-strict-min-neg-1e-324": (
        _range("f-strict-min-neg-1e-324", "f", min_value="'-1e-324'", strict_min_enabled="true", ignore_null="true"),
        2,
    ),
    "f-max-2e-324": (_range("f-max-2e-324", "f", max_value="'2e-324'", ignore_null="true"), 2),
    "f-strict-max-1e400": (
        _range("f-strict-max-1e400", "f", max_value="'1e400'", strict_max_enabled="true", ignore_null="true"),
        4,
    ),
    "f-min-neg-1e309": (_range("f-min-neg-1e309", "f", min_value="'-1e309'", ignore_null="true"), 4),
    "f-min-subnormal": (_range("f-min-subnormal", "f", min_value="'1e-320'", ignore_null="true"), 2),
    "f-set": (
        "          - dataplex_dq.set_expectation: {name: f-set, arguments: {values: ['1e-324', '-1.5', '1e400'], "
        "ignore_null: true}}\n",
        2,
    ),
}
# regex rules on s: pattern as YAML text (single-quoted) and as RE2 reads it
REGEXES = {
    "re-dot": r"^a.b$",
    "re-hex": r"\x41b",
    "re-multiline-class": r"(?m)^a[^x]",
    "re-multiline-dot": r"(?m)^b$",
    "re-dot-all": r"(?s)^a.b$",
    "re-hex-class": r"^[\x41]$",
}
S_RULES = {
    name: (
        f"          - dataplex_dq.regex_expectation: {{name: {name}, arguments: {{regex: '{pattern}'}}}}\n",
        sum(1 for s in TEXTS if re.search(pattern, s)),
    )
    for name, pattern in REGEXES.items()
}
# a scan whose bounds underflow / overflow a double: every rule of it evaluates (statistic bounds too)
SCAN_RULES = {
    "scan-f-min-1e-324": 3,
    "scan-f-max-neg-1e309": 0,
    "scan-id-not-null": 5,
    "scan-d-stat-max": None,  # statistic MAX(d) >= -0.499999: passes
    "scan-f-stat-mean": None,  # statistic MEAN(f) <= 1e400: passes
}
SCAN = (
    "      - dataplex_dq.data_quality_scan:\n"
    "          name: doubles-scan\n"
    "          arguments: {rules: ["
    "{name: scan-f-min-1e-324, column: f, ignoreNull: true, rangeExpectation: {minValue: '1e-324'}}, "
    "{name: scan-f-max-neg-1e309, column: f, ignoreNull: true, rangeExpectation: {maxValue: '-1e309'}}, "
    "{name: scan-id-not-null, column: id, nonNullExpectation: {}}, "
    "{name: scan-d-stat-max, column: d, statisticRangeExpectation: {statistic: MAX, minValue: '-0.4999999999'}}, "
    "{name: scan-f-stat-mean, column: f, statisticRangeExpectation: {statistic: MEAN, maxValue: '1e400'}}]}\n"
)
NUL_RULE = "id-nul-description"
NUL_SCAN = (  # on a second model: a scan whose rules hold a NUL in three other fields
    "  - name: other\n    data_tests:\n"
    "      - dataplex_dq.data_quality_scan:\n"
    "          name: nul-scan\n"
    "          arguments: {rules: ["
    '{name: nul-regex, column: s, regexExpectation: {regex: "a\\0b"}}, '
    '{name: nul-set, column: s, setExpectation: {values: [x, "y\\0"]}}, '
    '{name: nul-attribute, column: s, nonNullExpectation: {}, attributes: {owner: "o\\0"}}]}\n'
)


def schema(top: int) -> str:
    """The project's schema.yml on a target whose column d holds at most `top`."""
    d_stat = (
        "          - dataplex_dq.statistic_range_expectation: {name: d-stat-max, arguments: "
        f"{{statistic: MAX, min_value: '-0.4999999999', max_value: '{top}.0000000001'}}}}\n"
    )
    return "".join(
        [
            "version: 2\nmodels:\n  - name: vals\n    columns:\n",
            "      - name: d\n        data_tests:\n",
            *(y for y, _ in d_rules(top).values()),
            d_stat,
            "      - name: f\n        data_tests:\n",
            *(y for y, _ in F_RULES.values()),
            "      - name: s\n        data_tests:\n",
            *(y for y, _ in S_RULES.values()),
            "      - name: id\n        data_tests:\n",
            f'          - dataplex_dq.non_null_expectation: {{name: {NUL_RULE}, description: "before\\0after"}}\n',
            "    data_tests:\n",
            SCAN,
            NUL_SCAN,
        ]
    )


@pytest.fixture(scope="module")
def built(dbt_target, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"values_{dbt_target}")
    project = write_project(
        tmp,
        "values_project",
        {
            "models/vals.sql": MODEL,
            "models/other.sql": "select 1 as id, 'x' as s\n",
            "models/schema.yml": schema(TOPS[dbt_target]),
        },
        env=target_env(dbt_target, tmp, "dq_values"),
        target=None if dbt_target == "duckdb" else dbt_target,
    )
    build = project.run("build")
    yield project, build, d_rules(TOPS[dbt_target])
    drop_target_schemas(dbt_target, project.env)


def _results(project: DbtProject, invocation: str) -> dict[str, dict]:
    rows = project.query(
        "select rule_name, rule_status, rule_rows_evaluated as evaluated_count, rule_rows_passed as passed_count "
        f"from {project.relation('dataplex_dq_results')} where dbt_invocation_id = '{invocation}'"
    )
    return {r["rule_name"]: r for r in rows}


def test_every_bound_compares_exactly(built):
    """Item 7: every per-rule test passes or fails by its exact count, none errors (before: DuckDB failed
    casting DECIMAL(38,0) to DECIMAL(38,6), PostgreSQL refused the out-of-range doubles, PostgreSQL's
    regex matched a newline with `.` and read \\x41b as one character)."""
    project, build, d_expected = built
    rows = _results(project, build.run_results["metadata"]["invocation_id"])
    expected = {**d_expected, **F_RULES, **S_RULES}
    evaluated = {name: 4 if name.startswith("f-") else 5 for name in expected}
    problems = []
    for name, (_, passed) in expected.items():
        row = rows.get(name)
        if row is None or row["rule_status"] not in ("PASSED", "FAILED"):
            node = build.nodes.get(name)
            problems.append(f"{name}: no metrics row ({node.status if node else '?'}: {node.message if node else ''})")
            continue
        if (row["evaluated_count"], row["passed_count"]) != (evaluated[name], passed):
            problems.append(
                f"{name}: {row['passed_count']}/{row['evaluated_count']}, expected {passed}/{evaluated[name]}"
            )
    stat = rows.get("d-stat-max")
    if stat is None or stat["rule_status"] != "PASSED":
        problems.append(f"d-stat-max: {stat and stat['rule_status']}, expected PASSED")
    assert not problems, "\n".join(problems) + "\n" + build.output[-3000:]


def test_the_recorded_identity_keeps_bounds_as_text(built):
    """Item 6: what the package records in the manifest (config.meta.dataplex_dq_rules) holds a YAML
    number bound as the proto's text, never as a number a serializer could refuse."""
    _, build, _ = built
    node = next(n for n in build.manifest["nodes"].values() if n.get("name") == "d-max-uint64-unquoted")
    recorded = node["config"]["meta"]["dataplex_dq_rules"][0]["rule"]
    assert recorded["range_expectation"] == {"max_value": str(2**64 - 1)}


def test_a_scan_with_out_of_range_doubles_evaluates_every_rule(built):
    """Item 7: in one fused scan, bounds that underflow or overflow a double lose no rule."""
    project, build, _ = built
    rows = _results(project, build.run_results["metadata"]["invocation_id"])
    assert build.nodes["doubles-scan"].status == "fail", build.output[-3000:]
    for name, passed in SCAN_RULES.items():
        assert name in rows, f"{name}: no metrics row"
        if passed is not None:
            assert rows[name]["passed_count"] == passed, (name, rows[name])
    assert rows["scan-d-stat-max"]["rule_status"] == "PASSED"
    assert rows["scan-f-stat-mean"]["rule_status"] == "PASSED"
    assert rows["scan-f-max-neg-1e309"]["rule_status"] == "FAILED"


def test_a_nul_is_refused_by_name_and_every_rule_is_still_recorded(built):
    """Item 5: the NUL in one rule's description is a compile-time error naming the data source, the rule
    and the field (its text not quoted); the hook writes every rule of the invocation, that one as ERROR."""
    project, build, d_expected = built
    node = build.nodes[NUL_RULE]
    assert node.status == "error"
    assert (
        f"dataplex_dq: model 'vals', rule '{NUL_RULE}' (dataplex_dq.non_null_expectation), field 'description': "
        "contains a NUL character (U+0000)"
    ) in (node.message or ""), node.message
    scan = build.nodes["nul-scan"]
    assert scan.status == "error"
    for rule, field in [
        ("#0 'nul-regex'", "regex"),
        ("#1 'nul-set'", "values[1]"),
        ("#2 'nul-attribute'", "attributes.owner"),
    ]:
        assert (
            f"rule {rule} (dataplex_dq.data_quality_scan " in scan.message
            and f"field '{field}': contains a NUL" in (scan.message or "")
        ), (rule, field, scan.message)
    results = _results(project, build.run_results["metadata"]["invocation_id"])
    assert {results[n]["rule_status"] for n in ("nul-regex", "nul-set", "nul-attribute")} == {"ERROR"}
    declared = {*d_expected, *F_RULES, *S_RULES, *SCAN_RULES, "d-stat-max", NUL_RULE}
    assert declared <= set(results), sorted(declared - set(results))
    assert results[NUL_RULE]["rule_status"] == "ERROR"
    assert {
        n: results[n]["rule_status"] for n in d_expected if results[n]["rule_status"] not in ("PASSED", "FAILED")
    } == {}
    report = project.report()
    assert "Traceback" not in report.stdout + report.stderr
    # an errored rule's exit code; the report read every row and wrote its files
    assert report.returncode == 2, report.stdout[-2000:] + report.stderr[-2000:]
    assert "Results written to" in report.stdout and "4 errored" in report.stdout, report.stdout[-2000:]


def test_the_regex_oracle_agrees_with_re2_reading():
    """The expected regex counts (Python's `re`) are RE2's: `.` skips a newline, \\x41 is two hex digits."""
    counts = {name: passed for name, (_, passed) in S_RULES.items()}
    assert counts == {
        "re-dot": 1,
        "re-hex": 2,
        "re-multiline-class": 1,
        "re-multiline-dot": 1,
        "re-dot-all": 2,
        "re-hex-class": 1,
    }


def test_project_files_are_valid_yaml():
    import yaml

    doc = yaml.safe_load(schema(TOPS["duckdb"]))
    tests = doc["models"][0]["columns"][3]["data_tests"][0]["dataplex_dq.non_null_expectation"]
    assert tests["description"] == "before\x00after"
    assert Path(__file__).name == "test_values.py"


def test_an_unquoted_integer_beyond_64_bits_is_one_line_from_dataplex_dq_build(tmp_path):
    """Issue 30 item 6, what the package can do: dbt itself cannot save a YAML integer beyond 64 bits (its
    partial-parse file is msgpack: OverflowError before any node runs, whatever package the value is for; the
    package's own records keep bounds as text, test_the_recorded_identity_keeps_bounds_as_text). `dataplex-dq
    build` then exits 2 with one line saying which value to quote."""
    schema = """\
    version: 2
    seeds:
      - name: orders
        columns:
          - name: amount
            data_tests:
              - dataplex_dq.range_expectation:
                  name: amount-range
                  arguments: {max_value: 18446744073709551616}
    """
    files = {"seeds/orders.csv": "id,amount\n1,5\n", "models/schema.yml": schema}
    project = write_project(tmp_path, "bigint", files, env={"DBT_DUCKDB_PATH": str(tmp_path / "bigint.duckdb")})
    res = project.dataplex_dq("build")
    assert res.returncode == 2, res.stdout + res.stderr
    assert (
        "dbt build failed: Integer value out of range: dbt cannot save a YAML number beyond 64 bits (for example a "
        "rule's max_value: 18446744073709551616); quote it" in " ".join((res.stdout + res.stderr).split())
    )
    quoted = schema.replace("max_value: 18446744073709551616", 'max_value: "18446744073709551616"')
    (project.project_dir / "models" / "schema.yml").write_text(quoted.replace("\n    ", "\n").lstrip())
    res = project.dataplex_dq("build")
    assert res.returncode == 0, res.stdout + res.stderr
