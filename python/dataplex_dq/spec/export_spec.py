"""`dataplex-dq export-spec`: one Dataplex DataQualitySpec file per data source, from the project's rules.

Reads the rules the project declares (both forms: per-rule tests and ``data_quality_scan``) from
``manifest.json`` through :mod:`dataplex_dq.record.declared`, with each data source's scan-level settings
(``meta.dataplex_dq`` and the scan's arguments), normalizes and validates them as a
``google.cloud.dataplex.v1.DataQualitySpec`` (:mod:`dataplex_dq.spec.reader`, parsed into the proto with
``json_format``) and writes camelCase proto JSON as YAML or JSON, the format
``gcloud dataplex datascans create data-quality --data-quality-spec-file`` reads.

Rule names derived by dbt_dataplex_dq for rules declared without one are left out (Dataplex allows
unnamed rules), so a spec imported with ``import-spec`` comes back field for field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from dataplex_dq.errors import ArtifactsError, DataplexDqError, first_line
from dataplex_dq.outputs.files import result_file_base, write_atomic
from dataplex_dq.record import dbt_options
from dataplex_dq.record.artifacts import DataSource, RuleTest, manifest_rules
from dataplex_dq.record.dbt_options import dbt_args
from dataplex_dq.record.declared import recorded_rules
from dataplex_dq.spec.import_spec import yaml_node
from dataplex_dq.spec.reader import RULE_TYPES, SCAN_SETTINGS, SpecError, normalize_spec, spec_to_dict


@dataclass
class ExportedSpec:
    data_source: DataSource
    spec: dict[str, Any] | None  # normalized (snake_case) DataQualitySpec; None: left out (the notes say why)
    path: Path | None = None
    notes: list[str] = field(default_factory=list)


def _without_webhook(settings: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The settings without post_scan_actions.notification_report.webhook (dataplex_dq's extension,
    docs/SEMANTICS.md §11), which a DataQualitySpec has no field for: left out with a note."""
    key, actions = next(
        ((k, settings[k]) for k in ("post_scan_actions", "postScanActions") if k in settings), (None, None)
    )
    if key is None or not isinstance(actions, dict):
        return settings
    report_key = next((k for k in ("notification_report", "notificationReport") if k in actions), None)
    report = actions.get(report_key) if report_key else None
    if not isinstance(report, dict) or "webhook" not in report:
        return settings
    webhook = report.get("webhook")
    url = webhook.get("url") if isinstance(webhook, dict) else None
    report = {k: v for k, v in report.items() if k != "webhook"}
    notes.append(
        f"post_scan_actions.notification_report.webhook{f' ({url})' if url else ''} is dataplex_dq's extension, "
        "which a DataQualitySpec has no field for; left out (Dataplex sends the notification report by email only)"
    )
    return {**settings, key: {**actions, report_key: report}}


def _scan_kwarg(kwargs: dict[str, Any], key: str) -> Any:
    first, *rest = key.split("_")
    value = kwargs.get(key)
    return value if value is not None else kwargs.get(first + "".join(p.title() for p in rest))


