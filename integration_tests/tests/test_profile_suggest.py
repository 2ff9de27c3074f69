"""`dataplex-dq profile` and `dataplex-dq suggest` on each warehouse (issue 35): one seed with hand-computed
statistics, built once per target, profiled twice (the profile table's history), then suggested from.

people.csv, 40 rows, i = 1..40: id = i; email user<i>@example.com, NULL when i % 10 = 0 (4 NULLs);
status cycles new, paid, shipped, paid (paid 20, new 10, shipped 10); amount = 2.5 i (2.5 .. 100, mean 51.25,
sample standard deviation 2.5 x sqrt(40 x 41 / 12) = 29.5804); code a UUID; day 2025-01-(1 + i % 28)."""

from __future__ import annotations

import json
import math
import re

import pytest

from conftest import shared_build, target_env
from dbt_harness import INTEGRATION_DIR, Db, DbtProject

ROWS = 40


def _csv() -> str:
    lines = ["id,email,status,amount,code,day"]
    for i in range(1, ROWS + 1):
        email = "" if i % 10 == 0 else f"user{i}@example.com"
        status = ("new", "paid", "shipped", "paid")[(i - 1) % 4]
        lines.append(f"{i},{email},{status},{2.5 * i},{i:08x}-0000-4000-8000-{i:012x},2025-01-{1 + i % 28:02d}")
    return "\n".join(lines) + "\n"


PROJECT = """\
name: profiling
version: "1.0"
config-version: 2
profile: dataplex_dq_integration_tests
seeds:
  profiling:
    +column_types:
      id: "{{ 'INT64' if target.type == 'bigquery' else 'integer' }}"
      email: "{{ 'STRING' if target.type == 'bigquery' else 'varchar' }}"
      status: "{{ 'STRING' if target.type == 'bigquery' else 'varchar' }}"
      amount: "{{ 'FLOAT64' if target.type == 'bigquery' else 'double precision' }}"
      code: "{{ 'STRING' if target.type == 'bigquery' else 'varchar' }}"
      day: "{{ 'DATE' if target.type == 'bigquery' else 'date' }}"
"""

SCHEMA = """\
version: 2
seeds:
  - name: people
    columns:
      - name: code
        meta: {dataplex_dq: {suggest: false}}
"""


@pytest.fixture(scope="module")
def profiled(dbt_target, tmp_path_factory):
    return shared_build("profiling", dbt_target, lambda register: _build(dbt_target, tmp_path_factory, register))


def _build(target: str, tmp_path_factory, register) -> dict:
    tmp = tmp_path_factory.mktemp(f"profiling_{target}")
    proj = tmp / "proj"
    (proj / "seeds").mkdir(parents=True)
    (proj / "seeds" / "people.csv").write_text(_csv())
    (proj / "seeds" / "schema.yml").write_text(SCHEMA)
    (proj / "dbt_project.yml").write_text(PROJECT)
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    env = target_env(target, tmp, "dq_profiling")
    register(env)
    p = DbtProject(proj, INTEGRATION_DIR, tmp / "target", env, target=target)
    assert p.run("deps").returncode == 0
    build = p.run("build")
    assert build.returncode == 0, build.output[-4000:]
    args = ("--target", target)
    first = p.dataplex_dq("profile", *args, "--json")
    second = p.dataplex_dq("profile", *args, "-s", "people")
    sampled = p.dataplex_dq("profile", *args, "-s", "resource_type:seed", "--sampling-percent", "50")
    suggest = p.dataplex_dq("suggest", *args)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    with Db(target, env) as db:
        stored = db.query(
            "select profile_id, field_name, row_count, sampling_percent, field_profile "
            f"from {p.relation('dataplex_dq_profiles')}"
        )
    return {
        "project": p,
        "first": first,
        "second": second,
        "sampled": sampled,
        "suggest": suggest,
        "stored": stored,
        "target": target,
    }


def _fields(profiled) -> dict:
    run = profiled["first"]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (result,) = json.loads(run.stdout)
    assert result["data_source"] == "seed.profiling.people"
    assert result["row_count"] == ROWS
    return {f["name"]: f for f in result["profile"]["fields"]}


