"""Property-based tests against an independent oracle (oracle.py, issue 9 F).

Hypothesis generates cases: a typed table (NULLs, duplicates, integers near 2^53, decimals, doubles,
dates, timestamps, unicode, quotes, backslashes, empty strings), a row filter or none, and rules of
every type (random bounds and strict flags, thresholds on the floating-point boundary of the rule's
own pass ratio, ignore_null, suspended rules). All cases of a run go into ONE dbt project on DuckDB,
each table twice (per-rule tests on one copy, one data_quality_scan on the other), built by ONE
`dbt build` and scored by ONE `dataplex-dq report` (dbt costs seconds per invocation, so Hypothesis
only generates here; shrinking would need a build per step). Every count, ratio, status, statistic
and score must equal the oracle's.

Budget: DATAPLEX_DQ_HYPOTHESIS_EXAMPLES cases (default 12, what `make test` runs, derandomized: the
same cases every run); DATAPLEX_DQ_HYPOTHESIS_SEED=<n> draws other cases. Regressions: the cases in
property_regressions.json are replayed in every run; a failing run writes its failing cases to
`<pytest tmp>/property_failures.json` (path in the message) in that file's format, to be appended.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import oracle
from dbt_harness import DbtProject, metrics_differences, write_project

EXAMPLES = int(os.environ.get("DATAPLEX_DQ_HYPOTHESIS_EXAMPLES", "12"))
SEED = os.environ.get("DATAPLEX_DQ_HYPOTHESIS_SEED")
REGRESSIONS = Path(__file__).with_name("property_regressions.json")

# column -> (DuckDB type, oracle kind)
COLUMNS = {
    "id": ("integer", "int"),
    "i": ("bigint", "int"),
    "d": ("decimal(18,4)", "decimal"),
    "f": ("double", "float"),
    "s": ("varchar", "text"),
    "dd": ("date", "date"),
    "ts": ("timestamp", "timestamp"),
}
KINDS = {c: k for c, (_, k) in COLUMNS.items()}
DIMENSIONS = ["COMPLETENESS", "ACCURACY", "CONSISTENCY", "VALIDITY", "UNIQUENESS", "FRESHNESS", "VOLUME"]
BIG = 2**53

# ------------------------------------------------------------------ values and their JSON form


def encode(value: Any, column: str) -> Any:
    """A value as JSON (property_regressions.json)."""
    if value is None or KINDS[column] in ("int", "text"):
        return value
    if KINDS[column] == "float":
        return value.hex()
    return str(value) if KINDS[column] == "decimal" else value.isoformat()


def decode(value: Any, column: str) -> Any:
    kind = KINDS[column]
    if value is None or kind in ("int", "text"):
        return value
    return {
        "float": float.fromhex,
        "decimal": Decimal,
        "date": dt.date.fromisoformat,
        "timestamp": dt.datetime.fromisoformat,
    }[kind](value)


ints = st.one_of(st.integers(-5, 5), st.integers(BIG - 3, BIG + 3), st.integers(-BIG - 3, -BIG + 3))
decimals = st.one_of(st.decimals(-3, 3, places=2), st.decimals(-(10**13), 10**13, places=4)).map(
    lambda x: x.quantize(Decimal("0.0001"))
)
floats = st.one_of(
    st.sampled_from([0.0, 0.1, 0.2, 0.30000000000000004, 1e-300, 2.0**53, -1.5]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
texts = st.one_of(
    st.sampled_from(["", "a", "A", "ab", "O'Brien", "back\\slash", 'q"uote', "Zoë", "東京", "🎉", "a b", "%_"]),
    st.text(alphabet="ab'\\é東 ", max_size=4),
)
dates = st.dates(dt.date(1970, 1, 1), dt.date(2100, 12, 31))
timestamps = st.datetimes(dt.datetime(1970, 1, 1), dt.datetime(2100, 1, 1))
VALUES = {"i": ints, "d": decimals, "f": floats, "s": texts, "dd": dates, "ts": timestamps}


def literal(value: Any, kind: str) -> str:
    """A value in the proto's string form (bounds, set values)."""
    if kind == "float":
        return repr(float(value))
    if kind == "timestamp":
        return value.isoformat(sep=" ")
    return str(value)


def sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# ------------------------------------------------------------------ conditions (SQL text + Python meaning)
# A condition is JSON: [op, argument]. Row conditions and row filters: row -> True/False/None (SQL's
# three-valued logic); table conditions: rows -> bool; SQL assertions: rows -> number of rows returned.


def cond_sql(cond: list[Any]) -> str:
    op, k = cond
    return {
        "i_gt": lambda: f"i > {k}",
        "s_eq": lambda: f"s = {sql_text(k)}",
        "id_gt_or_i_null": lambda: f"id > {k} or i is null",
        "id_even": lambda: "id % 2 = 0",
        "i_not_null": lambda: "i is not null",
        "s_ne": lambda: f"s <> {sql_text(k)}",
        "count_ge": lambda: f"count(*) >= {k}",
        "max_i_le": lambda: f"coalesce(max(i), 0) <= {k}",
        "assert_i_gt": lambda: f"select * from ${{data()}} where i > {k}",
        "assert_s_eq": lambda: f"select id from ${{data()}} where s = {sql_text(k)}",
    }[op]()


def cond_py(cond: list[Any], rows_or_row: Any) -> Any:
    op, k = cond
    r = rows_or_row
    if op == "i_gt":
        return None if r["i"] is None else r["i"] > k
    if op == "s_eq":
        return None if r["s"] is None else r["s"] == k
    if op == "id_gt_or_i_null":
        return r["id"] > k or r["i"] is None
    if op == "id_even":
        return r["id"] % 2 == 0
    if op == "i_not_null":
        return r["i"] is not None
    if op == "s_ne":
        return None if r["s"] is None else r["s"] != k
    if op == "count_ge":
        return len(r) >= k
    if op == "max_i_le":
        return max((x["i"] for x in r if x["i"] is not None), default=0) <= k
    if op == "assert_i_gt":
        return sum(1 for x in r if x["i"] is not None and x["i"] > k)
    if op == "assert_s_eq":
        return sum(1 for x in r if x["s"] == k)
    raise ValueError(op)


ROW_CONDITIONS = st.one_of(
    st.tuples(st.just("i_gt"), st.integers(-3, 3)),
    st.tuples(st.just("s_eq"), st.sampled_from(["a", "", "O'Brien", "back\\slash"])),
    st.tuples(st.just("id_gt_or_i_null"), st.integers(0, 6)),
).map(list)
TABLE_CONDITIONS = st.one_of(
    st.tuples(st.just("count_ge"), st.integers(0, 8)), st.tuples(st.just("max_i_le"), st.integers(-3, 3))
).map(list)
ASSERTIONS = st.one_of(
    st.tuples(st.just("assert_i_gt"), st.integers(-3, 3)),
    st.tuples(st.just("assert_s_eq"), st.sampled_from(["a", "", "back\\slash", "O'Brien"])),
).map(list)
ROW_FILTERS = st.sampled_from([None, ["id_even", None], ["i_not_null", None], ["s_ne", "a"]])

# ------------------------------------------------------------------ cases


