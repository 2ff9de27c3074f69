"""`dataplex-dq report --html` on the demo, opened in headless Chromium (docs/SEMANTICS.md §15): the values shown equal
the DataQualityResult files and the results table, the filters and the search work, nothing is fetched
from the network, and the page works at 1280 px and at phone width. A screenshot of each width is saved
under the test's tmp dir (its path is printed).

The demo build (one job per data source) is shared with test_demo.py; four earlier jobs per data source
are added to its results table first, so the trends have points to compare."""

from __future__ import annotations

import html as html_lib
import json
import re
import subprocess
import sys
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
import pytest

from browser import browser_unavailable, chromium, requests
from dbt_harness import INTEGRATION_DIR, run_dataplex_dq

EARLIER_JOBS = 4


def _add_history(db: Path) -> None:
    """Four earlier jobs per data source: the current rows shifted back k days, another score, and on
    job k=2 the VALIDITY rules failed (so the dimension lines move)."""
    con = duckdb.connect(str(db))
    try:
        con.execute(f"""
            insert into main.dataplex_dq_results
            select r.* replace (
                'earlier-' || k || '-' || data_quality_job_id as data_quality_job_id,
                job_start_time - to_days(cast(k as integer)) as job_start_time,
                struct_pack(passed := (k % 2 = 0), score := greatest(0, job_quality_result.score - 7.5 * k),
                            incremental_start := cast(null as varchar), incremental_end := cast(null as varchar)) as job_quality_result,
                case when k = 2 and rule_status = 'PASSED' and rule_dimension = 'VALIDITY' then 'FAILED' else rule_status end as rule_status,
                'earlier-' || k as dbt_invocation_id
            )
            from main.dataplex_dq_results as r, range(1, {EARLIER_JOBS + 1}) as t(k)
        """)  # noqa: E501 - embedded SQL/YAML/JS kept as written
    finally:
        con.close()


@pytest.fixture(scope="module")
def report_page(demo_build):
    """The demo with history, then `dataplex-dq report --html` (default path) run in the demo project."""
    assert demo_build.returncode == 0, demo_build.output
    results_dir = demo_build.dir / "target" / "dataplex_dq"
    page = results_dir / "index.html"
    assert page.exists(), "make demo should end by writing the HTML report"
    _add_history(demo_build.db)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dataplex_dq.cli.main",
            "report",
            "--html",
            "--profiles-dir",
            ".",
            "--no-fail-on-rule-failure",
        ],
        cwd=demo_build.dir,
        env=demo_build.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "HTML report written to" in proc.stdout, proc.stdout
    con = duckdb.connect(str(demo_build.db), read_only=True)
    try:
        table = [
            dict(zip([d[0] for d in cur.description], row, strict=True))
            for cur in [con.execute("select * from main.dataplex_dq_results")]
            for row in cur.fetchall()
        ]
        failing = {}
        for r in table:
            if (
                r["rule_status"] == "FAILED"
                and r["rule_failed_records_query"]
                and not r["dbt_invocation_id"].startswith("earlier-")
            ):
                failing[r["rule_name"]] = con.execute(
                    f"select count(*) from ({r['rule_failed_records_query']}) q"
                ).fetchone()[0]
    finally:
        con.close()
    results = {p.stem: json.loads(p.read_text()) for p in results_dir.glob("*.json")}
    return {"table": table, "results": results, "failing_counts": failing, "page": page}


@pytest.fixture(scope="module")
def page(report_page):
    reason = browser_unavailable()
    if reason:
        pytest.skip(f"browser tests: {reason}")
    with chromium(1280, 900) as driver:
        driver.get(report_page["page"].as_uri())
        yield driver


def _current(table: list[dict]) -> list[dict]:
    return [r for r in table if not r["dbt_invocation_id"].startswith("earlier-")]


def _visible_rules(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('tr.rule')).filter(r => r.offsetParent !== null).map(r => "
        "r.dataset.rule)"
    )


def _settled(read, expected, timeout: float = 5.0):
    """What ``read()`` returns once it equals ``expected``, or its last value after ``timeout`` seconds.

    The page answers some actions later: the search box after a 120 ms debounce, the copy button after
    the clipboard's promise resolves. Polling keeps the tests from racing them on a loaded machine."""
    deadline = time.monotonic() + timeout
    value = read()
    while value != expected and time.monotonic() < deadline:
        time.sleep(0.05)
        value = read()
    return value


