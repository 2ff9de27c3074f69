"""The report's answers to artifacts it cannot use, outputs it cannot write, and dbt's exit codes
(issue 9: A.3, A.4, E.4, E.5, G). No warehouse is needed: all of these are decided before one opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from scorecards import score_rules

from dataplex_dq.cli.console import EXIT_ERROR, EXIT_OK, EXIT_RULE_FAILED, exit_code, summary_line
from dataplex_dq.cli.main import main
from dataplex_dq.record.artifacts import DataSource, RuleTest, short_test_name
from dataplex_dq.run.metrics import RuleMetrics
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.outcomes import RuleOutcome, short_message

TEST_UID = "test.p.qty_ok.abc"
MANIFEST = {
    "metadata": {"project_name": "p"},
    "nodes": {
        "seed.p.items": {"unique_id": "seed.p.items", "resource_type": "seed", "name": "items"},
        TEST_UID: {
            "unique_id": TEST_UID,
            "resource_type": "test",
            "name": "qty_ok",
            "attached_node": "seed.p.items",
            "test_metadata": {"namespace": "dataplex_dq", "name": "non_null_expectation", "kwargs": {}},
            # the rule as the package records it when dbt parses the project (macros/identity.sql)
            "config": {
                "meta": {
                    "dataplex_dq_rules": [
                        {"rule_index": 0, "name_given": True, "rule": {"name": "qty_ok", "non_null_expectation": {}}}
                    ]
                }
            },
        },
    },
}


def _project(tmp_path: Path, manifest=MANIFEST, run_results=None) -> Path:
    (tmp_path / "dbt_project.yml").write_text("name: p\nprofile: p\n")
    (tmp_path / "profiles.yml").write_text("p: {target: dev, outputs: {dev: {type: duckdb, path: x.duckdb}}}\n")
    target = tmp_path / "target"
    target.mkdir()
    if run_results is None:
        run_results = {
            "metadata": {"invocation_id": "inv-1"},
            "args": {"which": "build"},
            "results": [{"unique_id": TEST_UID, "status": "pass"}],
        }
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "run_results.json").write_text(json.dumps(run_results))
    return tmp_path


def _report(project: Path, *args: str):
    return CliRunner().invoke(main, ["report", "--project-dir", str(project), "--profiles-dir", str(project), *args])


@pytest.mark.parametrize(
    ("manifest", "run_results", "expected"),
    [
        ([], None, "manifest.json: the file is list, not an object"),
        ({"nodes": []}, None, "manifest.json: `nodes` is list, not an object"),
        (
            MANIFEST,
            {"metadata": {"invocation_id": "i"}, "results": None},
            "run_results.json: `results` is null, not a list",
        ),
        (
            MANIFEST,
            {"metadata": {"invocation_id": "i"}, "results": [3]},
            "run_results.json: an entry of `results` is int, not an object",
        ),
        (MANIFEST, [], "run_results.json: the file is list, not an object"),
    ],
)
def test_artifacts_of_the_wrong_shape_are_one_line_exit_2(tmp_path, manifest, run_results, expected):
    proj = _project(tmp_path, manifest, run_results)
    if run_results is not None:
        (proj / "target" / "run_results.json").write_text(json.dumps(run_results))
    res = _report(proj)
    assert res.exit_code == EXIT_ERROR, res.output
    assert expected in res.output and "Traceback" not in res.output
    assert "re-run `dbt build`" in res.output


@pytest.mark.parametrize(
    ("which", "expected"),
    [
        ("generate", "was written by `dbt docs generate`, which runs no tests: run `dbt build`"),
        ("seed", "was written by `dbt seed`, which runs no tests"),
        ("compile", "was written by `dbt compile`, which runs no tests"),
        ("run", "was written by `dbt run`, which runs no tests"),
        ("build", "was written by `dbt build` that ran no dataplex_dq test (1 other results)"),
    ],
)
def test_run_results_without_dataplex_dq_tests_name_the_command(tmp_path, which, expected):
    rr = {
        "metadata": {"invocation_id": "inv-2"},
        "args": {"which": which},
        "results": [{"unique_id": "seed.p.items", "status": "success"}],
    }
    proj = _project(tmp_path, run_results=rr)
    old = proj / "target" / "dataplex_dq"
    old.mkdir()
    (old / "seed.p.items.json").write_text("{}")
    (old / "seed.p.items.pb").write_bytes(b"")
    (old / "report.html").write_text("not ours")
    res = _report(proj)
    assert res.exit_code == EXIT_ERROR
    assert expected in " ".join(res.output.split())
    # a report that could not read the run leaves the folder as it was (report.py, _report: cleaned only once the
    # recorded run is read)
    assert sorted(p.name for p in old.iterdir()) == ["report.html", "seed.p.items.json", "seed.p.items.pb"]


def test_an_unwritable_output_folder_is_an_output_error(tmp_path):
    """The output folder is created once the recorded run is read (it needs a warehouse, so here the step
    itself): a file where the folder should be is an OutputError (one line, exit 2 from the CLI); an earlier
    report's files are kept until the new ones are in place (test_atomic_files.py)."""
    from dataplex_dq.errors import DataplexDqError, OutputError
    from dataplex_dq.run.report import clean_output_dir

    blocked = tmp_path / "dataplex_dq"
    blocked.write_text("a file where the folder should be")
    with pytest.raises(OutputError, match=r"^cannot write the result files to .*dataplex_dq: ") as err:
        clean_output_dir(blocked)
    assert isinstance(err.value, DataplexDqError) and "\n" not in str(err.value)
    out = tmp_path / "target" / "dataplex_dq"
    out.mkdir(parents=True)
    for name in ("seed.p.items.json", "seed.p.items.pb", "index.html", "notes.txt", "other.json"):
        (out / name).write_text("x")
    assert clean_output_dir(out) == out
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["seed.p.items.json", "seed.p.items.pb", "index.html", "notes.txt", "other.json"]
    )
    assert clean_output_dir(tmp_path / "new" / "dataplex_dq").is_dir()


