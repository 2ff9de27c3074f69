"""The suggestion logic of `dataplex-dq suggest` (profile/suggest.py), the profile read back (profile/model.py)
and the merge into schema.yml (profile/write.py), without a warehouse."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from dataplex_dq.cli.main import main
from dataplex_dq.profile.model import FieldProfile, FormatShare, TableProfile, TopValue, profiles_from_rows
from dataplex_dq.profile.select import DataSource, data_source_of
from dataplex_dq.profile.suggest import SuggestOptions, rule_name, suggest_table
from dataplex_dq.profile.write import declared_of, merge_suggestions

EMAIL = "^[^@ ]+@[^@ ]+[.][^@ ]+$"


def _fields(rows: int, *, email_nulls: int = 0, dup_ids: int = 0, statuses=("new", "paid"), amount=(0.5, 99.5)):
    nn_email = rows - email_nulls
    per = rows // len(statuses)
    return (
        FieldProfile("id", "INTEGER", "integer", 0.0, rows, 1.0, rows - dup_ids, minimum=1, maximum=rows),
        FieldProfile(
            "email",
            "VARCHAR",
            "text",
            email_nulls / rows,
            nn_email,
            distinct_count=nn_email,
            formats=(FormatShare("email", EMAIL, nn_email, 1.0),),
        ),
        FieldProfile(
            "status",
            "VARCHAR",
            "text",
            0.0,
            rows,
            distinct_count=len(statuses),
            top_values=tuple(TopValue(s, per, per / rows) for s in statuses),
        ),
        FieldProfile(
            "amount", "DOUBLE", "numeric", 0.0, rows, distinct_count=rows, minimum=amount[0], maximum=amount[1]
        ),
    )


def _profile(i: int, rows: int = 100, **kw) -> TableProfile:
    return TableProfile(f"p{i}", "model.shop.orders", f"2026-01-{10 - i:02d}", rows, None, _fields(rows, **kw))


def _by_name(suggestions):
    return {s.name: s for s in suggestions}


def test_rules_from_one_clean_profile():
    got = _by_name(suggest_table("model.shop.orders", "orders", [_profile(0)]))
    assert sorted(got) == [
        "orders-amount-in-range",
        "orders-amount-not-null",
        "orders-email-is-email",
        "orders-email-not-null",
        "orders-email-unique",
        "orders-id-not-null",
        "orders-id-unique",
        "orders-row-count",
        "orders-status-in-set",
        "orders-status-not-null",
    ]
    assert got["orders-id-not-null"].rule == {
        "name": "orders-id-not-null",
        "description": "Suggested: 0 nulls in 1 profile (100 rows in the latest).",
        "column": "id",
        "dimension": "COMPLETENESS",
        "non_null_expectation": {},
    }
    assert got["orders-status-in-set"].rule["set_expectation"] == {"values": ["new", "paid"]}
    assert (
        got["orders-status-in-set"].evidence
        == "2 distinct values, 100% of non-null rows in 1 profile (100 rows in the latest)"
    )
    # 0.5 .. 99.5 widened by half the range (49.5) on each side, never below 0
    assert got["orders-amount-in-range"].rule["range_expectation"] == {"min_value": "0", "max_value": "149"}
    assert got["orders-amount-in-range"].rule["threshold"] == 0.995
    assert got["orders-email-is-email"].rule["regex_expectation"] == {"regex": EMAIL}
    assert got["orders-row-count"].rule["table_condition_expectation"] == {"sql_expression": "count(*) >= 50"}
    assert got["orders-row-count"].rule["dimension"] == "VOLUME"


def test_history_decides():
    history = [
        _profile(0),
        _profile(1, email_nulls=3, dup_ids=2, statuses=("new", "paid", "sent", "held")),
        _profile(2),
    ]
    got = _by_name(suggest_table("model.shop.orders", "orders", history))
    # a NULL in one of 3 profiles: a threshold under the worst share, no strict rule
    assert "orders-email-not-null" not in got
    mostly = got["orders-email-mostly-not-null"].rule
    # 3% NULLs at 100 rows: 4 binomial standard deviations (4 x sqrt(0.03 x 0.97 / 100) = 0.068) lower, 0.90
    assert mostly["threshold"] == 0.9 and "at most 3% nulls in 3 profiles" in mostly["description"]
    # a duplicate id in one profile: no uniqueness rule
    assert "orders-id-unique" not in got
    # the set is the union of every profile's values
    assert got["orders-status-in-set"].rule["set_expectation"]["values"] == ["held", "new", "paid", "sent"]
    assert "0 nulls in 3 profiles" in got["orders-id-not-null"].evidence


def test_each_rule_passes_on_the_profiles_it_was_learned_from():
    history = [
        _profile(0, rows=120, amount=(3.0, 80.0)),
        _profile(1, rows=90, email_nulls=9, amount=(-2.0, 70.0)),
        _profile(2, rows=100, amount=(1.0, 95.25)),
    ]
    for s in suggest_table("model.shop.orders", "orders", history):
        for p in history:
            f = p.field(s.column) if s.column else None
            if s.rule_type == "non_null_expectation":
                assert 1 - f.null_ratio >= s.rule.get("threshold", 1.0), s.name
            elif s.rule_type == "range_expectation":
                r = s.rule["range_expectation"]
                assert float(r["min_value"]) <= f.minimum and f.maximum <= float(r["max_value"]), s.name
            elif s.rule_type == "set_expectation":
                assert {t.value for t in f.top_values} <= set(s.rule["set_expectation"]["values"]), s.name
            elif s.rule_type == "uniqueness_expectation":
                assert f.distinct_count == f.non_null_count, s.name
            elif s.rule_type == "table_condition_expectation":
                assert p.row_count >= int(s.rule["table_condition_expectation"]["sql_expression"].split(">=")[1])


def test_excluded_and_existing_columns_get_nothing():
    got = suggest_table(
        "model.shop.orders",
        "orders",
        [_profile(0)],
        excluded={"email"},
        existing={("uniqueness_expectation", "id"), ("table_condition_expectation", None)},
        existing_names={"orders-status-in-set"},
    )
    names = {s.name for s in got}
    assert not any("email" in n for n in names)
    assert "orders-id-unique" not in names and "orders-row-count" not in names
    assert "orders-status-in-set" not in names and "orders-id-not-null" in names


def test_a_sampled_profile_counts_the_rows_of_the_table():
    sampled = TableProfile("p9", "model.shop.orders", "2026-01-11", 25, 25.0, _fields(25))
    got = _by_name(suggest_table("model.shop.orders", "orders", [sampled, _profile(0, rows=120)]))
    # 25 sampled rows at 25 % stand for 100; half the fewest (100, 120) is 50
    assert got["orders-row-count"].rule["table_condition_expectation"] == {"sql_expression": "count(*) >= 50"}
    assert got["orders-row-count"].evidence.startswith("100 to 120 rows in 2 profiles")


def test_options_and_names():
    assert rule_name("Orders", "Customer ID", "not-null") == "orders-customer-id-not-null"
    assert rule_name("1st", "x") == "c-1st-x"
    assert len(rule_name("t" * 80, "x")) == 63
    got = _by_name(suggest_table("s", "t", [_profile(0)], options=SuggestOptions(max_set_values=1)))
    assert "t-status-in-set" not in got


def test_profiles_read_back_newest_first():
    def row(pid, at, index, name):
        profile = {"name": name, "type": "INTEGER", "profile": {"null_ratio": 0.25, "distinct_ratio": 0.5}}
        profile["dataplex_dq"] = {"family": "integer", "non_null_count": 3, "distinct_count": 2}
        return {
            "profile_id": pid,
            "profiled_at": at,
            "data_source": "model.p.t",
            "row_count": 4,
            "sampling_percent": None,
            "field_index": index,
            "field_profile": json.dumps(profile),
        }

    got = profiles_from_rows(
        [row("a", "2026-01-01", 1, "y"), row("a", "2026-01-01", 0, "x"), row("b", "2026-01-02", 0, "x")]
    )
    profiles = got["model.p.t"]
    assert [p.profile_id for p in profiles] == ["b", "a"]
    assert [f.name for f in profiles[1].fields] == ["x", "y"]
    assert profiles[1].fields[0].null_ratio == 0.25 and profiles[1].fields[0].distinct_count == 2


def test_suggest_false_in_the_manifest():
    node = {
        "unique_id": "model.p.orders",
        "name": "orders",
        "resource_type": "model",
        "database": "db",
        "schema": "main",
        "alias": "orders_v2",
        "columns": {
            "email": {"name": "email", "meta": {"dataplex_dq": {"suggest": False}}},
            "ssn": {"name": "SSN", "config": {"meta": {"dataplex_dq": {"suggest": False}}}},
            "id": {"name": "id", "meta": {}},
        },
        "config": {"meta": {}},
    }
    source = data_source_of(node)
    assert source.excluded == frozenset({"email", "ssn"}) and source.identifier == "orders_v2" and source.suggest
    node["config"]["meta"] = {"dataplex_dq": {"suggest": False}}
    assert data_source_of(node).suggest is False


SCHEMA = """\
version: 2
models:
  # the shop's orders
  - name: orders
    columns:
      - name: id  # primary key
        data_tests:
          - dataplex_dq.uniqueness_expectation:
              name: my-unique-id
