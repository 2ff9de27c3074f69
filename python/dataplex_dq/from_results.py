"""`dataplex-dq report --from-results-table`: rebuild a run's report from the results table alone.

For a run whose dbt artifacts are gone (a separate job after dbt Cloud, where `dbt build` with the
on-run-end hook wrote the rows): read the rows of one invocation, turn each back into a rule outcome,
score (scoring.py, the same scores the hook wrote), write the DataQualityResult protos, run the
failing rules' debug queries (expanded by the package's macros), and replace the invocation's rows
with rows that carry the debug query results (same job ids: never a second copy).

What Dataplex's export schema does not keep is not in the rebuilt protos: a rule's `ignore_null`, and
a threshold declared as 1.0 (the table holds the effective threshold; 1.0 is written as unset)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dataplex_dq.cost import QueryCost
from dataplex_dq.errors import DataplexDqError
from dataplex_dq.export import RULE_TYPE_DISPLAY, JobContext
from dataplex_dq.metrics import RuleMetrics, RuleStatus
from dataplex_dq.outcomes import RuleIdentity, RuleOutcome

TYPE_OF_DISPLAY = {display: rule_type for rule_type, display in RULE_TYPE_DISPLAY.items()}


class ResultsTableError(DataplexDqError):
    """The results table has no rows for the requested run, or a row cannot be read back."""


def _json(value: Any) -> Any:
    """A JSON or STRUCT column as Python values, whatever the driver returned (text or decoded)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _ts(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value).replace(" UTC", "").replace("Z", ""))


@dataclass(frozen=True)
class StoredJob:
    """One job's rows read back: its context and its rules as outcomes."""

    job: JobContext
    outcomes: list[RuleOutcome]
    row_count: int | None


def rule_spec_of(row: dict[str, Any], rule_type: str) -> dict[str, Any]:
    """The DataQualityRule (snake_case proto JSON) a results row describes."""
    spec: dict[str, Any] = {"name": row["rule_name"]}
    for key, column in (
        ("description", "rule_description"),
        ("column", "rule_column"),
        ("dimension", "rule_dimension"),
    ):
        if row.get(column):
            spec[key] = row[column]
    threshold = row.get("rule_threshold_percent")
    if threshold is not None and float(threshold) != 100.0:
        spec["threshold"] = round(float(threshold) / 100, 12)
    if row.get("rule_suspended"):
        spec["suspended"] = True
    params = _json(row.get("rule_parameters"))
    spec[rule_type] = params if isinstance(params, dict) else {}
    queries = [
        {
            k: v
            for k, v in (("description", q.get("description")), ("sql_statement", q.get("sql_statement")))
            if v is not None
        }
        for q in (_json(row.get("debug_queries")) or [])
        if isinstance(q, dict) and q.get("sql_statement")
    ]
    if queries:
        spec["debug_queries"] = queries
    return spec


def outcome_of(row: dict[str, Any], expand: Any) -> RuleOutcome:
    """A results row as a RuleOutcome. `expand(sql)` expands `${data()}` in a debug query."""
    rule_type = TYPE_OF_DISPLAY.get(row.get("rule_type") or "", row.get("rule_type") or "")
    spec = rule_spec_of(row, rule_type)
    attributes = _json(row.get("rule_attributes")) or {}
    status = RuleStatus(
        str(
            row.get("rule_status")
            or ("SUSPENDED" if row.get("rule_suspended") else "PASSED" if row.get("rule_passed") else "FAILED")
        ).upper()
    )
    if status in (RuleStatus.ERROR, RuleStatus.SKIPPED):
        identity = RuleIdentity.from_rule_spec(
            {**spec, "attributes": attributes},
            data_source=row.get("dbt_node_unique_id"),
            test_unique_id=row.get("dbt_test_unique_id"),
        )
        return RuleOutcome.not_evaluated(identity, status, message=row.get("rule_message"))
    evaluated, passed = row.get("rule_rows_evaluated"), row.get("rule_rows_passed")
    ratio = None if evaluated is None or passed is None else (passed / evaluated if evaluated else 1.0)
    debug = [
        {"description": q.get("description"), "sql_statement": expand(q["sql_statement"])}
        for q in spec.get("debug_queries", [])
    ]
    metrics = RuleMetrics.from_row(
        {
            "dq_invocation_id": row.get("dbt_invocation_id"),
            "dq_test_unique_id": row.get("dbt_test_unique_id"),
            "dq_data_source": row.get("dbt_node_unique_id"),
            "rule_index": 0,
            "rule_name": row["rule_name"],
            "rule_type": rule_type,
            "rule_column": row.get("rule_column"),
            "rule_dimension": row.get("rule_dimension"),
            "rule_threshold": None
            if row.get("rule_threshold_percent") is None
            else float(row["rule_threshold_percent"]) / 100,
            "rule_suspended": status is RuleStatus.SUSPENDED,
            "rule_status": str(status),
            "row_count": row.get("job_rows_scanned") if status is not RuleStatus.SUSPENDED else None,
            "evaluated_count": evaluated,
            "passed_count": passed,
            "null_count": row.get("rule_rows_null"),
            "pass_ratio": ratio,
            "passed": True if status is RuleStatus.SUSPENDED else status is RuleStatus.PASSED,
            "assertion_row_count": row.get("rule_assertion_row_count"),
            "statistic_value": row.get("rule_statistic_value"),
            "failing_rows_query": row.get("rule_failed_records_query"),
            "rule_spec": json.dumps(spec),
            "rule_attributes": json.dumps(attributes) if attributes else None,
            "debug_queries_sql": json.dumps(debug) if debug else None,
        }
    )
    return RuleOutcome.from_metrics(metrics)


