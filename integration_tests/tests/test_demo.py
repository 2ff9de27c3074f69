"""`make demo` end to end: the shop demo builds, its rules pass and fail as designed (demo/EXPECTED.md),
and the report prints the Dataplex scores computed by hand."""

from __future__ import annotations

import duckdb

EXPECTED_SCORES = {"fct_orders": 50.0, "stg_customers": 87.5, "stg_orders": 80.0, "stg_payments": 100.0}
EXPECTED_NOT_PASSING = {
    "order-amount-max": "fail",
    "order-date-not-in-future": "fail",
    "order-paid-in-full": "fail",
    "customer-email-unique": "warn",
    "orders-have-customers": "warn",
}


def test_demo(demo_build):
    db, out = demo_build.db, demo_build.output
    assert demo_build.returncode == 0, out
    assert "Demo finished: 25 rules, 5 not passing" in out
    assert f"HTML report: {demo_build.dir / 'target' / 'dataplex_dq' / 'index.html'}" in out
    for rule, status in EXPECTED_NOT_PASSING.items():
        assert any(rule in line and f" {status} " in line for line in out.splitlines()), f"{rule} should be {status}"
    con = duckdb.connect(str(db), read_only=True)
    try:
        scores = dict(
            con.execute(
                "select table_id, score from main.dq_latest_scores where score_level = 'table' and dimension = "
                "'(overall)'"
            ).fetchall()
        )
        statuses = dict(con.execute("select rule_name, rule_status from main.dataplex_dq_results").fetchall())
    finally:
        con.close()
    assert scores == EXPECTED_SCORES
    assert len(statuses) == 25
    assert statuses["order-currency-supported"] == "SUSPENDED"
    assert sorted(r for r, s in statuses.items() if s == "FAILED") == sorted(EXPECTED_NOT_PASSING)