"""


def test_merge_keeps_comments_and_adds_nothing_twice(tmp_path: Path):
    (tmp_path / "dbt_project.yml").write_text("name: shop\nprofile: shop\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "orders.sql").write_text("select 1 as id\n")
    schema = tmp_path / "models" / "schema.yml"
    schema.write_text(SCHEMA)
    source = DataSource("model.shop.orders", "orders", "model", None, None, "orders")
    declared = declared_of(tmp_path, source)
    assert declared.kinds == {("uniqueness_expectation", "id")} and declared.names == {"my-unique-id"}
    found = suggest_table(
        source.unique_id, "orders", [_profile(0)], existing=declared.kinds, existing_names=declared.names
    )
    assert "orders-id-unique" not in {s.name for s in found}

    (dry,) = merge_suggestions(tmp_path, [(source, found)], form="tests", write=False)
    assert schema.read_text() == SCHEMA  # nothing written without --write
    diff = dry.diff(tmp_path)
    assert diff.startswith("--- a/models/schema.yml\n+++ b/models/schema.yml\n")
    assert "+          - dataplex_dq.non_null_expectation:\n+              name: orders-id-not-null\n" in diff

    merge_suggestions(tmp_path, [(source, found)], form="tests", write=True)
    text = schema.read_text()
    assert text.startswith(
        SCHEMA.split("          - dataplex_dq.uniqueness_expectation", maxsplit=1)[0]
    )  # comments, order kept
    assert "# primary key" in text and "name: orders-status-in-set" in text
    again = declared_of(tmp_path, source)
    assert (
        suggest_table(source.unique_id, "orders", [_profile(0)], existing=again.kinds, existing_names=again.names) == []
    )


def test_merge_as_one_scan(tmp_path: Path):
    (tmp_path / "dbt_project.yml").write_text("name: shop\nprofile: shop\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "orders.sql").write_text("select 1 as id\n")
    source = DataSource("model.shop.orders", "orders", "model", None, None, "orders")
    found = suggest_table(source.unique_id, "orders", [_profile(0)])
    merge_suggestions(tmp_path, [(source, found)], form="scan", write=True)
    text = (tmp_path / "models" / "schema.yml").read_text()
    assert "dataplex_dq.data_quality_scan:" in text and "name: orders_scan" in text
    assert text.count("- name: orders-") == len(found)


def test_a_failed_profile_is_one_line_naming_the_data_source():
    import pytest

    from dataplex_dq.errors import WarehouseError
    from dataplex_dq.profile.run import Plan, ProfileError, profile_source

    class Wh:
        def relation(self, database, schema, identifier):
            return f"{schema}.{identifier}"

        def relation_exists(self, relation):
            return relation != "main.gone"

        def begin(self):
            pass

        def macro(self, name, **kwargs):
            raise WarehouseError(
                "macro dataplex_dq.profile_relation failed on duckdb: Parser Error: x\nLINE 1: select ..."
            )

    plan = Plan(None, None, True, None)
    with pytest.raises(ProfileError) as err:
        profile_source(Wh(), DataSource("model.p.t", "t", "model", None, "main", "t"), plan)  # type: ignore[arg-type]
    assert (
        str(err.value)
        == "model t (main.t): profiling failed: macro dataplex_dq.profile_relation failed on duckdb: Parser Error: x"
    )
    with pytest.raises(ProfileError, match=r"^model gone: its relation main.gone does not exist; build it first"):
        profile_source(Wh(), DataSource("model.p.gone", "gone", "model", None, "main", "gone"), plan)  # type: ignore[arg-type]


def test_commands_registered():
    for command in ("profile", "suggest"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0 and "--select" in result.output


# ---------------------------------------------------------------- BigQuery's sampling and bytes, rendered


class _Return(Exception):
    def __init__(self, value):
        self.value = value


def _bigquery_macro(file: str, name: str, **globals_):
    """One macro of macros/cross_db/<file> rendered with plain Jinja, dbt's `return` as an exception."""
    import jinja2

    def _ret(value):
        raise _Return(value)

    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals.update({"return": _ret, **globals_})
    root = Path(__file__).resolve().parents[2]
    module = env.from_string((root / "macros" / "cross_db" / file).read_text()).module

    def call(*args):
        try:
            getattr(module, name)(*args)
        except _Return as r:
            return r.value
        return None

    return call