@dataclass
class Case:
    """One table, its row filter and its rules (JSON form: property_regressions.json)."""

    rows: list[dict[str, Any]]
    row_filter: list[Any] | None
    rules: list[
        dict[str, Any]
    ]  # {name, type, column?, dimension?, threshold?, ignore_null?, suspended?, params, cond?}

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": [{c: encode(v, c) for c, v in r.items()} for r in self.rows],
            "row_filter": self.row_filter,
            "rules": self.rules,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Case:
        rows = [{c: decode(r.get(c), c) for c in COLUMNS} for r in doc["rows"]]
        return cls(rows, doc["row_filter"], doc["rules"])

    def scope(self) -> list[dict[str, Any]]:
        if self.row_filter is None:
            return self.rows
        return [r for r in self.rows if cond_py(self.row_filter, r) is True]

    def oracle_rule(self, rule: dict[str, Any]) -> oracle.Rule:
        fn = None
        if "cond" in rule:
            cond = rule["cond"]
            fn = lambda x, cond=cond: cond_py(cond, x)  # noqa: E731
        return oracle.Rule(
            name=rule["name"],
            rule_type=rule["type"],
            column=rule.get("column"),
            dimension=rule.get("dimension"),
            threshold=rule.get("threshold"),
            ignore_null=rule.get("ignore_null", False),
            suspended=rule.get("suspended", False),
            params=rule.get("params", {}),
            fn=fn,
        )


@st.composite
def bound_params(draw, column: str, rows: list[dict[str, Any]], sides: bool = True) -> dict[str, Any]:
    kind = KINDS[column]
    present = [r[column] for r in rows if r[column] is not None]
    pick = st.one_of(st.sampled_from(present), VALUES[column]) if present else VALUES[column]
    if kind == "text":
        pick = pick.filter(bool)  # "" is an unset bound (proto3)
    params: dict[str, Any] = {}
    for side in draw(st.sampled_from([["min_value"], ["max_value"], ["min_value", "max_value"]])):
        params[side] = literal(draw(pick), kind)
        params["strict_" + side.split("_")[0] + "_enabled"] = draw(st.booleans())
    return params


@st.composite
def thresholds(draw, evaluated: int | None, passed: int | None) -> float | None:
    """Unset, random, or on the floating-point boundary of the rule's own pass ratio: passed/evaluated
    exactly (passes), and the doubles just below (passes) and just above (fails)."""
    choice = draw(st.sampled_from(["unset", "exact", "below", "above", "random"]))
    if choice == "unset" or not evaluated:
        return None
    exact = (passed or 0) / evaluated
    value = {
        "exact": exact,
        "below": math.nextafter(exact, 0.0),
        "above": math.nextafter(exact, 2.0),
        "random": draw(st.floats(0.01, 1.0)),
    }[choice]
    return value if 0 < value <= 1 else None


def _mean_is_clear(rows: list[dict[str, Any]], column: str, params: dict[str, Any]) -> bool:
    """A MEAN's bound not within 1e-9 (relative) of the exact mean: the warehouse averages in doubles,
    which may round the mean to either side of such a bound; that is not what is tested here."""
    values = [r[column] for r in rows if r[column] is not None]
    if not values:
        return True
    mean = float(sum(Fraction(v) for v in values) / len(values))
    return all(
        abs(float(params[k]) - mean) > 1e-9 * max(1.0, abs(mean)) for k in ("min_value", "max_value") if k in params
    )


