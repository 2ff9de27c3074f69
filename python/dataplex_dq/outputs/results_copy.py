"""The post-scan action `bigquery_export.results_table` (docs/SEMANTICS.md §11): a data source's recorded rows are
copied to that results table as well, by the package's macro (macros/results/results_table.sql, copy_results)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.field_names import spec_field
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.run.model import ActionOutcome, SourceReport


def extra_export_table(settings: Mapping[str, Any]) -> str | None:
    """``post_scan_actions.bigquery_export.results_table`` (either casing), or None."""
    table = spec_field(spec_field(spec_field(settings, "post_scan_actions"), "bigquery_export"), "results_table")
    return str(table) if table else None


class ResultsCopy:
    name = "bigquery_export"

    def write(self, ctx: OutputContext) -> None:
        report = ctx.report
        by_table: dict[str, list[SourceReport]] = defaultdict(list)
        for s in report.sources:
            table = extra_export_table(s.data_source.settings)
            if table is None:
                s.export_result = ActionOutcome("SKIPPED", "no post_scan_actions.bigquery_export.results_table is set")
            elif not ctx.export:
                s.export_result = ActionOutcome("SKIPPED", f"export to {table} disabled (--no-export)")
            else:
                by_table[table].append(s)
        for table, sources in by_table.items():
            ids = sorted(s.job.job_id for s in sources if s.job is not None)
            try:
                relation = ctx.relation_of(table)
                ctx.wh.macro("copy_results", source=report.default_relation, target=relation, job_ids=ids)
            except DataplexDqError as exc:
                reason = first_line(exc)
                for s in sources:
                    s.export_result = ActionOutcome("FAILED", reason)
                report.action_errors.append(f"bigquery_export to {table} failed: {reason}")
                continue
            name = str(relation)
            report.tables_written.append((name, sum(len(s.outcomes) for s in sources)))
            report.results_tables[name] = relation
            for s in sources:
                s.export_result = ActionOutcome("SUCCEEDED", f"exported {len(s.outcomes)} rows to {name}")
