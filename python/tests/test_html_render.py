"""The HTML report's pure parts: page rendering (escaping, order, counts, history, anomaly checks), the
history rows -> History conversion, and the bounds of failing-row samples."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from scorecards import score_rules

from dataplex_dq.outputs.html_data import SAMPLE_CELL_CHARS, history_from_rows, sample_from_rows
from dataplex_dq.outputs.html_report import History, JobPoint, Sample, is_anomaly_check, render_html
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.run.jobs import job_id
from dataplex_dq.run.metrics import RuleMetrics
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleOutcome

SOURCE = "model.shop.orders"
NOW = datetime(2026, 1, 2, 3, 4, 5)


def outcome(
    name: str,
    status: str,
    *,
    dimension: str | None = "VALIDITY",
    column: str | None = "amount",
    evaluated: int = 100,
    passed: int = 100,
    attributes: dict[str, str] | None = None,
    spec_extra: dict[str, Any] | None = None,
    rule_type: str = "range_expectation",
    statistic: float | None = None,
    description: str | None = None,
    assertion_rows: int | None = None,
) -> RuleOutcome:
    spec: dict[str, Any] = {"name": name, rule_type: {"min_value": "0", "max_value": "10"}, **(spec_extra or {})}
    if column:
        spec["column"] = column
    if dimension:
        spec["dimension"] = dimension
    if description:
        spec["description"] = description
    row = {
        "dq_invocation_id": "inv-1",
        "dq_test_unique_id": f"test.shop.{name}",
        "dq_data_source": SOURCE,
        "rule_index": 0,
        "rule_name": name,
        "rule_type": rule_type,
        "rule_column": column,
        "rule_dimension": dimension,
        "rule_suspended": status == "SUSPENDED",
        "rule_status": status,
        "row_count": evaluated,
        "evaluated_count": evaluated,
        "passed_count": passed,
        "null_count": 0,
        "pass_ratio": passed / evaluated if evaluated else None,
        "passed": status == "PASSED",
        "statistic_value": statistic,
        "assertion_row_count": assertion_rows,
        "failing_rows_query": f"select * from orders where not ({name})",
        "rule_spec": json.dumps(spec),
        "rule_attributes": json.dumps(attributes) if attributes else None,
    }
    return RuleOutcome.from_metrics(RuleMetrics.from_row(row))


def report_of(*outcomes: RuleOutcome, source: str = SOURCE) -> Report:
    ds = DataSource(
        source,
        source.rsplit(".", maxsplit=1)[-1],
        "model",
        f'"db"."main"."{source.rsplit(".", maxsplit=1)[-1]}"',
        "db",
        "main",
        source.rsplit(".", maxsplit=1)[-1],
    )
    report = Report("inv-1")
    report.sources.append(SourceReport(ds, list(outcomes), score_rules(outcomes), Path("x.json"), Path("x.pb")))
    return report


def page(report: Report, **kwargs: Any) -> str:
    return render_html(report, generated_at=NOW, **kwargs)


def test_user_text_is_escaped_everywhere():
    evil = '<script>alert("x")</script>'
    o = outcome(
        evil,
        "FAILED",
        passed=90,
        column='"><img src=x onerror=alert(1)>',
        dimension="VALIDITY",
        attributes={"owner": "</script><b>me</b>"},
        description="a & b <i>",
    )
    html = page(
        report_of(o),
        samples={(SOURCE, evil): Sample(("c<1>",), (("<td>x</td>",),))},
        tags={f"test.shop.{evil}": ("<t>",)},
    )
    assert "<script>alert" not in html
    assert "<img src=x" not in html and "<b>me</b>" not in html and "<td>x</td>" not in html and "<i>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "a &amp; b &lt;i&gt;" in html
    # the only script element is the page's own
    assert html.count("<script") == 1


def test_overview_counts_order_and_no_network_reference():
    rules = [
        outcome("p1", "PASSED"),
        outcome("f1", "FAILED", passed=50),
        outcome("s1", "SUSPENDED"),
        outcome("p2", "PASSED", dimension="COMPLETENESS", column="id"),
        outcome("f2", "FAILED", passed=10, dimension=None, column=None),
    ]
    html = page(report_of(*rules))
    row = re.search(r'<tr data-source-id="model.shop.orders">(.*?)</tr>', html, re.S).group(1)
    cells = dict(re.findall(r'data-field="(\w+)">([^<]*)<', row))
    assert cells["score"] == "50.00"  # 2 of 4 evaluated rules passed
    assert (cells["PASSED"], cells["FAILED"], cells["ERROR"], cells["SUSPENDED"]) == ("2", "2", "0", "1")
    assert re.findall(r'<tr class="rule"[^>]*data-rule="([^"]+)"', html) == ["f1", "f2", "s1", "p1", "p2"]
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html


def test_a_sql_assertion_shows_the_rows_it_returned():
    failed = outcome("orders-have-customers", "FAILED", rule_type="sql_assertion", column=None, assertion_rows=1234)
    passed = outcome("no-negative", "PASSED", rule_type="sql_assertion", column=None, assertion_rows=0)
    one = outcome("one-row", "FAILED", rule_type="sql_assertion", column=None, assertion_rows=1)
    html = page(report_of(failed, passed, one))
    cells = dict(re.findall(r'data-rule="([^"]+)".*?data-field="statistic">([^<]*)<', html, re.S))
    assert cells == {
        "orders-have-customers": "1,234 rows returned",
        "one-row": "1 row returned",
        "no-negative": "0 rows returned",
    }


def test_current_run_is_the_last_trend_point_when_not_exported():
    o = outcome("p1", "PASSED")
    earlier = [
        JobPoint(f"old-{i}", NOW - timedelta(days=10 - i), 10.0 * i, i % 2 == 0, 5, {"VALIDITY": (2, i % 3)})
        for i in range(10)
    ]
    html = page(report_of(o), history=History(jobs={SOURCE: earlier}), last_jobs=5)
    points = re.findall(r'<circle[^>]*data-job="([^"]+)" data-score="([^"]+)"', html)
    assert points == [
        ("old-6", "60.0"),
        ("old-7", "70.0"),
        ("old-8", "80.0"),
        ("old-9", "90.0"),
        (job_id("inv-1", SOURCE), "100.0"),
    ]
    # the dimension line of the chart: old-6 had 0 of 2 VALIDITY rules passing -> 0.0
    validity = re.search(r'data-series="VALIDITY">(.*?)</g>', html, re.S).group(1)
    assert re.search(r'data-values="([^"]+)"', validity).group(1) == "0.0 50.0 100.0 0.0 100.0"


def test_anomaly_checks_render_with_band_and_value():
    check = outcome(
        "volume-anomaly",
        "FAILED",
        rule_type="statistic_range_expectation",
        statistic=250.0,
        dimension="VOLUME",
        column=None,
        attributes={"dataplex_dq_anomaly": "volume"},
        spec_extra={"statistic_range_expectation": {"statistic": "MEAN", "min_value": "90", "max_value": "110"}},
    )
    plain = outcome("p1", "PASSED", attributes={"owner": "team"})
    assert is_anomaly_check(check.attributes) and not is_anomaly_check(plain.attributes)
    html = page(report_of(check, plain))
    assert "Anomaly checks" in html
    block = re.search(r'<div class="anomaly" data-rule="volume-anomaly">(.*?)</svg>', html, re.S).group(1)
    assert "value <strong>250</strong>, band 90 .. 110" in block
    assert 'class="pt bad"' in block and "<polygon" in block
    assert 'data-rule="p1">' not in html.split("Anomaly checks")[1].split("<h3")[0]


def test_history_from_rows_counts_and_order():
    t0 = datetime(2026, 1, 1)
    rows = [
        {
            "dbt_node_unique_id": SOURCE,
            "data_quality_job_id": "j2",
            "job_start_time": t0 + timedelta(days=1),
            "job_score": 50.0,
            "job_passed": 0,
            "job_rows_scanned": 7,
            "rule_dimension": "VALIDITY",
            "rules_evaluated": 2,
            "rules_passed": 1,
            "rules_failed": 1,
            "rules_errored": 0,
            "rules_skipped": 0,
            "rules_suspended": 0,
        },
        {
            "dbt_node_unique_id": SOURCE,
            "data_quality_job_id": "j2",
            "job_start_time": t0 + timedelta(days=1),
            "job_score": 50.0,
            "job_passed": 0,
            "job_rows_scanned": 7,
            "rule_dimension": None,
            "rules_evaluated": 0,
            "rules_passed": 0,
            "rules_failed": 0,
            "rules_errored": 1,
            "rules_skipped": 0,
            "rules_suspended": 2,
        },
        {
            "dbt_node_unique_id": SOURCE,
            "data_quality_job_id": "j1",
            "job_start_time": t0,
            "job_score": 100.0,
            "job_passed": 1,
            "job_rows_scanned": 5,
            "rule_dimension": "VALIDITY",
            "rules_evaluated": 1,
            "rules_passed": 1,
            "rules_failed": 0,
            "rules_errored": 0,
            "rules_skipped": 0,
            "rules_suspended": 0,
        },
    ]
    rule_rows = [
        {
            "dbt_node_unique_id": SOURCE,
            "data_quality_job_id": "j1",
            "job_start_time": t0,
            "rule_name": "vol",
            "rule_status": "PASSED",
            "rule_statistic_value": 100,
            "rule_parameters": '{"min_value": "90", "max_value": "110.5"}',
            "rule_attributes": '{"anomaly": "volume"}',
        }
    ]
    h = history_from_rows(rows, rule_rows)
    j1, j2 = h.jobs[SOURCE]
    assert (j1.job_id, j1.score, j1.passed, j1.rows_scanned) == ("j1", 100.0, True, 5)
    assert (j2.job_id, j2.passed, j2.dimension_score("VALIDITY")) == ("j2", False, 50.0)
    assert j2.status_counts == {"PASSED": 1, "FAILED": 1, "ERROR": 1, "SKIPPED": 0, "SUSPENDED": 2}
    (p,) = h.rules[SOURCE]
    assert (p.value, p.lower, p.upper) == (100.0, 90.0, 110.5)


def test_samples_are_bounded_in_rows_cells_and_bytes():
    rows = [{"id": i, "text": "x" * 1000, "n": None} for i in range(50)]
    s = sample_from_rows(rows)
    assert s.columns == ("id", "text", "n") and len(s.rows) == 10 and s.truncated
    assert s.rows[0] == ("0", "x" * (SAMPLE_CELL_CHARS - 1) + "…", "NULL")
    small = sample_from_rows(rows, max_bytes=700)
    assert len(small.rows) == 3 and small.truncated  # each row is ~202 bytes
    assert sample_from_rows([]) == Sample()


def test_no_samples_says_so_and_keeps_the_query():
    html = page(report_of(outcome("f1", "FAILED", passed=50)), samples_enabled=False)
    assert "Samples are off (--no-samples)." in html
    assert "select * from orders where not (f1)" in html


def test_html_option_takes_an_optional_path_before_dbt_args():
    from dataplex_dq.cli.build import build
    from dataplex_dq.cli.report import report

    assert report.make_context("report", ["--html"]).params["html"] == ""
    params = report.make_context("report", ["--html", "out.html", "--no-samples"]).params
    assert (params["html"], params["samples"]) == ("out.html", False)
    params = build.make_context("build", ["--html", "--select", "orders"]).params
    assert (params["html"], params["dbt_args"]) == ("", ("--select", "orders"))
    assert report.make_context("report", []).params["html"] is None


def test_anomaly_check_band_from_attributes_of_a_table_condition():
    """Anomaly checks written as table conditions carry their band and value in rule_attributes."""
    check = outcome(
        "freshness-check",
        "PASSED",
        rule_type="table_condition_expectation",
        dimension="FRESHNESS",
        column=None,
        attributes={
            "anomaly_check": "freshness",
            "anomaly_status": "normal",
            "value": "3.5",
            "lower_bound": "",
            "upper_bound": "26",
        },
        spec_extra={"table_condition_expectation": {"sql_expression": "x <= 26"}},
    )
    html = page(report_of(check))
    block = re.search(r'<div class="anomaly" data-rule="freshness-check">(.*?)</svg>', html, re.S).group(1)
    assert "value <strong>3.5</strong>, band — .. 26" in block
    assert "anomaly_check=freshness" in block and 'class="pt"' in block


class _FakeWarehouse:
    """Renders macros to their arguments and fails the first query, like a warehouse would."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.rollbacks = 0
        handle = type("H", (), {"rollback": lambda _self: setattr(self, "rollbacks", self.rollbacks + 1)})()
        conn = type("C", (), {"handle": handle})()
        self.adapter = type(
            "A", (), {"connections": type("M", (), {"get_thread_connection": staticmethod(lambda: conn)})()}
        )()

    def macro(self, name: str, **kwargs: Any) -> dict[str, Any]:
        # sample_rows_sqls: each item's query, or its columns' query (macros/report_samples.sql)
        sqls = [
            f"select {', '.join(i['columns'])} from ({i['query']})" if i["columns"] else i["query"]
            for i in kwargs["items"]
        ]
        return {"max_rows": 10, "samples": [{"sql": q, "error": None} for q in sqls]}

    def query(self, sql: str) -> list[dict[str, Any]]:
        from dataplex_dq.errors import WarehouseError

        self.queries.append(sql)
        if len(self.queries) == 1:
            raise WarehouseError("relation does not exist\nLINE 1: ...")
        return [{"id": 1}]