@st.composite
def rule_of(draw, case: Case, name: str) -> dict[str, Any]:
    rows = case.rows
    rt = draw(st.sampled_from(sorted(oracle.ROW_LEVEL | oracle.AGGREGATE)))
    rule: dict[str, Any] = {"name": name, "type": rt, "dimension": draw(st.sampled_from(DIMENSIONS))}
    if rt == "range_expectation":
        rule["column"] = draw(st.sampled_from(["i", "d", "f", "s", "dd", "ts"]))
        rule["params"] = draw(bound_params(rule["column"], rows))
    elif rt == "non_null_expectation":
        rule["column"] = draw(st.sampled_from(list(VALUES)))
    elif rt == "set_expectation":
        col = rule["column"] = draw(st.sampled_from(["i", "d", "s", "dd"]))
        present = [x[col] for x in rows if x[col] is not None]
        pick = st.one_of(st.sampled_from(present), VALUES[col]) if present else VALUES[col]
        rule["params"] = {"values": [literal(v, KINDS[col]) for v in draw(st.lists(pick, min_size=1, max_size=3))]}
    elif rt == "regex_expectation":
        rule["column"] = "s"
        rule["params"] = {"regex": draw(st.sampled_from(["^a", "b$", "'", "\\\\", "^$", "é", ".", "^[a-z]+$", "東"]))}
    elif rt == "uniqueness_expectation":
        rule["column"] = draw(st.sampled_from(["i", "d", "s", "dd", "ts", "f"]))
    elif rt == "row_condition_expectation":
        rule["cond"] = draw(ROW_CONDITIONS)
        rule["params"] = {"sql_expression": cond_sql(rule["cond"])}
    elif rt == "statistic_range_expectation":
        stat = draw(st.sampled_from(["MIN", "MAX", "MEAN"]))
        col = rule["column"] = draw(st.sampled_from(["i", "d", "f"] if stat == "MEAN" else ["i", "d", "f", "dd", "ts"]))
        rule["params"] = {"statistic": stat, **draw(bound_params(col, rows))}
        if stat == "MEAN" and not _mean_is_clear(case.scope(), col, rule["params"]):
            rule["params"] = {"statistic": stat, "min_value": "-1e30"}
    elif rt == "table_condition_expectation":
        rule["cond"] = draw(TABLE_CONDITIONS)
        rule["params"] = {"sql_expression": cond_sql(rule["cond"])}
    else:
        rule["cond"] = draw(ASSERTIONS)
        rule["params"] = {"sql_statement": cond_sql(rule["cond"])}
    if rt in oracle.ROW_LEVEL - {"non_null_expectation", "row_condition_expectation"} and draw(st.booleans()):
        rule["ignore_null"] = True
    if rt in oracle.ROW_LEVEL:
        o = oracle.evaluate(case.oracle_rule(rule), case.scope(), KINDS)
        threshold = draw(thresholds(o.evaluated_count, o.passed_count))
        if threshold is not None:
            rule["threshold"] = threshold
    if draw(st.integers(0, 9)) == 0:
        rule["suspended"] = True
    return rule


@st.composite
def cases(draw) -> Case:
    n = draw(st.integers(0, 10))
    pools = {c: draw(st.lists(VALUES[c], min_size=1, max_size=4)) for c in VALUES}  # few values: duplicates
    rows = [
        {"id": k + 1, **{c: draw(st.one_of(st.none(), st.sampled_from(pools[c]))) for c in VALUES}} for k in range(n)
    ]
    case = Case(rows, draw(ROW_FILTERS), [])
    for k in range(draw(st.integers(1, 5))):
        case.rules.append(draw(rule_of(case, f"r{k}")))
    return case


def generated_cases(count: int) -> list[Case]:
    """`count` cases drawn by Hypothesis (generation only: nothing runs per case)."""
    out: list[Case] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=SEED is None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases())
    def collect(case: Case) -> None:
        out.append(case)

    if SEED is not None:
        from hypothesis import seed

        collect = seed(int(SEED))(collect)
    collect()
    return out[:count]


# ------------------------------------------------------------------ one dbt project for every case


def _arguments(rule: dict[str, Any], scan: bool) -> dict[str, Any]:
    args = {**rule.get("params", {})}
    for key in ("dimension", "threshold", "ignore_null", "suspended"):
        if key in rule:
            args[key] = rule[key]
    if scan:
        top = {k: args.pop(k) for k in ("dimension", "threshold", "ignore_null", "suspended") if k in args}
        spec = dict(args)
        return {
            "name": rule["name"],
            **({"column": rule["column"]} if "column" in rule else {}),
            **top,
            rule["type"]: spec,
        }
    return args


