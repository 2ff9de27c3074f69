"""Dataplex spec -> `dataplex-dq import-spec` -> `dbt parse` -> `dataplex-dq export-spec` -> the same
spec, field for field, for every file of the corpus (integration_tests/specs) in both forms; and
GoogleSQL imported with --dialect duckdb runs on DuckDB with the counts Dataplex would give."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from google.protobuf import json_format

from dbt_harness import INTEGRATION_DIR, REPO_ROOT, invoke_dbt, run_dataplex_dq

sys.path.insert(0, str(REPO_ROOT / "python"))

from dataplex_dq.proto import DataQualitySpec
from dataplex_dq.spec.import_spec import import_spec
from dataplex_dq.spec.reader import load_spec_file, spec_to_dict

CORPUS = INTEGRATION_DIR / "specs"
CORPUS_FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".yaml", ".json"))
FORMS = ("tests", "scan")


def env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT / "python"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "COLUMNS": "200",
    }


def dataplex_dq(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`dataplex-dq ARGS` run in the project folder `cwd`, as a user runs it there (the test harness's way: in this
    process unless DATAPLEX_DQ_TEST_DBT_SUBPROCESS is set)."""
    return run_dataplex_dq(*args, env=env(), cwd=cwd)


def new_project(root: Path, name: str) -> Path:
    root.mkdir(parents=True)
    (root / "models").mkdir()
    (root / "dbt_project.yml").write_text(
        f"name: {name}\nversion: '1.0'\nconfig-version: 2\nprofile: dataplex_dq_integration_tests\n"
    )
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]}))
    shutil.copy(INTEGRATION_DIR / "profiles.yml", root / "profiles.yml")  # found in the current directory, as dbt does
    code, output = invoke_dbt(["deps", "--quiet"], cwd=root, env=env())
    assert code == 0, output[-3000:]
    return root


def canonical(spec: dict, ordered: bool) -> dict:
    """Proto JSON of a spec (attributes kept); rules sorted when the form does not keep their order."""
    out = spec_to_dict(spec)
    if not ordered:
        out["rules"] = sorted(out["rules"], key=lambda r: json.dumps(r, sort_keys=True))
    return out


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory):
    """Every corpus file imported into its own model in each form, then exported by the command a
    user runs in the project (which runs `dbt parse`)."""
    root = new_project(tmp_path_factory.mktemp("roundtrip") / "project", "spec_roundtrip")
    models = {}
    for spec in CORPUS_FILES:
        for form in FORMS:
            model = f"rt_{form}_{spec.stem}"
            (root / "models" / f"{model}.sql").write_text("select 1 as id\n")
            import_spec(
                spec,
                model,
                form=form,
                dialect="bigquery",
                schema_file=root / "models" / f"{model}.yml",
                project_dir=root,
            )
            models[model] = (spec, form)
    proc = dataplex_dq(root, "export-spec", "--out", "exported")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root, models, proc.stderr  # the notes


def test_corpus_round_trips_field_for_field(roundtrip):
    root, models, _ = roundtrip
    assert len(models) == 2 * len(CORPUS_FILES) >= 20
    for model, (spec, form) in models.items():
        exported = load_spec_file(root / "exported" / f"{model}.yaml")
        want = canonical(load_spec_file(spec).spec, ordered=form == "scan")
        got = canonical(exported.spec, ordered=form == "scan")
        assert got == want, f"{spec.name} ({form} form) did not come back the same"


def test_exported_files_are_camel_case_proto_json_gcloud_reads(roundtrip):
    root, models, notes = roundtrip
    for model in models:
        text = (root / "exported" / f"{model}.yaml").read_text()
        assert text.startswith(
            f"# Dataplex DataQualitySpec of model '{model}' (model.spec_roundtrip.{model}), exported by dataplex-dq "
            "export-spec.\n"
        )
        body = yaml.safe_load(text)
        for rule in body["rules"]:
            rule.pop("attributes", None)  # Dataplex's DataQualityRule.attributes; not in the given proto
        json_format.ParseDict(body, DataQualitySpec())  # valid, every field known
    body = yaml.safe_load((root / "exported" / "rt_tests_notifications_snake.yaml").read_text())
    assert body["postScanActions"]["notificationReport"] == {
        "recipients": {"emails": ["data-oncall@example.com", "analytics-team@example.com"]},
        "scoreThresholdTrigger": {"scoreThreshold": 85.0},
        "jobFailureTrigger": {},
        "jobEndTrigger": {},
    }
    # the data source of the Terraform scan was incremental: said, since a spec cannot carry it
    assert (
        "note: model 'rt_tests_terraform_full_quality_state': incremental_field 'event_ts' is not part of a "
        "DataQualitySpec: pass --incremental-field=event_ts to gcloud" in notes
    )
    assert len(list((root / "exported").iterdir())) == len(models)