def test_profile_numbers(profiled):
    fields = _fields(profiled)
    ident = fields["id"]["profile"]
    assert ident["null_ratio"] == 0 and ident["distinct_ratio"] == 1.0
    ints = ident["integer_profile"]
    assert (ints["min"], ints["max"], ints["average"]) == (1, 40, 20.5)
    assert math.isclose(ints["standard_deviation"], math.sqrt(40 * 41 / 12), rel_tol=1e-9)
    q1, q2, q3 = ints["quartiles"]  # BigQuery's are approximate (approx_quantiles)
    assert 10 <= q1 <= 11 and 20 <= q2 <= 21 and 30 <= q3 <= 31
    amount = fields["amount"]["profile"]["double_profile"]
    assert (amount["min"], amount["max"]) == (2.5, 100.0)
    assert math.isclose(amount["average"], 51.25)
    assert math.isclose(amount["standard_deviation"], 2.5 * math.sqrt(40 * 41 / 12), rel_tol=1e-9)
    day = fields["day"]["dataplex_dq"]["datetime_profile"]
    assert (day["min_text"], day["max_text"]) == ("2025-01-01", "2025-01-28")


def test_profile_strings(profiled):
    fields = _fields(profiled)
    email = fields["email"]
    assert email["profile"]["null_ratio"] == pytest.approx(0.1)
    assert email["dataplex_dq"]["non_null_count"] == 36
    assert email["profile"]["string_profile"]["min_length"] == len("user1@example.com")
    assert email["profile"]["string_profile"]["max_length"] == len("user39@example.com")
    assert [(s["format"], s["count"], s["ratio"]) for s in email["dataplex_dq"]["formats"]] == [("email", 36, 1.0)]
    status = fields["status"]["profile"]
    top = [(t["value"], t["count"], t["ratio"]) for t in status["top_n_values"]]
    assert top[0] == ("paid", 20, 0.5)
    assert sorted(top[1:]) == [("new", 10, 0.25), ("shipped", 10, 0.25)]
    assert fields["status"]["dataplex_dq"]["distinct_count"] == 3
    code = fields["code"]["dataplex_dq"]["formats"]
    assert [(s["format"], s["ratio"]) for s in code] == [("uuid", 1.0)]


def test_profile_history_and_output(profiled):
    second = profiled["second"]
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "Profiling seed people" in second.stdout
    if profiled["target"] == "bigquery":
        assert "bills about" in second.stdout  # the estimate, printed before the scan
    sampled = profiled["sampled"]
    assert sampled.returncode == 0, sampled.stdout[-3000:] + sampled.stderr[-3000:]
    assert "Profiling seed people: 50 % sample" in sampled.stdout
    stored = profiled["stored"]
    assert len({r["profile_id"] for r in stored}) == 3 and len(stored) == 3 * 6
    full = [r for r in stored if r["sampling_percent"] is None]
    part = [r for r in stored if r["sampling_percent"] is not None]
    assert len(full) == 2 * 6 and {r["row_count"] for r in full} == {ROWS}
    assert len(part) == 6 and {r["sampling_percent"] for r in part} == {50}
    assert {r["row_count"] for r in part} < set(range(ROWS + 1))  # a sample: BigQuery's blocks keep all or none
    email = json.loads(next(r["field_profile"] for r in stored if r["field_name"] == "email"))
    assert email["profile"]["null_ratio"] == pytest.approx(0.1)


def test_suggest_from_history(profiled):
    run = profiled["suggest"]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    # an empty profile is not learned from (BigQuery's block sample of a small table may keep no row)
    k = len({r["profile_id"] for r in profiled["stored"] if r["row_count"] > 0})
    assert k >= 2
    assert "name: people-id-unique" in out
    assert "name: people-id-not-null" in out and f"0 nulls in {k} profiles" in out
    assert "name: people-status-in-set" in out and f"3 distinct values, 100% of non-null rows in {k} profiles" in out
    assert "name: people-email-is-email" in out
    assert "name: people-email-mostly-not-null" in out
    # half the fewest rows, a sampled profile's rows counted as 100 / 50 as many
    floor = re.search(r"count\(\*\) >= (\d+)", out)
    assert "people-row-count" in out and floor and 14 <= int(floor.group(1)) <= 20
    assert "people-code-" not in out  # meta.dataplex_dq.suggest: false
    assert "nothing written" in out