def stored_jobs(rows: list[dict[str, Any]], adapter_type: str, expander: Any) -> list[StoredJob]:
    """Group one invocation's rows into jobs. `expander(job_row)` returns the `${data()}` expander of
    that job's data source."""
    by_job: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_job[row["data_quality_job_id"]].append(row)
    jobs = []
    for job_rows in by_job.values():
        first = job_rows[0]
        scan = _json(first.get("data_quality_scan")) or {}
        source = _json(first.get("data_source")) or {}
        config = _json(first.get("data_quality_job_configuration")) or {}
        labels = _json(first.get("job_labels")) or {}
        resource_type, _, name = str(scan.get("display_name") or " ").partition(" ")
        sampling = config.get("sampling_percent")
        job = JobContext(
            invocation_id=first["dbt_invocation_id"],
            data_source_id=first["dbt_node_unique_id"],
            data_source_name=name,
            resource_type=resource_type,
            database=source.get("table_project_id"),
            schema=source.get("dataset_id"),
            identifier=source.get("table_id"),
            adapter_type=adapter_type,
            start_time=_ts(first.get("job_start_time")),
            end_time=_ts(first.get("job_end_time")),
            rows_scanned=first.get("job_rows_scanned"),
            row_filter=config.get("row_filter"),
            sampling_percent=None if sampling in (None, 100, 100.0) else sampling,
            labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
            target=first.get("dbt_target"),
            declared_rules=_declared_rules(first.get("job_declared_rules")),
            test_costs={
                str(r["dbt_test_unique_id"]): cost
                for r in job_rows
                if (cost := QueryCost.from_json(r.get("dbt_test_cost"))) is not None
            },
        )
        expand = expander(job)
        jobs.append(StoredJob(job, [outcome_of(r, expand) for r in job_rows], first.get("job_rows_scanned")))
    return jobs


def _declared_rules(value: Any) -> tuple[str, ...] | None:
    """The stored job_declared_rules (a JSON array, as text where the warehouse has no JSON type)."""
    if isinstance(value, str):
        value = json.loads(value)
    return tuple(str(v) for v in value) if isinstance(value, list) else None


def ensure_manifest(project_dir: Path, profiles_dir: Path | None, target: str | None, target_path: Path) -> Path:
    """manifest.json of the project (the package's macros are needed to talk to the warehouse): the one
    in `target_path`, or one written by `dbt parse` into a temporary folder when the artifacts are gone."""
    manifest = target_path / "manifest.json"
    if manifest.exists():
        return manifest
    out = Path(tempfile.mkdtemp(prefix="dataplex_dq_parse_"))
    cmd = [
        str(Path(sys.executable).parent / "dbt"),
        "parse",
        "--project-dir",
        str(project_dir),
        "--target-path",
        str(out),
        "--quiet",
    ]
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


def _manifest_settings(manifest_path: Path) -> dict[str, dict[str, Any]]:
    """meta.dataplex_dq (merged with a data_quality_scan's scan settings) per data source."""
    from dataplex_dq.artifacts import PACKAGE, _data_source, scan_settings

    manifest = json.loads(manifest_path.read_text())
    out: dict[str, dict[str, Any]] = {}
    for collection in ("nodes", "sources"):
        for uid, node in (manifest.get(collection) or {}).items():
            if node.get("resource_type") in ("model", "seed", "snapshot", "source"):
                settings = _data_source(node).settings
                if settings:
                    out[uid] = dict(settings)
    for node in (manifest.get("nodes") or {}).values():
        meta = node.get("test_metadata") or {}
        if meta.get("namespace") == PACKAGE and meta.get("name") == "data_quality_scan" and node.get("attached_node"):
            out.setdefault(node["attached_node"], {}).update(scan_settings(meta.get("kwargs") or {}))
    return out