def source_tables(cases_: list[tuple[str, Case]]) -> list[dict[str, Any]]:
    """sources.yml entries: each case's table twice, per-rule tests on `<c>_rules`, a scan on `<c>_scan`."""
    tables = []
    for cid, case in cases_:
        for form in ("rules", "scan"):
            entry: dict[str, Any] = {"name": f"{cid}_{form}"}
            if case.row_filter is not None:
                entry["config"] = {"meta": {"dataplex_dq": {"row_filter": cond_sql(case.row_filter)}}}
            if form == "rules":
                by_column: dict[str | None, list[Any]] = {}
                for r in case.rules:
                    test = {"name": f"{cid}-{r['name']}-p", "arguments": _arguments(r, scan=False)}
                    by_column.setdefault(r.get("column"), []).append({f"dataplex_dq.{r['type']}": test})
                entry["data_tests"] = by_column.pop(None, [])
                entry["columns"] = [{"name": c, "data_tests": t} for c, t in by_column.items()]
            else:
                rules = [{**_arguments(r, scan=True), "name": f"{cid}-{r['name']}-s"} for r in case.rules]
                entry["data_tests"] = [
                    {"dataplex_dq.data_quality_scan": {"name": f"{cid}_dq", "arguments": {"rules": rules}}}
                ]
            tables.append(entry)
    return tables


@dataclass
class PropertyRun:
    """The cases of a run, their project after one `dbt build` and one `dataplex-dq report`."""

    cases: list[tuple[str, Case]]
    project: DbtProject
    metrics: dict[str, dict[str, Any]]
    protos: dict[str, dict[str, Any]]
    seconds: float


def build_cases(root: Path, cases_: list[tuple[str, Case]]) -> PropertyRun:
    started = time.monotonic()
    db = root / "pbt.duckdb"
    con = duckdb.connect(str(db))
    for cid, case in cases_:
        for form in ("rules", "scan"):
            con.execute(f"create table main.{cid}_{form} ({', '.join(f'{c} {t}' for c, (t, _) in COLUMNS.items())})")
            if case.rows:
                con.executemany(
                    f"insert into main.{cid}_{form} values ({', '.join('?' for _ in COLUMNS)})",
                    [[r[c] for c in COLUMNS] for r in case.rows],
                )
    con.close()
    sources = {"version": 2, "sources": [{"name": "pbt", "schema": "main", "tables": source_tables(cases_)}]}
    project = write_project(
        root,
        "pbt",
        {"models/sources.yml": yaml.safe_dump(sources, sort_keys=False, allow_unicode=True)},
        env={"DBT_DUCKDB_PATH": str(db)},
    )
    build = project.run("build", "--select", "package:pbt", "dataplex_dq_results")
    assert build.run_results, build.output[-4000:]
    report = project.report("--no-export", "--no-fail-on-rule-failure")
    assert report.returncode == 0, report.stdout[-4000:] + report.stderr[-2000:]
    protos = {p.stem: json.loads(p.read_text()) for p in (project.target_path / "dataplex_dq").glob("*.json")}
    return PropertyRun(cases_, project, project.metrics(build), protos, time.monotonic() - started)


# ------------------------------------------------------------------ comparison with the oracle


def expected_metrics(o: oracle.Outcome, suspended: bool) -> dict[str, Any]:
    if suspended:
        return {"status": "SUSPENDED"}
    return {
        "status": o.status,
        "passed": o.passed,
        "row_count": o.row_count,
        "null_count": o.null_count,
        "evaluated_count": o.evaluated_count,
        "passed_count": o.passed_count,
        "assertion_row_count": o.assertion_row_count,
        "pass_ratio": o.pass_ratio,
        "statistic_value": o.statistic_value,
    }


def _close(a: float | None, b: float | None) -> bool:
    return (a is None) == (b is None) and (a is None or abs(a - b) < 1e-9)