def test_export_json_format_and_select(roundtrip):
    root, _, _ = roundtrip
    proc = dataplex_dq(
        root,
        "export-spec",
        "--out",
        "selected",
        "--format",
        "json",
        "--select",
        "rt_scan_rest_api_bare_camel",
        "--no-parse",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [p.name for p in (root / "selected").iterdir()] == ["rt_scan_rest_api_bare_camel.json"]
    body = json.loads((root / "selected" / "rt_scan_rest_api_bare_camel.json").read_text())
    assert body == spec_to_dict(load_spec_file(CORPUS / "rest_api_bare_camel.json").spec)
    assert body["rules"][0]["rangeExpectation"] == {"minValue": "0", "maxValue": "9007199254740992"}


def test_export_errors_exit_2(tmp_path):
    proc = dataplex_dq(tmp_path, "export-spec", "--out", "x", "--no-parse")
    assert proc.returncode == 2
    assert (
        proc.stdout.strip()
        == "dataplex-dq export-spec failed: target/manifest.json not found: run `dbt parse` first (or drop --no-parse)"
    )


def test_googlesql_imported_for_duckdb_runs_with_dataplex_counts(tmp_path):
    """googlesql_functions.yaml on the seed dq_events, transpiled by import-spec --dialect duckdb."""
    root = new_project(tmp_path / "project", "spec_transpiled")
    (root / "seeds").mkdir()
    shutil.copy(INTEGRATION_DIR / "seeds" / "dq_events.csv", root / "seeds")
    config = next(
        s
        for s in yaml.safe_load((INTEGRATION_DIR / "seeds" / "seeds.yml").read_text())["seeds"]
        if s["name"] == "dq_events"
    )
    column_types = dict(config["config"]["column_types"].items())
    (root / "seeds" / "seeds.yml").write_text(
        yaml.safe_dump({"version": 2, "seeds": [{"name": "dq_events", "config": {"column_types": column_types}}]})
    )
    proc = dataplex_dq(root, "import-spec", str(CORPUS / "googlesql_functions.yaml"), "--model", "dq_events")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "Transpiled to duckdb: rule 'web-events-at-least-five' sql_expression: COUNTIF(source_system = 'web') >= 5  "
        "->  COUNT_IF(source_system = 'web') >= 5" in proc.stdout
    )
    code, output = invoke_dbt(
        ["build", "--select", "dq_events"], cwd=root, env={**env(), "DBT_DUCKDB_PATH": str(tmp_path / "t.duckdb")}
    )
    assert code == 0, output[-3000:]
    import duckdb

    con = duckdb.connect(str(tmp_path / "t.duckdb"), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'main_dbt_test__audit'"
            ).fetchall()
        ]
        rows = {}
        for t in tables:
            for r in con.execute(
                "select rule_name, rule_status, row_count, evaluated_count, passed_count, assertion_row_count from "
                f'main_dbt_test__audit."{t}"'
            ).fetchall():
                rows[r[0]] = r[1:]
    finally:
        con.close()
    # row filter DATE(event_ts) >= 2000-01-01 keeps 16 of 18 rows (1999 and a NULL event_ts out)
    assert rows == {
        "event-within-a-year": ("PASSED", 16, 16, 12, None),  # 12 within [0, 366] days of 2024-01-01; a NULL date fails
        "session-id-shape": ("PASSED", 16, 16, 16, None),
        "web-events-at-least-five": ("PASSED", 16, None, None, None),
        "no-numeric-session-ids": ("PASSED", 16, None, None, 0),
    }


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_export_import_export_is_a_fixed_point(tmp_path, fmt):
    """issue 30 item 13: GoogleSQL imported for DuckDB, exported, imported again with --force and exported
    again gives the same file and the same schema.yml: SQL already in DuckDB's dialect is not transpiled again
    (DATE_DIFF('DAY', a, b) was read as GoogleSQL's DATE_DIFF(date, date, part)), no `data_tests: []` is left."""
    root = new_project(tmp_path / "project", "spec_fixed_point")
    (root / "models" / "events.sql").write_text(
        "select 1 as id, current_date as event_date, 's1' as session_id, 'web' as source_system, "
        "current_timestamp as event_ts\n"
    )
    spec = str(CORPUS / "googlesql_functions.yaml")
    first = dataplex_dq(root, "import-spec", spec, "--model", "events", "--dialect", "duckdb")
    assert first.returncode == 0, first.stdout + first.stderr
    schema = (root / "models" / "schema.yml").read_text()
    assert "DATE_DIFF('DAY', CAST('2024-01-01' AS DATE), event_date) BETWEEN 0 AND 366" in schema
    out1 = dataplex_dq(root, "export-spec", "--out", "once", "--format", fmt)
    assert out1.returncode == 0, out1.stdout + out1.stderr
    exported = root / "once" / f"events.{fmt}"
    again = dataplex_dq(root, "import-spec", str(exported), "--model", "events", "--dialect", "duckdb", "--force")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Transpiled to duckdb" not in again.stdout
    assert (root / "models" / "schema.yml").read_text() == schema
    assert "data_tests: []" not in schema
    out2 = dataplex_dq(root, "export-spec", "--out", "twice", "--format", fmt)
    assert out2.returncode == 0, out2.stdout + out2.stderr
    assert (root / "twice" / f"events.{fmt}").read_text() == exported.read_text()