def run_report_from_results_table(
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path | None,
    *,
    invocation: str | None = None,
    export: bool = True,
) -> Any:
    """The report of one invocation (the latest when `invocation` is None) from the results table."""
    from dataplex_dq.artifacts import DataSource
    from dataplex_dq.assemble import build_result, result_to_bytes, result_to_json
    from dataplex_dq.errors import ExportError
    from dataplex_dq.export import result_rows, write_results
    from dataplex_dq.report import Report, SourceReport, _results_relation, _safe_file_name, run_debug_queries
    from dataplex_dq.scoring import score_rules
    from dataplex_dq.warehouse import Warehouse

    target_path = Path(target_path) if target_path else Path(project_dir) / "target"
    manifest_path = ensure_manifest(Path(project_dir), profiles_dir, target, target_path)
    manifest = json.loads(manifest_path.read_text())
    results_model = {
        k: (manifest.get("nodes", {}).get("model.dataplex_dq.dataplex_dq_results") or {}).get(v)
        for k, v in (("database", "database"), ("schema", "schema"), ("identifier", "alias"))
    }
    settings_of = _manifest_settings(manifest_path)
    out_dir = target_path / "dataplex_dq"
    out_dir.mkdir(parents=True, exist_ok=True)
    with Warehouse(Path(project_dir), profiles_dir, target, manifest_path) as wh:
        relation = _results_relation(wh, results_model, None)
        if invocation is None:
            latest = wh.query(wh.macro("latest_invocation_sql", relation=relation))
            if not latest:
                raise ResultsTableError(
                    f"the results table {relation} has no rows: run `dbt build` with the on-run-end hook (or "
                    "`dataplex-dq report`) first"
                )
            invocation = str(latest[0]["dbt_invocation_id"])
        rows = wh.query(wh.macro("results_of_invocation_sql", relation=relation, invocation_id=invocation))
        if not rows:
            raise ResultsTableError(f"the results table {relation} has no rows of dbt invocation {invocation}")

        def expander(job: JobContext) -> Any:
            scope = None

            def expand(sql: str) -> str:
                nonlocal scope
                if "${data()}" not in sql:
                    return sql
                if scope is None:
                    source = wh.relation(job.database, job.schema or "", job.identifier or "")
                    scope = wh.macro(
                        "scope_select",
                        from_sql=str(source),
                        row_filter=job.row_filter,
                        sampling_percent=job.sampling_percent,
                    )
                return str(wh.macro("expand_data_reference", sql=sql, data_sql=scope))

            return expand

        report = Report(invocation)
        default_rows: list[dict[str, Any]] = []
        extra_exports: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for stored in stored_jobs(rows, wh.adapter_type, expander):
            job, outcomes = stored.job, stored.outcomes
            card = score_rules(outcomes)
            debug = run_debug_queries(wh, outcomes)
            result = build_result(outcomes, card, row_count=stored.row_count, debug_results=debug)
            new_rows = result_rows(job, outcomes, card, debug)
            default_rows.extend(new_rows)
            settings = settings_of.get(job.data_source_id, {})
            actions = settings.get("post_scan_actions") or {}
            override = (
                (actions.get("bigquery_export") or actions.get("bigqueryExport") or {}).get("results_table")
                if isinstance(actions, dict)
                else None
            )
            if override:
                extra_exports[override].extend(new_rows)
            if isinstance(actions, dict) and (actions.get("notification_report") or actions.get("notificationReport")):
                report.warnings.append(
                    f"{job.resource_type} '{job.data_source_name}': notification_report is not supported yet; no "
                    "email was sent"
                )
            source = DataSource(
                job.data_source_id,
                job.data_source_name,
                job.resource_type,
                None,
                job.database,
                job.schema,
                job.identifier,
                settings,
            )
            base = _safe_file_name(job.data_source_id)
            json_path, pb_path = out_dir / f"{base}.json", out_dir / f"{base}.pb"
            json_path.write_text(result_to_json(result) + "\n")
            pb_path.write_bytes(result_to_bytes(result))
            report.sources.append(SourceReport(source, outcomes, card, json_path, pb_path))
        if export and default_rows:
            try:
                report.export_relation = str(relation)
                write_results(wh, relation, default_rows, sorted({r["data_quality_job_id"] for r in default_rows}))
                report.export_rows = len(default_rows)
                for override, extra in extra_exports.items():
                    write_results(
                        wh,
                        _results_relation(wh, {}, override),
                        extra,
                        sorted({r["data_quality_job_id"] for r in extra}),
                    )
            except ExportError as exc:
                report.export_error = str(exc)
    return report