def test_overview_matches_result_files(page, report_page):
    table = _current(report_page["table"])
    assert set(report_page["results"]) == {r["dbt_node_unique_id"] for r in table}
    for node, result in report_page["results"].items():
        row = page.find_element("css selector", f'#overview tr[data-source-id="{node}"]')

        def cell(field: str, row=row) -> str:
            return row.find_element("css selector", f'[data-field="{field}"]').text

        assert float(cell("score")) == pytest.approx(result["score"], abs=0.005)
        assert cell("result").split()[0] == ("PASS" if result.get("passed") else "FAIL")
        assert int(cell("PASSED")) == sum(1 for r in result["rules"] if r.get("passed"))
        assert int(cell("FAILED")) == sum(1 for r in result["rules"] if not r.get("passed"))
        statuses = [r["rule_status"] for r in table if r["dbt_node_unique_id"] == node]
        for status in ("ERROR", "SKIPPED", "SUSPENDED"):
            assert int(cell(status)) == statuses.count(status), (node, status)
        assert int(cell("rows_scanned").replace(",", "")) == int(result["rowCount"])
    # the demo's one suspended rule is on stg_orders
    assert (
        page.find_element(
            "css selector", '#overview tr[data-source-id="model.dataplex_dq_demo.stg_orders"] [data-field="SUSPENDED"]'
        ).text
        == "1"
    )


