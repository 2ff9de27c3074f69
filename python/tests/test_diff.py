"""`dataplex-dq diff`: the comparison rules, the results-table side, outputs and exit codes, on
hand-made DataQualityResults. The demo run twice is in integration_tests/tests/test_diff_demo.py."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from google.protobuf import json_format

from dataplex_dq.cli.main import main
from dataplex_dq.proto import DataQualityResult
from dataplex_dq.spec.diff import RuleState as R
from dataplex_dq.spec.diff import SourceState, compare, read_results_dir, state_from_rows, to_markdown


def result_json(score: float | None, rules: list[tuple[str, bool, str, str]], row_count: int = 100) -> str:
    """A DataQualityResult with (name, passed, column, dimension) row-level rules."""
    body = {
        "passed": all(p for _, p, _, _ in rules),
        "rowCount": str(row_count),
        "rules": [
            {
                "rule": {"name": n, "column": c, "dimension": d, "nonNullExpectation": {}},
                "passed": p,
                "evaluatedCount": "100",
                "passedCount": "100" if p else "90",
                "passRatio": 1.0 if p else 0.9,
            }
            for n, p, c, d in rules
        ],
    }
    if score is not None:
        body["score"] = score
    dims: dict[str, list[bool]] = {}
    for _, p, _, d in rules:
        dims.setdefault(d, []).append(p)
    body["dimensions"] = [
        {"dimension": {"name": d}, "passed": all(v), "score": round(100 * sum(v) / len(v), 2)}
        for d, v in sorted(dims.items())
    ]
    return json_format.MessageToJson(json_format.ParseDict(body, DataQualityResult()))


def write_run(folder: Path, results: dict[str, str]) -> Path:
    out = folder / "dataplex_dq"
    out.mkdir(parents=True)
    for key, text in results.items():
        (out / f"{key}.json").write_text(text)
    return folder


def state(key: str, score: float | None, rules: dict[str, bool], declared: bool = True) -> SourceState:
    return SourceState(key, score, 10, {}, {}, {n: R(n, p) for n, p in rules.items()})


def test_compare_classifies_rules():
    base = {"model.p.a": state("model.p.a", 75.0, {"r1": True, "r2": True, "r3": False, "old": True})}
    current = {
        "model.p.a": state("model.p.a", 50.0, {"r1": False, "r2": True, "r3": True, "new-ok": True, "new-bad": False})
    }
    d = compare(base, current, base_label="prod", declared={"model.p.a": ["r1", "r2", "r3", "new-ok", "new-bad"]})
    s = d.sources[0]
    assert s.newly_failing == ["r1", "new-bad"]  # an added rule that fails is newly failing too
    assert s.newly_passing == ["r3"]
    assert s.added == [("new-ok", True), ("new-bad", False)]
    assert s.removed == ["old"]
    assert s.not_evaluated == []
    assert s.score.delta == -25.0
    assert d.regression and [x.label for x in d.score_drops] == ["a"]


def test_max_score_drop_and_partial_runs():
    base = {"model.p.a": state("model.p.a", 100.0, {"r1": True, "r2": True})}
    current = {"model.p.a": state("model.p.a", 50.0, {"r1": True, "r2": False})}
    assert compare(base, current, base_label="b", max_score_drop=60).score_drops == []
    assert compare(base, current, base_label="b", max_score_drop=60).regression  # r2 newly fails
    # r2 not evaluated now (skipped after an upstream failure): not removed, score not compared
    current = {"model.p.a": state("model.p.a", 100.0, {"r1": True})}
    d = compare(base, current, base_label="b", declared={"model.p.a": ["r1", "r2"]})
    assert d.sources[0].removed == [] and d.sources[0].not_evaluated == ["r2"]
    assert not d.regression
    # without the manifest's view, it counts as removed
    assert compare(base, current, base_label="b").sources[0].removed == ["r2"]
    unchanged = compare(base, base, base_label="b")
    assert unchanged.sources[0].status == "unchanged" and not unchanged.regression


def test_new_and_gone_data_sources():
    d = compare(
        {"model.p.gone": state("model.p.gone", 100.0, {"x": True})},
        {"model.p.new": state("model.p.new", 0.0, {"y": False})},
        base_label="b",
    )
    assert [(s.label, s.status) for s in d.sources] == [("gone", "removed"), ("new", "added")]
    assert d.newly_failing == [("new", "y")]


def test_state_from_rows_scores_like_the_report():
    rows = [
        {
            "rule_name": "a",
            "rule_status": "PASSED",
            "rule_column": "c1",
            "rule_dimension": "VALIDITY",
            "job_rows_scanned": 7,
            "rule_rows_evaluated": 7,
            "rule_rows_passed_percent": 100.0,
        },
        {
            "rule_name": "b",
            "rule_status": "FAILED",
            "rule_column": "c1",
            "rule_dimension": "VALIDITY",
            "job_rows_scanned": 7,
            "rule_rows_evaluated": 7,
            "rule_rows_passed_percent": 42.857,
        },
        {
            "rule_name": "c",
            "rule_status": "PASSED",
            "rule_column": None,
            "rule_dimension": "VOLUME",
            "job_rows_scanned": 7,
            "rule_rows_evaluated": None,
            "rule_rows_passed_percent": None,
        },
        {
            "rule_name": "s",
            "rule_status": "SUSPENDED",
            "rule_column": "c2",
            "rule_dimension": "VALIDITY",
            "job_rows_scanned": 7,
        },
        {
            "rule_name": "e",
            "rule_status": "ERROR",
            "rule_column": "c2",
            "rule_dimension": "VALIDITY",
            "job_rows_scanned": 7,
        },
    ]
    s = state_from_rows("model.p.t", rows)
    assert s.score == 66.67
    assert s.dimensions == {"VALIDITY": 50.0, "VOLUME": 100.0}
    assert s.columns == {"c1": 50.0}
    assert s.row_count == 7
    assert sorted(s.rules) == ["a", "b", "c"]
    assert s.rules["b"] == R("b", False, "c1", "VALIDITY", 42.86)


def test_reads_result_json_and_rounds_float32_scores(tmp_path):
    write_run(
        tmp_path,
        {
            "model.p.t": result_json(
                66.67,
                [("a", True, "c", "VALIDITY"), ("b", True, "c", "VALIDITY"), ("z", False, "d", "COMPLETENESS")],
                1234,
            )
        },
    )
    s = read_results_dir(tmp_path)["model.p.t"]  # DIR/dataplex_dq is found too
    assert s.score == 66.67 and s.row_count == 1234
    assert s.dimensions == {"COMPLETENESS": 0.0, "VALIDITY": 100.0}
    assert s.rules["z"] == R("z", False, "d", "COMPLETENESS", 90.0)


def test_command_markdown_json_and_exit_codes(tmp_path):
    base = write_run(
        tmp_path / "prod",
        {
            "model.shop.orders": result_json(100.0, [("a", True, "x", "VALIDITY"), ("b", True, "y", "VALIDITY")]),
            "model.shop.same": result_json(100.0, [("k", True, "x", "VALIDITY")]),
        },
    )
    current = write_run(
        tmp_path / "target",
        {
            "model.shop.orders": result_json(
                50.0, [("a", True, "x", "VALIDITY"), ("b", False, "y", "VALIDITY"), ("c", True, "y", "VALIDITY")], 120
            ),
            "model.shop.same": result_json(100.0, [("k", True, "x", "VALIDITY")]),
        },
    )
    runner = CliRunner()
    out = runner.invoke(main, ["diff", str(base / "dataplex_dq"), "--target-path", str(current)])
    assert out.exit_code == 1, out.output
    assert "Regression: 1 rule(s) newly failing; score of orders down 50.00." in out.output
    md = (current / "dataplex_dq_diff.md").read_text().splitlines()
    assert md == [
        "## Data quality diff",
        "",
        "**Regression:** 1 rule newly failing, 1 score drop above 0.00.",
        "",
        f"Compared with `{base / 'dataplex_dq'}`: 2 data sources, 1 changed.",
        "",
        "| data source | score | change | rows | newly failing | newly passing | added | removed |",
        "|---|---:|---:|---:|---|---|---|---|",
        "| orders | 100.00 → 50.00 | **-50.00** | 100 → 120 (+20) | `b` | — | `c` | — |",
        "| same | 100.00 |  | 100 | — | — | — | — |",
        "",
        "### orders",
        "",
        "- Score: 100.00 → 50.00 (-50.00)",
        "- Rows: 100 → 120 (+20)",
        "- Dimensions: VALIDITY 100.00 → 66.67 (-33.33)",
        "- Newly failing: `b`",
        "- Added: `c` (passing)",
    ]
    data = json.loads((current / "dataplex_dq_diff.json").read_text())
    assert data["regression"] is True
    assert data["newly_failing"] == [{"data_source": "orders", "rule": "b"}]
    assert data["score_drops"] == [{"data_source": "orders", "drop": 50.0}]
    orders = data["sources"][0]
    assert orders["rules"] == {
        "newly_failing": ["b"],
        "newly_passing": [],
        "added": [{"rule": "c", "passed": True}],
        "removed": [],
        "not_evaluated": [],
        "failing": 1,
    }
    # diffing a run with itself: exit 0
    out = runner.invoke(main, ["diff", str(current), "--target-path", str(current)])
    assert out.exit_code == 0 and "No regression." in out.output


def test_command_errors_exit_2_with_one_line(tmp_path):
    runner = CliRunner()
    current = write_run(tmp_path / "target", {"model.p.a": result_json(100.0, [("a", True, "x", "V")])})
    out = runner.invoke(main, ["diff", "--target-path", str(current)])
    assert out.exit_code == 2
    assert (
        out.output
        == "dataplex-dq diff failed: give either BASE (a directory of DataQualityResult JSON) or --base-target "
        "TARGET, not both or neither\n"
    )
    out = runner.invoke(main, ["diff", str(tmp_path / "nope"), "--target-path", str(current)])
    assert out.exit_code == 2
    assert (
        out.output
        == f"dataplex-dq diff failed: {tmp_path / 'nope'}: no such directory of DataQualityResult JSON files\n"
    )
    bad = tmp_path / "bad" / "dataplex_dq"
    bad.mkdir(parents=True)
    (bad / "model.p.a.json").write_text('{"score": "high"}')
    out = runner.invoke(main, ["diff", str(bad), "--target-path", str(current)])
    assert out.exit_code == 2
    assert out.output.startswith(
        f"dataplex-dq diff failed: {bad / 'model.p.a.json'}: not a DataQualityResult in proto JSON"
    )
    assert out.output.count("\n") == 1
    assert to_markdown(compare({}, {}, base_label="x")).startswith("## Data quality diff\n\n**No regression.**\n")


def test_a_data_source_this_run_did_not_build_is_not_run_not_gone():
    base = {
        "model.p.a": state("model.p.a", 100.0, {"x": True}),
        "model.p.b": state("model.p.b", 50.0, {"y": True, "z": False}),
    }
    current = {"model.p.a": state("model.p.a", 100.0, {"x": True})}
    d = compare(base, current, base_label="prod", declared={"model.p.a": ["x"], "model.p.b": ["y", "z"]})
    b = d.sources[1]
    assert (b.status, b.removed, b.not_evaluated, b.score_drop()) == ("not run", [], ["y", "z"], 0.0)
    assert not d.regression
    md = to_markdown(d).splitlines()
    assert md[4] == "Compared with prod: 2 data sources, 0 changed, 1 not run."
    assert md[-1] == "| b (not run) | 50.00 → — |  | 10 → — | — | — | — | — |"