def test_export_leaves_out_an_anomaly_only_model_and_keeps_stdout_its_own(tmp_path):
    """issue 30 item 12: a model whose only test is anomaly_detection, and the README's webhook extension, are
    notes on stderr, not a refusal of the project; dbt's `{"unique_id": ...}` lines of --select never reach
    stdout; an error is one line ending in a newline."""
    root = new_project(tmp_path / "project", "spec_export_notes")
    (root / "models" / "orders.sql").write_text("select 1 as id, 2 as amount\n")
    (root / "models" / "events.sql").write_text("select 1 as id\n")
    (root / "models" / "schema.yml").write_text(
        textwrap.dedent(
            """\
            version: 2
            models:
              - name: orders
                config:
                  meta:
                    dataplex_dq:
                      post_scan_actions:
                        notification_report:
                          recipients: {emails: [data-owner@example.com]}
                          job_end_trigger: {}
                          webhook: {url: "https://hooks.slack.com/services/T/B/X"}
                columns:
                  - name: amount
                    data_tests:
                      - dataplex_dq.range_expectation: {name: amount-positive, arguments: {min_value: 0}}
              - name: events
                data_tests:
                  - dataplex_dq.anomaly_detection: {arguments: {volume: {}}}
            """
        )
    )
    whole = dataplex_dq(root, "export-spec", "--out", "all")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert sorted(p.name for p in (root / "all").iterdir()) == ["orders.yaml"]
    assert (
        "note: model 'events': no rule a DataQualitySpec can hold (only anomaly_detection or tests without a rule "
        "type); left out\n" in whole.stderr
    )
    assert "note: model 'orders': post_scan_actions.notification_report.webhook" in whole.stderr
    body = yaml.safe_load((root / "all" / "orders.yaml").read_text())
    assert body["postScanActions"] == {
        "notificationReport": {"recipients": {"emails": ["data-owner@example.com"]}, "jobEndTrigger": {}}
    }
    selected = dataplex_dq(root, "export-spec", "--out", "one", "-s", "orders", "--no-parse")
    assert selected.returncode == 0, selected.stdout + selected.stderr
    assert "unique_id" not in selected.stdout
    assert selected.stdout.startswith("DataQualitySpec files in one\n")
    only_anomaly = dataplex_dq(root, "export-spec", "--out", "none", "-s", "events", "--no-parse")
    assert only_anomaly.returncode == 2
    assert only_anomaly.stdout == (
        "dataplex-dq export-spec failed: no data source with dataplex_dq rules a DataQualitySpec can hold in "
        "--select events\n"
    )