def score_differences(where: str, doc: dict[str, Any] | None, want: oracle.Scores) -> list[str]:
    if doc is None:
        return [f"{where}: no DataQualityResult"]
    out = []
    if not _close(doc.get("score"), want.score):
        out.append(f"{where}: score {doc.get('score')!r}, oracle {want.score!r}")
    if bool(doc.get("passed", False)) != want.passed:
        out.append(f"{where}: passed {doc.get('passed')!r}, oracle {want.passed!r}")
    dims = {d["dimension"]["name"]: d.get("score") for d in doc.get("dimensions", [])}
    if set(dims) != set(want.dimensions):
        out.append(f"{where}: dimensions {sorted(dims)}, oracle {sorted(want.dimensions)}")
    out += [
        f"{where}: dimension {k} score {dims.get(k)!r}, oracle {v!r}"
        for k, v in want.dimensions.items()
        if not _close(dims.get(k), v)
    ]
    cols = {c["column"]: c.get("score") for c in doc.get("columns", [])}
    if set(cols) != set(want.columns):
        out.append(f"{where}: columns {sorted(cols)}, oracle {sorted(want.columns)}")
    out += [
        f"{where}: column {k} score {cols.get(k)!r}, oracle {v!r}"
        for k, v in want.columns.items()
        if not _close(cols.get(k), v)
    ]
    return out


def case_differences(run: PropertyRun, cid: str, case: Case) -> list[str]:
    scope = case.scope()
    rules = [case.oracle_rule(r) for r in case.rules]
    outcomes = {r.name: oracle.evaluate(r, scope, KINDS) for r in rules}
    scores = oracle.scores(rules, outcomes)
    problems = []
    for form, suffix in (("rules", "p"), ("scan", "s")):
        for r in rules:
            problems += metrics_differences(
                f"{cid}-{r.name}-{suffix}",
                run.metrics.get(f"{cid}-{r.name}-{suffix}"),
                expected_metrics(outcomes[r.name], r.suspended),
            )
        doc = next((d for stem, d in run.protos.items() if stem.endswith(f".{cid}_{form}")), None)
        problems += score_differences(f"{cid}_{form}", doc, scores)
    return problems


def regression_cases() -> list[Case]:
    if not REGRESSIONS.exists():
        return []
    return [Case.from_json(doc) for doc in json.loads(REGRESSIONS.read_text())["cases"]]


def test_dbt_and_the_report_agree_with_the_oracle(tmp_path):
    cases_ = [(f"reg{k}", c) for k, c in enumerate(regression_cases())]
    cases_ += [(f"c{k}", c) for k, c in enumerate(generated_cases(EXAMPLES))]
    run = build_cases(tmp_path, cases_)
    failing = {cid: case_differences(run, cid, case) for cid, case in cases_}
    failing = {cid: p for cid, p in failing.items() if p}
    rules = sum(len(c.rules) for _, c in cases_)
    print(f"\n[dataplex_dq] property tests: {len(cases_)} cases, {rules} rules x 2 forms, {run.seconds:.1f}s")
    if failing:
        out = tmp_path / "property_failures.json"
        out.write_text(
            json.dumps({"cases": [c.to_json() for cid, c in cases_ if cid in failing]}, indent=1, ensure_ascii=False)
        )
        lines = [p for probs in failing.values() for p in probs]
        pytest.fail(
            f"{len(failing)} of {len(cases_)} cases differ from the oracle (cases written to {out}; append them"
            f" to {REGRESSIONS.name} to keep them as regressions):\n"
            + "\n".join(lines[:60])
            + "\n"
            + "\n".join(json.dumps(c.to_json(), ensure_ascii=False) for cid, c in cases_ if cid in failing)[:6000],
            pytrace=False,
        )


def test_cases_round_trip_through_json():
    """The regression file's format keeps every value exactly (floats as hex, decimals as text)."""
    for case in generated_cases(5):
        doc = json.loads(json.dumps(case.to_json()))
        assert Case.from_json(doc) == case