def test_a_failed_sample_query_is_reported_rolled_back_and_the_next_one_still_runs():
    from dataplex_dq.outputs.html_data import fetch_samples

    wh = _FakeWarehouse()
    samples, notes = fetch_samples(wh, report_of(outcome("a", "FAILED", passed=1), outcome("b", "FAILED", passed=1)))
    assert samples[(SOURCE, "a")] == Sample(error="relation does not exist")
    assert samples[(SOURCE, "b")] == Sample(("id",), (("1",),))
    assert wh.rollbacks == 1 and notes == []


# a wide data source (issue 32 item 4: a 1,000-rule scan over a 1,000-column table wrote a 8.15 MB page, 7 MB of
# it samples of every column): a sample shows SAMPLE_COLUMNS columns, the rule's first, and says of how many


def _wide_rows(n_rows: int = 12, n_cols: int = 1000) -> list[dict[str, Any]]:
    return [{f"c{c:04d}": f"v{r}-{c}" for c in range(n_cols)} for r in range(n_rows)]


def test_a_wide_sample_shows_the_rules_column_first_and_says_how_many_columns_there_are():
    from dataplex_dq.outputs.html_data import SAMPLE_COLUMNS

    s = sample_from_rows(_wide_rows(), rule_column="C0500")  # matched as an unquoted name folds
    assert SAMPLE_COLUMNS == 20 and len(s.columns) == 20
    assert s.columns == ("c0500", *(f"c{c:04d}" for c in range(19)))
    assert s.total_columns == 1000 and len(s.rows) == 10
    assert s.rows[3][:3] == ("v3-500", "v3-0", "v3-1")
    narrow = sample_from_rows([{"id": 1, "amount": 2}], rule_column="amount")
    assert (narrow.columns, narrow.total_columns) == (("id", "amount"), 0)  # a narrow one keeps its order
    html = page(report_of(outcome("f1", "FAILED", passed=50)), samples={(SOURCE, "f1"): s})
    assert "First 10 failing rows, 20 of 1,000 columns</caption>" in html
    assert html.count("<td>v3-") == 20