def source_spec(source: DataSource, tests: list[RuleTest], nodes: dict[str, Any]) -> ExportedSpec:
    """The DataQualitySpec of one data source from its dataplex_dq tests (manifest order)."""
    rules: list[dict[str, Any]] = []
    notes: list[str] = []
    settings = dict(source.settings or {})
    for test in tests:
        if test.test_name not in RULE_TYPES and test.test_name != "data_quality_scan":
            notes.append(f"test '{test.name}' ({test.test_name}) has no DataQualitySpec rule type; left out")
            continue
        where = (nodes.get(test.unique_id) or {}).get("config", {}).get("where")
        raws = test.kwargs.get("rules") if test.test_name == "data_quality_scan" else None
        recorded = recorded_rules(test)
        for declared in recorded:
            rule = dict(declared.rule)
            if not declared.name_given:
                rule.pop("name", None)
            rules.append(rule)
            if where:
                notes.append(
                    f"rule '{rule.get('name') or test.name}' has a dbt `where` config ({where}), which a "
                    "DataQualitySpec cannot express; exported without it"
                )
        if test.test_name == "data_quality_scan":
            if isinstance(raws, list) and len(raws) != len(recorded):
                skipped = sorted(set(range(len(raws))) - {r.rule_index for r in recorded})
                notes.append(f"data_quality_scan '{test.name}': rules {skipped} have no rule type and are left out")
            value = _scan_kwarg(test.kwargs, "catalog_publishing_enabled")
            if value is not None:
                settings["catalog_publishing_enabled"] = value
            if _scan_kwarg(test.kwargs, "anomaly_detection") is not None:
                notes.append(
                    f"data_quality_scan '{test.name}': anomaly_detection has no DataQualitySpec equivalent; left out"
                )
    incremental = settings.get("incremental_field") or settings.get("incrementalField")
    if incremental:
        notes.append(
            f"incremental_field {incremental!r} is not part of a DataQualitySpec: pass "
            f"--incremental-field={incremental} to gcloud"
        )
    if not rules:
        notes.append(
            "no rule a DataQualitySpec can hold (only anomaly_detection or tests without a rule type); left out"
        )
        return ExportedSpec(source, None, notes=notes)
    settings = _without_webhook(settings, notes)
    spec_input: dict[str, Any] = {"rules": rules}
    for key in SCAN_SETTINGS:
        value = _scan_kwarg(settings, key)
        if value is not None:
            spec_input[key] = value
    try:
        spec = normalize_spec(spec_input)
    except SpecError as exc:
        notes.append(f"left out: its rules are not a valid DataQualitySpec ({exc})")
        return ExportedSpec(source, None, notes=notes)
    return ExportedSpec(source, spec, notes=notes)


def _file_stem(source: DataSource, taken: set[str]) -> str:
    """The spec file's name without extension: the data source's name, else (taken) its unique id, each
    percent-encoded as result files are (outputs/files.result_file_base): two names never share a file."""
    stem = result_file_base(source.name)
    if stem in taken:
        stem = result_file_base(source.unique_id)
    base, n = stem, 2
    while stem in taken:
        stem, n = f"{base}~{n}", n + 1
    taken.add(stem)
    return stem


def render(exported: ExportedSpec, fmt: str) -> str:
    """The spec file's text: camelCase proto JSON, as YAML (with a comment saying how to use it) or JSON."""
    assert exported.spec is not None, "a data source left out has no file"
    body = spec_to_dict(exported.spec)
    if fmt == "json":
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    import io

    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    buf = io.StringIO()
    yaml.dump(yaml_node(body), buf)
    source = exported.data_source
    header = (
        f"# Dataplex DataQualitySpec of {source.label} ({source.unique_id}), exported by dataplex-dq export-spec.\n"
        "# gcloud dataplex datascans create data-quality SCAN_ID --location=LOCATION \\\n"
        "#   --data-source-resource=//bigquery.googleapis.com/projects/PROJECT/datasets/DATASET/tables/TABLE \\\n"
        "#   --data-quality-spec-file=THIS_FILE\n"
    )
    return header + buf.getvalue()


def _dbt(args: list[str]) -> Any:
    """dbt in-process with its console output on stderr: stdout is the command's own (dbt's `ls` prints
    every resource it lists, `{"unique_id": ...}`, even with --quiet)."""
    import contextlib
    import sys

    from dbt.cli.main import dbtRunner

    with contextlib.redirect_stdout(sys.stderr):
        return dbtRunner().invoke(args)


def selected_ids(project_dir: Path, profiles_dir: Path | None, target: str | None, select: str) -> set[str]:
    """unique_ids of the resources ``--select`` picks, as `dbt ls` selects them."""
    args = [
        "ls",
        "--select",
        select,
        "--output",
        "json",
        "--output-keys",
        "unique_id",
        "--quiet",
        "--log-level",
        "none",
    ]
    result = _dbt(args + dbt_args(project_dir, profiles_dir, target))
    if not result.success:
        raise ArtifactsError(f"dbt ls --select {select} failed: {result.exception or 'see the messages above'}")
    ids = set()
    for line in result.result if isinstance(result.result, list) else []:
        try:
            ids.add(json.loads(line)["unique_id"])
        except (ValueError, KeyError, TypeError):
            ids.add(str(line))
    return ids


