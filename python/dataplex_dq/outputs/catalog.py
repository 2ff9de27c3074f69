"""Catalog publishing (docs/SEMANTICS.md §14): with `catalog_publishing_enabled: true` the latest score and pass/fail
of a data source go onto its own table's metadata, where any catalog or SQL client shows them.

* DuckDB, PostgreSQL: one marked line in ``COMMENT ON TABLE``. The line starts with ``MARK``; publishing
  replaces the previous marked line and keeps every other line (dbt's persist_docs text survives, and
  a later persist_docs run drops our line until the next report puts it back).
* BigQuery: table labels ``dataplex-dq-score`` (``66_67``: label values allow no dot),
  ``dataplex-dq-passed`` (``true``/``false``) and ``dataplex-dq-job`` (the job id), merged with the
  table's other labels, and the same marked line in the description.

Views and relations the user cannot alter are SKIPPED with the reason. The SQL lives in
macros/lifecycle/catalog.sql; building the text is pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.run.model import ActionOutcome

MARK = "[dataplex-dq]"
LABEL_SCORE, LABEL_PASSED, LABEL_JOB = "dataplex-dq-score", "dataplex-dq-passed", "dataplex-dq-job"


def enabled(settings: Mapping[str, Any]) -> bool:
    value = settings.get("catalog_publishing_enabled")
    if value is None:
        value = settings.get("catalogPublishingEnabled")
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def published_line(score: float | None, passed: bool, job_id: str, when: str | None) -> str:
    score_text = "none (no rule evaluated)" if score is None else f"{score:.2f}"
    return f"{MARK} data quality score {score_text}, passed {'true' if passed else 'false'}, job {job_id}" + (
        f", {when} UTC" if when else ""
    )


def merged_comment(existing: str | None, line: str) -> str:
    """``existing`` without its previous marked line(s), then ``line``."""
    kept = [x for x in (existing or "").splitlines() if not x.lstrip().startswith(MARK)]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join([*kept, line]) if kept else line


def label_value(text: str) -> str:
    """A BigQuery label value: lower-case letters, digits, '_' and '-', at most 63 characters."""
    return re.sub(r"[^a-z0-9_-]", "_", text.lower())[:63]


def bigquery_labels(
    existing: Mapping[str, str] | None, score: float | None, passed: bool, job_id: str
) -> dict[str, str]:
    labels = {k: v for k, v in (existing or {}).items() if k not in (LABEL_SCORE, LABEL_PASSED, LABEL_JOB)}
    labels[LABEL_SCORE] = label_value("none" if score is None else f"{score:.2f}")
    labels[LABEL_PASSED] = "true" if passed else "false"
    labels[LABEL_JOB] = label_value(job_id)
    return labels


def _bigquery_info(wh: Any, relation: Any) -> dict[str, Any]:
    """Kind, description and labels of a BigQuery table, read through dbt-bigquery's client."""
    table = wh.adapter.get_bq_table(relation)
    kind = {"TABLE": "table", "VIEW": "view", "MATERIALIZED_VIEW": "view", "EXTERNAL": "external table"}.get(
        str(table.table_type), str(table.table_type).lower()
    )
    return {
        "kind": kind,
        "comment": table.description,
        "labels": dict(table.labels or {}),
        "alterable": kind == "table",
        "reason": None,
    }


def publish(
    wh: Any, relation: Any, *, score: float | None, passed: bool, job_id: str, when: str | None
) -> ActionOutcome:
    """Publish one data source's latest result on its table. Never raises."""
    try:
        if wh.dialect.catalog_labels:
            info = _bigquery_info(wh, relation)
        else:
            info = dict(wh.macro("catalog_table_info", relation=relation))
        kind = info.get("kind")
        if kind == "missing":
            return ActionOutcome("SKIPPED", f"{relation}: {info.get('reason') or 'no such table'}")
        if kind != "table":
            return ActionOutcome(
                "SKIPPED", f"{relation} is a {kind}: only tables carry the published score (materialize it as a table)"
            )
        if not info.get("alterable"):
            return ActionOutcome("SKIPPED", f"{relation} cannot be altered: {info.get('reason')}")
        comment = merged_comment(info.get("comment"), published_line(score, passed, job_id, when))
        labels = bigquery_labels(info.get("labels"), score, passed, job_id) if wh.dialect.catalog_labels else {}
        wh.macro("catalog_publish", relation=relation, comment=comment, labels=labels)
        wh.commit()
    except Exception as exc:  # noqa: BLE001 - any adapter/driver error: reported as FAILED, never fatal
        text = " ".join(x.strip() for x in str(exc).splitlines() if x.strip())
        return ActionOutcome("FAILED", f"{relation}: {text[:500] or type(exc).__name__}")
    what = "labels and description" if wh.dialect.catalog_labels else "table comment"
    return ActionOutcome("SUCCEEDED", f"published score and pass/fail in the {what} of {relation}")


class CatalogPublishing:
    """Publish each data source's latest score where `catalog_publishing_enabled` is set."""

    name = "catalog publishing"

    def write(self, ctx: OutputContext) -> None:
        for s in ctx.report.sources:
            if not enabled(s.data_source.settings) or s.job is None:
                continue
            if not (s.data_source.database or s.data_source.schema) or not s.data_source.identifier:
                s.catalog = ActionOutcome("SKIPPED", f"{s.data_source.label} has no relation")
                continue
            try:
                relation = ctx.wh.relation(s.data_source.database, s.data_source.schema, s.data_source.identifier)
                when = s.job.end_time.strftime("%Y-%m-%d %H:%M:%S") if s.job.end_time else None
                s.catalog = publish(
                    ctx.wh, relation, score=s.card.score, passed=s.card.passed, job_id=s.job.job_id, when=when
                )
            except DataplexDqError as exc:
                s.catalog = ActionOutcome("FAILED", first_line(exc))
            if s.catalog.state == "FAILED":
                ctx.report.action_errors.append(
                    f"{s.data_source.label}: catalog publishing failed: {s.catalog.message}"
                )
