"""Recording a run through the package's writer, for a run whose on-run-end hook did not record it (switched
off with the var `dataplex_dq_on_run_end`, or a package without it): `dbt run-operation dataplex_dq.record_run`
(in-process, writing no artifacts) with the run's results as run_results.json has them. The rows are built by the
same macro the hook runs (macros/results/on_run_end.sql, record_invocation); nothing here builds a row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dataplex_dq.errors import DataplexDqError, StaleArtifactsError, first_line
from dataplex_dq.record.artifacts import Artifacts, short_test_name
from dataplex_dq.warehouse.connection import Warehouse


class RecordError(DataplexDqError):
    """dbt could not record the run (the writer failed or the project does not parse)."""


EVALUATED = ("pass", "fail", "warn", "success")


def check_not_stale(wh: Warehouse, artifacts: Artifacts) -> None:
    """Refuse artifacts whose run the warehouse does not hold: a test that ran left its metrics rows of this
    invocation, so rows of another invocation there mean the artifacts are stale (another target, or a run in
    between). Reads the first such relation's invocation id only."""
    test = next(
        (
            t
            for t in artifacts.ran_tests()
            if t.relation_name and artifacts.runs[t.unique_id].status.lower() in EVALUATED
        ),
        None,
    )
    if test is None:
        return
    try:
        found = wh.query(f"select dq_invocation_id from {test.relation_name} limit 1")
    except DataplexDqError:
        return  # the writer says what is wrong with the relation
    if found and found[0].get("dq_invocation_id") not in (None, artifacts.invocation_id):
        raise StaleArtifactsError(
            f"the metrics row of test {short_test_name(test)} comes from dbt invocation "
            f"{found[0]['dq_invocation_id']}, but run_results.json is from {artifacts.invocation_id}: the warehouse "
            "and the artifacts disagree (another target, or a run in between). Run `dbt build` again with this "
            "target, then `dataplex-dq report`."
        )


def _timestamp(value: Any) -> str | None:
    """run_results.json's ISO time as naive UTC text the writer casts (no zone suffix)."""
    if not value:
        return None
    return str(value).replace("Z", "").split("+")[0]


def recorded_results(run_results: dict[str, Any], artifacts: Artifacts) -> list[dict[str, Any]]:
    """The dataplex_dq tests' entries of run_results.json in the shape of dbt's `results` the writer reads."""
    out = []
    for r in run_results.get("results") or []:
        if not isinstance(r, dict) or r.get("unique_id") not in artifacts.tests:
            continue
        out.append(
            {
                "node": {"unique_id": r["unique_id"]},
                "status": r.get("status"),
                "message": r.get("message"),
                "timing": [
                    {
                        "name": t.get("name"),
                        "started_at": _timestamp(t.get("started_at")),
                        "completed_at": _timestamp(t.get("completed_at")),
                    }
                    for t in r.get("timing") or []
                    if isinstance(t, dict)
                ],
                "execution_time": r.get("execution_time"),
                "adapter_response": r.get("adapter_response") or {},
            }
        )
    return out


def record_run(
    project_dir: Path, profiles_dir: Path | None, target: str | None, artifacts: Artifacts, profile: str | None = None
) -> None:
    """Record ``artifacts``' invocation into the results table with `dbt run-operation dataplex_dq.record_run`
    (in-process)."""
    from dbt.adapters.factory import cleanup_connections, reset_adapters
    from dbt.cli.main import dbtRunner

    run_results = json.loads((artifacts.target_path / "run_results.json").read_text())
    metadata = run_results.get("metadata") or {}
    args = {
        "results": recorded_results(run_results, artifacts),
        "invocation": artifacts.invocation_id,
        "started_at": _timestamp(metadata.get("invocation_started_at") or metadata.get("generated_at")),
    }
    # the run's own artifacts are left as they are (--no-write-json); its parse state is reused
    cmd = ["run-operation", "dataplex_dq.record_run", "--args", json.dumps(args), "--project-dir", str(project_dir)]
    cmd += ["--target-path", str(artifacts.target_path), "--no-write-json", "--quiet"]
    if profiles_dir:
        cmd += ["--profiles-dir", str(profiles_dir)]
    if target:
        cmd += ["--target", target]
    if profile:
        cmd += ["--profile", profile]
    # dbt's run starts from no adapter: the one this process registered to read the table is let go (dbt would
    # otherwise reuse it, with what it had cached), and so is the one dbt registers, after it
    cleanup_connections()
    reset_adapters()
    try:
        result = dbtRunner().invoke(cmd)
    except Exception as exc:  # dbt raised before producing a result: one line
        raise RecordError(f"recording dbt invocation {artifacts.invocation_id} failed: {first_line(exc)}") from exc
    cleanup_connections()
    reset_adapters()
    if not result.success:
        reason = first_line(result.exception) if result.exception is not None else "see dbt's messages above"
        raise RecordError(
            f"recording dbt invocation {artifacts.invocation_id} into the results table failed "
            f"(dbt run-operation dataplex_dq.record_run): {reason}"
        )
