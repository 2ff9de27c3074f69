"""`dataplex-dq report`: one recorded invocation read back and handed to every output (:func:`run_report`).

invocation  the invocation of target/run_results.json (or, with --from-results-table, the latest in the
            results table or --invocation)
record      when the results table has no rows of it (its on-run-end hook was switched off), the package's
            writer records it (record/run_operation.py: `dbt run-operation dataplex_dq.record_run`)
read        run/recorded.py: the invocation's rows in one query, its column scores in a second: per data source
            its outcomes, the scores the SQL computed, its debug queries' results
protos      run/assemble.py build_result: a DataQualityResult per data source
outputs     outputs/registry.py, in order: a copy of the rows to another results table, catalog publishing,
            notifications, result files (target/dataplex_dq/<data source>.json and .pb), the HTML report; each
            failure reported without stopping the others (outputs/base.py run_outputs)
Nothing here builds or writes a results row: the package's SQL is the one writer.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dataplex_dq.errors import ArtifactsError, OutputError
from dataplex_dq.outputs.base import OutputContext, run_outputs
from dataplex_dq.outputs.files import result_file_base
from dataplex_dq.outputs.registry import OUTPUTS
from dataplex_dq.record.artifacts import (
    Artifacts,
    DataSource,
    RuleTest,
    load_artifacts,
    manifest_rules,
    no_tests_message,
    results_model_of,
)
from dataplex_dq.record.declared import DeclaredRule, recorded_rules
from dataplex_dq.run.anomaly import fill_generated_assets
from dataplex_dq.run.assemble import build_result
from dataplex_dq.run.jobs import DEFAULT_RESULTS_TABLE
from dataplex_dq.run.model import Report, SourceReport
from dataplex_dq.run.recorded import (
    RecordedRun,
    ResultsTableError,
    latest_invocation,
    read_recorded_run,
    read_rows,
)
from dataplex_dq.warehouse.connection import Warehouse
from dataplex_dq.warehouse.table_name import parse_table_name


def results_table_of(actions: Any) -> Any:
    """`post_scan_actions.bigquery_export.results_table`, each level in snake_case or camelCase."""
    if not isinstance(actions, dict):
        return None
    export = actions.get("bigquery_export") or actions.get("bigqueryExport")
    if not isinstance(export, dict):
        return None
    return export.get("results_table") or export.get("resultsTable")


def _results_relation(wh: Warehouse, manifest_relation: dict[str, str | None], override: str | None) -> Any:
    creds = wh.credentials
    database = getattr(creds, "database", None)
    schema = getattr(creds, "schema", None)
    if override:
        # parsed and validated part by part (never pasted into SQL); the adapter quotes each part
        name = parse_table_name(override)
        return wh.relation(name.database or database, name.schema or schema, name.identifier)
    if manifest_relation.get("schema"):
        return wh.relation(
            manifest_relation.get("database"),
            manifest_relation["schema"],
            manifest_relation.get("identifier") or DEFAULT_RESULTS_TABLE,
        )
    return wh.relation(database, schema, DEFAULT_RESULTS_TABLE)


def run_report(
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path | None,
    *,
    export: bool = True,
    html: Any = None,
    profile: str | None = None,
    resend: bool = False,
    from_results_table: bool = False,
    invocation: str | None = None,
) -> Report:
    """The report of one recorded invocation: the invocation of the run's artifacts (recorded first when the
    results table has none of its rows and ``export``), or, ``from_results_table``, ``invocation`` (default: the
    latest in the table). ``html``: an html_data.HtmlOptions to also write the HTML report (docs/SEMANTICS.md
    §15). ``resend``: send notifications already sent for a job again."""
    target_path = Path(target_path) if target_path else Path(project_dir) / "target"
    artifacts: Artifacts | None = None
    if not from_results_table:
        artifacts = load_artifacts(target_path)
        if not artifacts.ran_tests():
            raise ArtifactsError(
                no_tests_message(target_path / "run_results.json", artifacts.command, artifacts.result_count)
            )
        invocation = artifacts.invocation_id
        # the target dbt ran with when none is given here, so the report reads (and labels) that target
        target = target or artifacts.dbt_target
    manifest_path = ensure_manifest(Path(project_dir), profiles_dir, target, target_path)
    if artifacts is not None:
        tests, data_sources, results_model = artifacts.tests, artifacts.data_sources, artifacts.results_model
        project_name = artifacts.project_name
    else:
        manifest = json.loads(manifest_path.read_text())
        tests, data_sources = manifest_rules(manifest)
        results_model = results_model_of(manifest)
        project_name = (manifest.get("metadata") or {}).get("project_name")
    out_dir = target_path / "dataplex_dq"
    macros = artifacts.macros if artifacts is not None and artifacts.macros else None

    def warehouse() -> Warehouse:
        return Warehouse(Path(project_dir), profiles_dir, target, manifest_path, profile, macros=macros)

    where = _Where(
        tests=tests,
        data_sources=data_sources,
        out_dir=out_dir,
        project_name=project_name,
        target=target,
        target_path=target_path,
        recorded_here=artifacts is None,
    )
    with warehouse() as wh:
        relation = _results_relation(wh, results_model, None)
        if invocation is None:
            invocation = latest_invocation(wh, relation) if wh.relation_exists(relation) else None
            if invocation is None:
                raise ResultsTableError(
                    f"the results table {relation} has no rows: run `dbt build` (its on-run-end hook records the "
                    "run) first"
                )
        rows = read_rows(wh, relation, invocation)
        if rows or artifacts is None or not export:
            return _report(wh, relation, invocation, rows, where, html=html, export=export, resend=resend)
        from dataplex_dq.record.run_operation import check_not_stale, record_run

        check_not_stale(wh, artifacts)
    # not recorded (its hook switched off): recorded now by the same writer, then read
    record_run(Path(project_dir), profiles_dir, target, artifacts, profile)
    with warehouse() as wh:
        relation = _results_relation(wh, results_model, None)
        rows = read_rows(wh, relation, invocation)
        return _report(wh, relation, invocation, rows, where, html=html, export=export, resend=resend)


@dataclass(frozen=True)
class _Where:
    """What the report knows of the project: its tests and data sources (manifest.json) and where it writes."""

    tests: Mapping[str, RuleTest]
    data_sources: Mapping[str, DataSource]
    out_dir: Path
    project_name: str | None
    target: str | None
    target_path: Path
    recorded_here: bool


def _report(
    wh: Warehouse,
    relation: Any,
    invocation: str,
    rows: list[dict[str, Any]],
    where: _Where,
    *,
    html: Any,
    export: bool,
    resend: bool,
) -> Report:
    """The recorded invocation read, its protos built, every output written."""
    if not rows:
        raise ResultsTableError(
            f"the results table {relation} has no rows of dbt invocation {invocation}"
            + (
                ""
                if where.recorded_here
                else ": its on-run-end hook is switched off (var dataplex_dq_on_run_end) and --no-export was given"
            )
        )
    run = read_recorded_run(wh, relation, invocation, rows, _Declared(where.tests))
    # only now: a report that could not read the run leaves the folder as it was; the previous files are
    # replaced or removed by the result files' output, once every new file is in place (outputs/files.py)
    clean_output_dir(where.out_dir)
    report = Report(
        invocation,
        severity={uid: t.severity for uid, t in where.tests.items()},
        tags={uid: t.tags for uid, t in where.tests.items() if t.tags},
        owners={uid: t.owners for uid, t in where.tests.items() if t.owners},
        alert_intervals={
            uid: t.alert_suppression_interval
            for uid, t in where.tests.items()
            if t.alert_suppression_interval is not None
        },
    )
    report.export_relation = str(relation)
    report.default_relation = relation
    report.export_rows = len(rows)
    report.sources = source_reports(run, where.tests, where.data_sources, where.out_dir)
    report.results_tables[str(relation)] = relation
    run_outputs(
        OUTPUTS,
        OutputContext(
            wh=wh,
            report=report,
            export=export,
            resend=resend,
            project=where.project_name,
            target=where.target,
            target_path=where.target_path,
            html=html,
            env=os.environ,
            relation_of=lambda table: _results_relation(wh, {}, table),
        ),
    )
    return report


class _Declared(Mapping[tuple[str, str], DeclaredRule]):
    """(test unique_id, rule name) -> the rule as the manifest records it (its position in its test, ...); a test
    without a readable record (a manifest parsed by an older package) is read from its rows alone.

    A test's rules are read from its record when first asked for, and only the last few tests' are kept: the rows
    come job by job, so a 10,000-rule run no longer holds 10,000 DeclaredRules while it is read (objects that lived
    as long as the report made Python's full garbage collections more frequent and longer)."""

    KEPT = 2  # tests whose rules are kept (recorded_jobs reads a job's rows test by test: one would do)

    def __init__(self, tests: Mapping[str, RuleTest]) -> None:
        self._tests = tests
        self._rules_of = functools.lru_cache(maxsize=self.KEPT)(self._read_rules)

    def _read_rules(self, uid: str) -> dict[str, DeclaredRule]:
        test = self._tests.get(uid)
        try:
            return {r.name: r for r in recorded_rules(test)} if test is not None else {}
        except ArtifactsError:
            return {}

    def __getitem__(self, key: tuple[str, str]) -> DeclaredRule:
        return self._rules_of(key[0])[key[1]]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for uid in self._tests:
            yield from ((uid, name) for name in self._rules_of(uid))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def source_reports(
    run: RecordedRun,
    tests: Mapping[str, RuleTest],
    data_sources: Mapping[str, DataSource],
    out_dir: Path,
) -> list[SourceReport]:
    """Per recorded job, its SourceReport: the data source (from the project when it is at hand), the outcomes
    and scores as recorded, and its DataQualityResult."""
    test_order = [t.unique_id for t in sorted(tests.values(), key=lambda t: t.order)]
    out = []
    for recorded in run.jobs:
        job = recorded.job
        source = data_sources.get(job.data_source_id) or DataSource(
            job.data_source_id,
            job.data_source_name,
            job.resource_type,
            None,
            job.database,
            job.schema,
            job.identifier,
        )
        result = build_result(
            recorded.outcomes,
            recorded.card,
            row_count=recorded.row_count,
            test_order=test_order,
            debug_results=recorded.debug_results,
            incremental=recorded.window,
        )
        fill_generated_assets(result, recorded.outcomes)
        base = result_file_base(job.data_source_id)
        out.append(
            SourceReport(
                source,
                recorded.outcomes,
                recorded.card,
                out_dir / f"{base}.json",
                out_dir / f"{base}.pb",
                job=job,
                result=result,
                recorded=recorded,
            )
        )
    return out


def ensure_manifest(project_dir: Path, profiles_dir: Path | None, target: str | None, target_path: Path) -> Path:
    """manifest.json of the project (the package's macros are needed to talk to the warehouse): the one
    in `target_path`, or one written by `dbt parse` into a temporary folder when the artifacts are gone."""
    import subprocess
    import sys
    import tempfile

    manifest = target_path / "manifest.json"
    if manifest.exists():
        return manifest
    out = Path(tempfile.mkdtemp(prefix="dataplex_dq_parse_"))
    cmd = [str(Path(sys.executable).parent / "dbt"), "parse", "--project-dir", str(project_dir)]
    cmd += ["--target-path", str(out), "--quiet"]
    if profiles_dir:
        cmd += ["--profiles-dir", str(profiles_dir)]
    if target:
        cmd += ["--target", target]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not (out / "manifest.json").exists():
        raise ResultsTableError(
            f"{manifest} is missing and `dbt parse` could not write one (exit {proc.returncode}): "
            f"{(proc.stdout + proc.stderr).strip().splitlines()[-1:] or ''}; run `dbt deps` in {project_dir} first"
        )
    return out / "manifest.json"


def clean_output_dir(out_dir: Path) -> Path:
    """``out_dir``, created. The previous report's files in it are left until this run's are all written
    (outputs/files.py write_result_files removes those it did not replace)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write the result files to {out_dir}: {exc.strerror or exc}") from exc
    return out_dir