class _WideWarehouse(_FakeWarehouse):
    """Every failing rows query returns 10 rows of 1,000 columns; a query of some columns returns those."""

    def query(self, sql: str) -> list[dict[str, Any]]:
        self.queries.append(sql)
        rows = _wide_rows(10)
        if sql.startswith("select c"):
            wanted = sql.removeprefix("select ").split(" from ")[0].split(", ")
            return [{c: r[c] for c in wanted} for r in rows]
        return rows


def test_wide_samples_read_only_the_columns_shown_and_stop_at_the_columns_budget():
    from dataplex_dq.outputs.html_data import SAMPLE_READ_COLUMNS, fetch_samples

    rules = [outcome(f"f{i:03d}", "FAILED", passed=1, column=f"c{i:04d}") for i in range(120)]
    wh = _WideWarehouse()
    samples, notes = fetch_samples(wh, report_of(*rules))
    assert SAMPLE_READ_COLUMNS == 50_000 and len(samples) == 50  # 50 queries of a 1,000-column table
    assert wh.queries[0] == "select * from orders where not (f000)"  # the first reads every column
    shown = ", ".join(f"c{c:04d}" for c in range(20) if c != 1)
    assert wh.queries[1] == f"select c0001, {shown} from (select * from orders where not (f001))"
    assert all(q.startswith("select c") for q in wh.queries[1:]) and len(wh.queries) == 50
    for i in range(50):
        s = samples[(SOURCE, f"f{i:03d}")]
        assert s.columns[0] == f"c{i:04d}" and len(s.columns) == 20 and s.total_columns == 1000 and len(s.rows) == 10
    assert notes == [
        "Failing-row samples were fetched for the first 50 failing rules only (70 more left out to bound the page's "
        "size and the queries' work)."
    ]
    html = page(report_of(*rules), samples=samples)
    assert html.count('<tr class="rule"') == 120  # every rule is still shown, with its failing-rows query
    assert html.count('<pre class="sql"') == 120 and html.count('<table class="sample">') == 50