def _outcome(name: str, status: str, test_uid: str) -> RuleOutcome:
    return RuleOutcome.from_metrics(
        RuleMetrics.from_row(
            {
                "dq_invocation_id": "inv",
                "dq_test_unique_id": test_uid,
                "dq_data_source": "seed.p.items",
                "rule_index": 0,
                "rule_name": name,
                "rule_type": "non_null_expectation",
                "rule_status": status,
                "passed": status == "PASSED",
                "evaluated_count": 2,
                "passed_count": 2 if status == "PASSED" else 1,
            }
        )
    )


def _report_of(*outcomes: tuple[str, str, str]) -> Report:
    rules = [_outcome(n, s, f"test.p.{n}.1") for n, s, _ in outcomes]
    source = DataSource("seed.p.items", "items", "seed", None, None, None, None)
    report = Report("inv", severity={f"test.p.{n}.1": sev for n, _, sev in outcomes})
    report.sources.append(SourceReport(source, rules, score_rules(rules), Path("x.json"), Path("x.pb")))
    return report


def test_exit_codes_follow_dbt_severity():
    ok = _report_of(("a", "PASSED", "ERROR"), ("w", "FAILED", "WARN"))
    assert exit_code(ok, True) == EXIT_OK  # a warn-severity failure is a warning
    assert exit_code(ok, True, warn_error=True) == EXIT_RULE_FAILED
    assert summary_line(ok) == "Rules: 1 passed, 0 failed, 1 warned, 0 errored, 0 skipped, 0 suspended."
    failed = _report_of(("a", "FAILED", "ERROR"), ("w", "FAILED", "WARN"))
    assert exit_code(failed, True) == EXIT_RULE_FAILED
    assert exit_code(failed, False) == EXIT_OK
    assert summary_line(failed) == "Rules: 0 passed, 1 failed, 1 warned, 0 errored, 0 skipped, 0 suspended."
    failed.output_errors.append("result files: boom")
    assert exit_code(failed, True) == EXIT_ERROR


def test_ctrl_c_exits_130(monkeypatch):
    from dataplex_dq.cli import main as cli

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "main", interrupted)
    with pytest.raises(SystemExit) as exit_:
        cli.run()
    assert exit_.value.code == 130


def test_unexpected_errors_are_one_line_without_traceback(monkeypatch, capsys):
    from dataplex_dq.cli import main as cli

    def broken(*a, **k):
        raise KeyError("surprise")

    monkeypatch.setattr(cli, "main", broken)
    with pytest.raises(SystemExit) as exit_:
        cli.run()
    assert exit_.value.code == EXIT_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "KeyError" in err and "Traceback" not in err


def test_long_generated_test_names_are_never_printed():
    long_name = "dataplex_dq_data_quality_scan_orders_" + "x_" * 20_000
    test = RuleTest(
        f"test.p.{long_name}.abc123", long_name, "data_quality_scan", "model.p.orders", None, None, {}, None, 0
    )
    assert short_test_name(test) == "data_quality_scan on orders (abc123)"
    msg = short_message(f"Compilation Error in test {long_name} (models/schema.yml)\n  bad rule", test)
    assert msg == "Compilation Error in test data_quality_scan on orders (abc123) (models/schema.yml)\n  bad rule"
    assert len(short_message("e" * 50_000, test) or "") == 2000
    short = RuleTest("test.p.x.1", "x", "non_null_expectation", "model.p.orders", None, None, {}, None, 0)
    assert short_test_name(short) == "x"


def test_output_is_not_cut_and_has_no_escape_codes_when_not_a_terminal():
    from dataplex_dq.cli.console import _console

    console = _console()  # pytest captures stdout: not a terminal
    with console.capture() as cap:
        console.print("[red]x[/red] " + "y" * 300)
    out = cap.get()
    assert "\x1b[" not in out and out.strip() == "x " + "y" * 300
