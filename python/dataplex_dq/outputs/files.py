"""The result files: per data source its DataQualityResult as proto JSON and binary
(target/dataplex_dq/<data source>.json and .pb), with the post-scan actions' outcomes where the proto has a field."""

from __future__ import annotations

from collections.abc import Iterable

from dataplex_dq.errors import OutputError
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.run.assemble import result_to_bytes, result_to_json
from dataplex_dq.run.model import SourceReport


def with_action_results(s: SourceReport) -> bool:
    """Put the outcomes of a source's post-scan actions into its DataQualityResult (the proto has
    fields for the BigQuery export and catalog publishing, none for notifications); True when set."""
    if s.result is None:
        return False
    if s.export_result is not None:
        out = s.result.post_scan_actions_result.bigquery_export_result
        out.CopyFrom(type(out)(state=s.export_result.state, message=s.export_result.message))
    if s.catalog is not None:
        status = s.result.catalog_publishing_status
        status.CopyFrom(type(status)(state=s.catalog.state))
    return s.export_result is not None or s.catalog is not None


def write_result_files(sources: Iterable[SourceReport]) -> None:
    """Each source's DataQualityResult as proto JSON and binary (its ``json_path`` and ``pb_path``)."""
    for s in sources:
        if s.result is None:
            continue
        try:
            s.json_path.write_text(result_to_json(s.result) + "\n")
            s.pb_path.write_bytes(result_to_bytes(s.result))
        except OSError as exc:
            raise OutputError(f"cannot write the result file {s.json_path}: {exc.strerror or exc}") from exc


class ResultFiles:
    name = "result files"

    def write(self, ctx: OutputContext) -> None:
        for s in ctx.report.sources:
            with_action_results(s)
        write_result_files(ctx.report.sources)