def test_trend_points_equal_results_table(page, report_page):
    for node in report_page["results"]:
        jobs = {}
        for r in report_page["table"]:
            if r["dbt_node_unique_id"] == node:
                jobs[r["data_quality_job_id"]] = (r["job_start_time"], r["job_quality_result"]["score"])
        expected = [(job, score) for job, (_, score) in sorted(jobs.items(), key=lambda kv: (kv[1][0], kv[0]))]
        assert len(expected) == EARLIER_JOBS + 1
        points = page.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(c => [c.dataset.job, "
            "parseFloat(c.dataset.score)])",
            f'#overview tr[data-source-id="{node}"] svg circle',
        )
        points = [tuple(p) for p in points]
        assert [(j, pytest.approx(s)) for j, s in expected] == points


def test_dimension_history_equals_results_table(page, report_page):
    node = "model.dataplex_dq_demo.stg_customers"
    section = page.find_element("css selector", f'section[data-source-id="{node}"]')
    headers = [
        th.get_attribute("textContent").strip()
        for th in section.find_elements("css selector", "table.history thead th")
    ]
    assert headers[:4] == ["Job start", "Score", "Result", "Rows scanned"]
    dims = headers[4:]
    assert dims == ["COMPLETENESS", "UNIQUENESS", "VALIDITY", "VOLUME"]
    for tr in section.find_elements("css selector", "table.history tbody tr"):
        job = tr.get_attribute("data-job")
        cells = [td.get_attribute("textContent").strip() for td in tr.find_elements("css selector", "td")]
        rows = [r for r in report_page["table"] if r["data_quality_job_id"] == job]
        assert float(cells[1]) == pytest.approx(rows[0]["job_quality_result"]["score"])
        for dim, text in zip(dims, cells[4:], strict=True):
            evaluated = [r for r in rows if r["rule_dimension"] == dim and r["rule_status"] in ("PASSED", "FAILED")]
            passed = sum(r["rule_status"] == "PASSED" for r in evaluated)
            assert float(text) == pytest.approx(round(100 * passed / len(evaluated), 2)), (job, dim)
    # job k=2 failed every VALIDITY rule: its line goes to 0 there
    k2 = section.find_element("css selector", "table.history tbody tr[data-job^='earlier-2-']")
    assert (
        k2.find_elements("css selector", "td")[4 + dims.index("VALIDITY")].get_attribute("textContent").strip()
        == "0.00"
    )


def test_rule_rows_equal_results_and_failures_first(page, report_page):
    table = _current(report_page["table"])
    for node, result in report_page["results"].items():
        section = page.find_element("css selector", f'section[data-source-id="{node}"]')
        rows = section.find_elements("css selector", "tr.rule")
        shown = {r.get_attribute("data-rule"): r for r in rows}
        expected = {r["rule_name"]: r for r in table if r["dbt_node_unique_id"] == node}
        assert set(shown) == set(expected)
        for name, tr in shown.items():
            assert tr.find_element("css selector", '[data-field="status"]').text == expected[name]["rule_status"]
        for rule in result["rules"]:
            tr = shown[rule["rule"]["name"]]
            if "evaluatedCount" in rule:
                assert int(tr.find_element("css selector", '[data-field="evaluated"]').text.replace(",", "")) == int(
                    rule["evaluatedCount"]
                )
                assert int(tr.find_element("css selector", '[data-field="passed"]').text.replace(",", "")) == int(
                    rule["passedCount"]
                )
                assert tr.find_element("css selector", '[data-field="ratio"]').text.startswith(
                    f"{rule['passRatio'] * 100:.2f}%"
                )
        statuses = [r.get_attribute("data-status") for r in rows]
        order = ["FAILED", "ERROR", "SKIPPED", "SUSPENDED", "PASSED"]
        assert statuses == sorted(statuses, key=order.index), node


def test_failing_rule_has_query_copy_button_and_samples(page, report_page):
    counts = report_page["failing_counts"]
    # the failing row-level rules (orders-have-customers is an aggregate rule: no failing-rows query)
    assert set(counts) == {"order-date-not-in-future", "order-paid-in-full", "customer-email-unique"}
    for name, count in counts.items():
        tr = page.find_element("css selector", f'tr.rule[data-rule="{name}"]')
        detail = page.find_element("css selector", f'tr.detail[data-for="{tr.get_attribute("id")}"]')
        query = next(r["rule_failed_records_query"] for r in _current(report_page["table"]) if r["rule_name"] == name)
        assert detail.find_element("css selector", "pre.sql").get_attribute("textContent") == query
        sample_rows = detail.find_elements("css selector", "table.sample tbody tr")
        assert len(sample_rows) == min(10, count), name
    # the copy button puts the query on the clipboard (or says how to copy it) and tells so
    detail = page.find_element("css selector", "tr.detail")
    detail.find_element("css selector", "button.copy").click()
    note = detail.find_element("css selector", ".copied")
    assert _settled(lambda: note.text, "copied") == "copied"


def test_filters_and_search(page, report_page):
    table = _current(report_page["table"])
    everything = sorted(r["rule_name"] for r in table)
    assert sorted(_visible_rules(page)) == everything
    boxes = page.find_elements("css selector", "#status-filter input")
    try:
        for box in boxes:
            if box.get_attribute("value") != "FAILED":
                box.click()
        assert sorted(_visible_rules(page)) == sorted(r["rule_name"] for r in table if r["rule_status"] == "FAILED")
        assert page.find_element("id", "shown-count").text == f"5 of {len(table)} rules"
    finally:
        for box in boxes:
            if not box.is_selected():
                box.click()
    from selenium.webdriver.support.select import Select

    Select(page.find_element("id", "dimension-filter")).select_by_value("VALIDITY")
    assert sorted(_visible_rules(page)) == sorted(r["rule_name"] for r in table if r["rule_dimension"] == "VALIDITY")
    Select(page.find_element("id", "dimension-filter")).select_by_value("")
    Select(page.find_element("id", "tag-filter")).select_by_value("pii")
    assert sorted(_visible_rules(page)) == ["customer-email-format", "customer-email-unique"]
    Select(page.find_element("id", "tag-filter")).select_by_value("")
    search = page.find_element("id", "search")
    search.send_keys("CRM-142")  # a rule attribute value
    page.implicitly_wait(0)
    assert _settled(lambda: _visible_rules(page), ["customer-email-unique"]) == ["customer-email-unique"]
    search.clear()
    search.send_keys("payment")
    expected = sorted(
        r["rule_name"]
        for r in table
        if "payment"
        in " ".join(str(r[k] or "") for k in ("rule_name", "rule_description", "rule_column", "rule_message")).lower()
    )
    assert len(expected) >= 3
    assert _settled(lambda: sorted(_visible_rules(page)), expected) == expected
    search.clear()
    page.execute_script("document.getElementById('search').dispatchEvent(new Event('input'))")
    assert _settled(lambda: sorted(_visible_rules(page)), everything) == everything


def test_nothing_fetched_from_network(page, report_page):
    seen = requests(page)
    uri = report_page["page"].as_uri()
    # the page's document asked for nothing but itself (Chromium's own chrome:// start page aside)
    assert [url for url, document in seen if document == uri] == [uri]
    assert [
        url for url, _ in seen if not url.startswith(("chrome://", "chrome-untrusted://", "data:", "file://"))
    ] == []
    assert page.execute_script("return performance.getEntriesByType('resource').map(e => e.name)") == []
    html = report_page["page"].read_text()
    for needle in ("http://", "https://", '<link rel="stylesheet"', "src="):
        assert needle not in html.replace("http://www.w3.org/2000/svg", ""), needle


def test_accessible_labels_headers_keyboard_and_contrast(page):
    unlabelled = page.execute_script(
        "return Array.from(document.querySelectorAll('input, select, button')).filter(e => !(e.labels && "
        "e.labels.length) && !e.textContent.trim() && !e.getAttribute('aria-label')).map(e => e.outerHTML)"
    )
    assert unlabelled == []
    assert page.execute_script("return document.querySelectorAll('thead th:not([scope=col])').length") == 0
    # keyboard: Tab from the last status box reaches the dimension select, the tag select, then the search box
    from selenium.webdriver.common.keys import Keys

    page.find_elements("css selector", "#status-filter input")[-1].send_keys(Keys.TAB)
    assert page.switch_to.active_element.get_attribute("id") == "dimension-filter"
    page.switch_to.active_element.send_keys(Keys.TAB)
    page.switch_to.active_element.send_keys(Keys.TAB)
    assert page.switch_to.active_element.get_attribute("id") == "search"
    ratios = page.execute_script("""
        function lum(c) { const v = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
                          return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; }
        return Array.from(document.querySelectorAll('.badge, .desc, .muted, td.cell-PASS, td.cell-FAIL, .notok')).map(e => {
            let bg = 'rgb(255, 255, 255)'; for (let p = e; p; p = p.parentElement) { const b = getComputedStyle(p).backgroundColor; if (b !== 'rgba(0, 0, 0, 0)') { bg = b; break; } }
            const a = lum(getComputedStyle(e).color), b = lum(bg); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); });
    """)  # noqa: E501 - embedded SQL/YAML/JS kept as written
    assert ratios and min(ratios) >= 4.5, min(ratios)


def test_phone_width_and_screenshots(page, tmp_path_factory):
    out = tmp_path_factory.mktemp("html_report_screenshots")
    page.execute_script("window.scrollTo(0, 0)")
    height = page.execute_script("return document.documentElement.scrollHeight")
    page.set_window_size(1280, min(height, 4000))
    page.save_screenshot(str(out / "report-1280.png"))
    page.set_window_size(390, 844)
    page.execute_script("window.scrollTo(0, 0)")
    # nothing sticks out sideways: wide tables scroll inside their own boxes
    assert page.execute_script("return document.documentElement.scrollWidth") <= page.execute_script(
        "return window.innerWidth"
    )
    overview = page.find_element("id", "overview")
    assert overview.is_displayed()
    page.save_screenshot(str(out / "report-390.png"))
    print(f"\nHTML report screenshots: {out / 'report-1280.png'} {out / 'report-390.png'}")
    page.set_window_size(1280, 900)


def test_history_queries_on_each_target(target_build, tmp_path):
    """The report's history SQL (macros/results/report_history.sql) on DuckDB, PostgreSQL and BigQuery:
    the trend points and per-dimension history on the page equal the results table (no browser needed)."""
    tb = target_build
    out = tmp_path / "report.html"
    proc = run_dataplex_dq(
        "report",
        "--project-dir",
        str(INTEGRATION_DIR),
        "--profiles-dir",
        str(INTEGRATION_DIR),
        "--target",
        tb.target,
        "--target-path",
        str(tb.build.target_path),
        "--html",
        str(out),
        "--no-fail-on-rule-failure",
        env=tb.env,
    )
    assert proc.returncode in (0, 2), proc.stdout + proc.stderr  # 2: the integration project has erroring rules
    text = out.read_text()
    assert "History unavailable" not in text, re.search(r"History unavailable[^<]*", text).group(0)
    with tb.db() as db:
        rows = db.query(f"select * from {tb.relation('dataplex_dq_results')}")
    by_job: dict[str, list[dict]] = {}
    for r in rows:
        by_job.setdefault(r["data_quality_job_id"], []).append(r)
    nodes = {r["dbt_node_unique_id"] for r in rows}
    assert nodes
    for node in nodes:
        row = re.search(rf'<tr data-source-id="{re.escape(node)}">(.*?)</tr>', text, re.S).group(1)
        points = re.findall(r'data-job="([^"]+)" data-score="([^"]+)"', row)
        scored = {
            r["data_quality_job_id"]: _json(r["job_quality_result"]).get("score")
            for r in rows
            if r["dbt_node_unique_id"] == node
        }
        assert {j: float(s) for j, s in points} == {j: float(s) for j, s in scored.items() if s is not None}
        section = re.search(
            rf'<section class="source" id="[^"]+" data-source-id="{re.escape(node)}"(.*?)</section>', text, re.S
        ).group(1)
        history = re.search(r'<table class="history">(.*?)</table>', section, re.S).group(1)
        dims = [html_lib.unescape(d) for d in re.findall(r'<th scope="col" class="num">([^<]+)</th>', history)][2:]
        for job, cells in re.findall(r'<tr data-job="([^"]+)">(.*?)</tr>', history, re.S):
            values = re.findall(r"<td[^>]*>([^<]*)</td>", cells)[4:]
            for dim, value in zip(dims, values, strict=True):
                evaluated = [
                    r for r in by_job[job] if r["rule_dimension"] == dim and r["rule_status"] in ("PASSED", "FAILED")
                ]
                passed = sum(r["rule_status"] == "PASSED" for r in evaluated)
                expected = (
                    "—"
                    if not evaluated
                    else str((Decimal(100 * passed) / len(evaluated)).quantize(Decimal("0.01"), ROUND_HALF_UP))
                )
                assert value == expected, (tb.target, node, dim)


def _json(value):
    return json.loads(value) if isinstance(value, str) else value