class _Table:
    def __init__(self, num_bytes, table_type="TABLE"):
        self.num_bytes, self.table_type = num_bytes, table_type


class _Relation:
    def render(self):
        return "`p`.`d`.`t`"


def _estimate(table):
    adapter = type("A", (), {"get_bq_table": staticmethod(lambda relation: table)})()
    helpers = type("H", (), {"bytes_text": staticmethod(lambda n: f"{n} B")})()
    return _bigquery_macro(
        "profile_bytes_estimate.sql", "bigquery__profile_bytes_estimate", adapter=adapter, dataplex_dq=helpers
    )


def test_bigquery_samples_a_large_table_to_the_bytes_bound():
    gib = 1024**3
    plan = _estimate(_Table(10 * gib))(_Relation(), None, gib)
    # the scan reads the table twice (the top values): 20 GiB; 1 GiB of it is 5 %
    assert plan["sampling_percent"] == 5.0 and plan["bytes"] == gib and plan["is_table"] is True
    assert "TABLESAMPLE SYSTEM" in plan["how"]
    small = _estimate(_Table(100 * 1024**2))(_Relation(), None, gib)
    assert small["sampling_percent"] is None and small["bytes"] == 200 * 1024**2
    tiny = _estimate(_Table(1000))(_Relation(), None, gib)
    assert tiny["bytes"] == 10 * 1024**2  # BigQuery's minimum per table
    asked = _estimate(_Table(10 * gib))(_Relation(), 50, gib)
    assert asked["sampling_percent"] == 50 and asked["bytes"] == 10 * gib  # the user's percent wins
    view = _estimate(_Table(None, "VIEW"))(_Relation(), None, gib)
    assert view["bytes"] is None and view["is_table"] is False and "every row is read" in view["how"]


def test_bigquery_profile_sql_pieces():
    adapter = type("A", (), {"dispatch": staticmethod(lambda name, package: sample_bq)})()
    sample_bq = _bigquery_macro("profile_sample_from.sql", "bigquery__profile_sample_from")
    sample = _bigquery_macro("profile_sample_from.sql", "profile_sample_from", adapter=adapter)
    assert sample("`p`.`d`.`t`", 5.0, True) == "`p`.`d`.`t` tablesample system (5 percent)"
    assert sample("`p`.`d`.`t`", 2.5, True) == "`p`.`d`.`t` tablesample system (2.5 percent)"
    assert sample("`p`.`d`.`t`", 100.0, True) == "`p`.`d`.`t`"
    assert sample("`p`.`d`.`v`", 5.0, False) == "(select * from `p`.`d`.`v` where rand() < 0.05) dq_sampled"
    quantile = _bigquery_macro("profile_quantile.sql", "bigquery__profile_quantile")
    assert [quantile("x", q) for q in (0.25, 0.5, 0.75)] == [f"approx_quantiles(x, 4)[offset({i})]" for i in (1, 2, 3)]
