"""Output tells the truth (issue 30 item 14, first two clauses): `dataplex-dq build`'s progress line counts the
nodes dbt skipped, and the HTML report shows a job whose rules were all skipped as SKIPPED (not evaluated,
docs/SEMANTICS.md §7), not FAIL, in its history (read from the results table) and in the overview."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from conftest import drop_target_schemas, require_target
from dbt_harness import TARGETS, write_project

SCHEMA = """\
version: 2
seeds:
  - name: items
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: qty-present, arguments: {dimension: COMPLETENESS}}
          - dataplex_dq.range_expectation: {name: qty-small, arguments: {max_value: 5, dimension: VALIDITY}}
models:
  - name: downstream
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: downstream-present}
          - dataplex_dq.range_expectation: {name: downstream-small, arguments: {max_value: 5}}
"""


@pytest.fixture(scope="module", params=TARGETS)
def built(request, tmp_path_factory) -> Iterator[tuple[object, str]]:
    """`dataplex-dq build --html` of a project whose seed's rules fail, so dbt skips the model downstream of
    them and that model's two rules: the build's output and the project."""
    target = request.param
    require_target(target)
    from dbt_harness import target_env

    tmp = tmp_path_factory.mktemp(f"truthful_{target}")
    env = target_env(target, tmp, "truthful")
    p = write_project(
        tmp,
        "truthful",
        {
            "seeds/items.csv": "id,qty\n1,1\n2,\n3,9\n",
            "models/downstream.sql": "select qty from {{ ref('items') }}\n",
            "models/schema.yml": SCHEMA,
        },
        env=env,
        target=None if target == "duckdb" else target,
        project_config="seeds:\n  truthful:\n    +column_types: {id: integer, qty: integer}\n",
    )
    args = ["--html"] + (["--target", target] if target != "duckdb" else [])
    proc = p.dataplex_dq("build", *args)
    yield proc, p
    drop_target_schemas(target, env)


def test_build_progress_line_counts_skipped_nodes(built):
    proc, _ = built
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text, text
    # items (seed) success, its two rules fail; the model and its two rules are skipped; the package's result
    # models (built on a first run) succeed
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("dbt build") and "/" in ln), None)
    assert line is not None, text
    done = re.search(r"(\d+)/(\d+)", line)
    assert done is not None and done.group(1) == done.group(2), line
    assert "2 failed, 0 warned, 3 skipped, 0 errors" in line, line


def _row(html: str, source_id: str) -> str:
    match = re.search(rf'<tr data-source-id="{re.escape(source_id)}">(.*?)</tr>', html, re.S)
    assert match, source_id
    return match.group(1)


def _history(html: str, source_id: str) -> list[str]:
    start = html.index(f'data-source-id="{source_id}" aria-labelledby')
    section = html[start : html.index("</section>", start)]
    table = section[section.index('<table class="history">') :]
    return re.findall(r'<tr data-job="[^"]*">.*?<td data-field="result">([^<]*)</td>', table)


def test_a_job_whose_rules_were_all_skipped_is_not_shown_as_fail(built):
    proc, p = built
    html = (p.target_path / "dataplex_dq" / "index.html").read_text(encoding="utf-8")
    model, seed = "model.truthful.downstream", "seed.truthful.items"
    assert '<span class="badge st-SKIPPED">SKIPPED</span>' in _row(html, model), _row(html, model)
    assert '<span class="badge st-FAIL">FAIL</span>' in _row(html, seed)
    # the history comes from the results table (this run's job recorded by the hook): not evaluated, not FAIL
    assert _history(html, model) == ["SKIPPED"], proc.stdout
    assert _history(html, seed) == ["FAIL"]
    # a second build: two jobs in the history, both SKIPPED
    args = ["--html"] + (["--target", p.target] if p.target else [])
    again = p.dataplex_dq("build", *args)
    assert "Traceback" not in again.stdout + again.stderr
    html = (p.target_path / "dataplex_dq" / "index.html").read_text(encoding="utf-8")
    assert _history(html, model) == ["SKIPPED", "SKIPPED"], again.stdout
    assert _history(html, seed) == ["FAIL", "FAIL"]