def parse_project(project_dir: Path, profiles_dir: Path | None, target: str | None, target_path: Path) -> None:
    """`dbt parse`, in-process, so the manifest holds the project's current rules."""
    args = ["parse", "--quiet", "--target-path", str(target_path)]
    result = _dbt(args + dbt_args(project_dir, profiles_dir, target))
    if not result.success:
        first = first_line(result.exception) if result.exception else "see the messages above"
        raise ArtifactsError(f"dbt parse failed: {first}")


def export_specs(manifest: dict[str, Any], selected: set[str] | None = None) -> list[ExportedSpec]:
    tests, sources = manifest_rules(manifest)
    by_source: dict[str, list[RuleTest]] = {}
    for test in sorted(tests.values(), key=lambda t: t.order):
        if test.data_source_id in sources and (selected is None or test.data_source_id in selected):
            by_source.setdefault(test.data_source_id, []).append(test)
    nodes = manifest.get("nodes", {})
    return [
        source_spec(sources[uid], source_tests, nodes)
        for uid, source_tests in sorted(by_source.items(), key=lambda kv: sources[kv[0]].name)
    ]


def write_specs(specs: list[ExportedSpec], out_dir: Path, fmt: str) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for exported in specs:
        if exported.spec is None:
            continue
        exported.path = out_dir / f"{_file_stem(exported.data_source, taken)}.{'json' if fmt == 'json' else 'yaml'}"
        write_atomic(exported.path, render(exported, fmt).encode("utf-8"))


@click.command("export-spec")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="folder for the spec files (one per data source)",
)
@click.option(
    "--select",
    "-s",
    "select",
    default=None,
    help="dbt selector of the data sources to export (default: all with rules)",
)
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True)
@click.option(
    "--parse/--no-parse",
    default=True,
    show_default=True,
    help="run `dbt parse` first (--no-parse: use the manifest as it is)",
)
@dbt_options.project_dir()
@dbt_options.profiles_dir()
@dbt_options.target()
@dbt_options.target_path()
def export_spec_command(
    *,
    out_dir: Path,
    select: str | None,
    fmt: str,
    parse: bool,
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path | None,
) -> None:
    """Write one Dataplex DataQualitySpec per data source from the rules the project declares, ready for
    `gcloud dataplex datascans create data-quality --data-quality-spec-file`.

    A data source whose rules a spec cannot hold (only an anomaly_detection test, ...) is left out with a
    note on stderr; the others are written. Exit codes: 0 written; 2 nothing written (dbt parse failed, no
    data source with rules, ...)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True)
    notes = Console(highlight=False, soft_wrap=True, stderr=True)
    target_path = Path(target_path) if target_path else Path(project_dir) / "target"
    try:
        if parse:
            parse_project(Path(project_dir), profiles_dir, target, target_path)
        manifest_path = target_path / "manifest.json"
        if not manifest_path.exists():
            raise ArtifactsError(f"{manifest_path} not found: run `dbt parse` first (or drop --no-parse)")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ArtifactsError(f"{manifest_path} cannot be read as JSON ({exc}); run `dbt parse` again") from None
        selected = selected_ids(Path(project_dir), profiles_dir, target, select) if select else None
        specs = export_specs(manifest, selected)
        if not any(s.spec is not None for s in specs):
            for s in specs:
                for note in s.notes:
                    notes.print(f"note: {escape(s.data_source.label)}: {escape(note)}")
            raise ArtifactsError(
                "no data source with dataplex_dq rules a DataQualitySpec can hold"
                + (f" in --select {select}" if select else " in the project")
            )
        write_specs(specs, out_dir, fmt)
    except (DataplexDqError, OSError) as exc:
        message = str(exc) if isinstance(exc, DataplexDqError) else f"cannot write to {out_dir}: {first_line(exc)}"
        click.echo(f"dataplex-dq export-spec failed: {' '.join(message.split())}")
        raise SystemExit(2) from None
    table = Table(title=f"DataQualitySpec files in {out_dir}", show_edge=False)
    for col in ("data source", "rules", "settings", "file"):
        table.add_column(col)
    for s in specs:
        if s.spec is None:
            continue
        settings = ", ".join(k for k in SCAN_SETTINGS if k in s.spec) or "—"
        table.add_row(
            escape(s.data_source.label), str(len(s.spec["rules"])), settings, escape(s.path.name if s.path else "")
        )
    console.print(table)
    for s in specs:
        for note in s.notes:
            notes.print(f"note: {escape(s.data_source.label)}: {escape(note)}")
