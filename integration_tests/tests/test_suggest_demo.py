"""Issue 35's "done when" on DuckDB: on a copy of the demo, `dataplex-dq profile` then `dataplex-dq suggest --write`
adds rules to its schema files that all pass on the demo's data; the project still builds and reports."""

from __future__ import annotations

import re

import pytest

from conftest import require_target
from dbt_harness import DbtProject, copy_demo


@pytest.fixture(scope="module")
def demo_suggested(tmp_path_factory):
    require_target("duckdb")
    tmp = tmp_path_factory.mktemp("suggest_demo")
    demo = copy_demo(tmp)
    p = DbtProject(demo, demo, tmp / "target", {"DBT_DUCKDB_PATH": str(tmp / "demo.duckdb")})
    assert p.run("deps").returncode == 0
    before = p.run("build", "--exclude", "resource_type:test")  # the tables to profile
    assert before.returncode == 0, before.output[-3000:]
    profile = p.dataplex_dq("profile")
    assert profile.returncode == 0, profile.stdout[-3000:] + profile.stderr[-3000:]
    original = (demo / "models" / "schema.yml").read_text()
    suggest = p.dataplex_dq("suggest", "--write")
    assert suggest.returncode == 0, suggest.stdout[-3000:] + suggest.stderr[-3000:]
    after = p.run("build")
    report = p.report()
    return {"demo": demo, "before": before, "suggest": suggest, "after": after, "report": report, "original": original}


def test_suggestions_are_written_keeping_the_file(demo_suggested):
    demo, suggest = demo_suggested["demo"], demo_suggested["suggest"]
    m = re.search(r"(\d+) rules suggested for (\d+) data sources; written to", suggest.stdout)
    assert m, suggest.stdout[-2000:]
    assert int(m.group(1)) >= 40 and int(m.group(2)) == 7  # 4 models and 3 seeds
    text = (demo / "models" / "schema.yml").read_text()
    original = demo_suggested["original"]
    assert text.startswith(original.split("models:", 1)[0])  # the header comment, untouched
    assert all(line in text for line in original.splitlines())  # nothing of the user's removed
    # stg_payments.method has a set rule already: no second one; its seed (no rules yet) gets one
    assert "name: stg-payments-method-not-null" in text and "stg-payments-method-in-set" not in text
    seeds = (demo / "seeds" / "schema.yml").read_text()  # the seeds had no properties file: one is created
    assert "name: orders-currency-in-set" in seeds  # EUR, GBP, USD and their lower-case typos
    assert "Suggested: 6 distinct values, 100% of non-null rows in 1 profile" in seeds


def test_every_suggested_rule_passes_and_the_demo_still_reports(demo_suggested):
    after = demo_suggested["after"]
    assert after.returncode == 1, after.output[-3000:]  # the demo's own failing rules, as before
    nodes = after.manifest["nodes"]
    suggested = [
        uid
        for uid, n in nodes.items()
        if n["resource_type"] == "test" and str(n.get("description") or "").startswith("Suggested:")
    ]
    assert len(suggested) >= 40
    status = {r["unique_id"]: r["status"] for r in after.run_results["results"]}
    assert {status[uid] for uid in suggested} == {"pass"}
    failing = sorted(
        nodes[r["unique_id"]]["name"] for r in after.run_results["results"] if r["status"] in ("fail", "error")
    )
    assert failing == [
        "order-amount-max",
        "order-date-not-in-future",
        "order-paid-in-full",
    ]  # the demo's own (EXPECTED.md)
    report = demo_suggested["report"]
    assert report.returncode == 1, report.stdout[-3000:] + report.stderr[-3000:]  # a demo rule failed, no error
    assert "stg_payments" in report.stdout
