"""The report of one recorded run, as every output reads it: per data source (SourceReport) its recorded job, its
rules and scores as the results table records them, its DataQualityResult, and what each output did with it.
Reading the run: run/recorded.py; building these: run/report.py; the outputs: outputs/."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dataplex_dq.proto import DataQualityResult
from dataplex_dq.record.artifacts import DataSource
from dataplex_dq.run.jobs import JobContext
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.outcomes import RuleOutcome
from dataplex_dq.run.recorded import RecordedJob
from dataplex_dq.run.scoring import ScoreCard


@dataclass(frozen=True)
class ActionOutcome:
    """What one post-scan action did for one data source (the proto's states: SUCCEEDED, FAILED, SKIPPED)."""

    state: str
    message: str


@dataclass
class SourceReport:
    data_source: DataSource
    outcomes: list[RuleOutcome]
    card: ScoreCard
    json_path: Path
    pb_path: Path
    job: JobContext | None = None
    result: DataQualityResult | None = None
    recorded: RecordedJob | None = None  # the job as the results table records it
    # what the outputs did: the copy to another results table, catalog publishing, the notification (outputs/)
    export_result: ActionOutcome | None = None
    notification: Any = None  # outputs/notify.py NotificationOutcome
    catalog: ActionOutcome | None = None


@dataclass
class Report:
    invocation_id: str
    sources: list[SourceReport] = field(default_factory=list)
    export_rows: int = 0
    export_relation: str | None = None
    warnings: list[str] = field(default_factory=list)
    html_path: Path | None = None
    default_relation: Any = None  # the results table (a dbt Relation)
    tables_written: list[tuple[str, int]] = field(default_factory=list)  # extra exports: (relation, rows)
    action_errors: list[str] = field(default_factory=list)  # failed post-scan actions (exit 2)
    output_errors: list[str] = field(default_factory=list)  # outputs that could not complete (exit 2)
    # every results table holding the run's rows (relation text -> relation): the default one, and the copies
    results_tables: dict[str, Any] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)  # test unique_id -> dbt severity (ERROR / WARN)
    tags: dict[str, tuple[str, ...]] = field(default_factory=dict)  # test unique_id -> its dbt tags
    owners: dict[str, tuple[str, ...]] = field(default_factory=dict)  # test unique_id -> its meta.owner (alerts)
    alert_intervals: dict[str, Any] = field(default_factory=dict)  # test unique_id -> its alert_suppression_interval
    alert_lines: list[tuple[str, str]] = field(default_factory=list)  # (style, line): why each alert was (not) sent

    def failed_rules(self, severity: str) -> list[tuple[SourceReport, RuleOutcome]]:
        """Failed rules of tests of this dbt severity (a WARN test's failure is a warning, as in dbt)."""
        return [
            (s, o)
            for s in self.sources
            for o in s.outcomes
            if o.status == RuleStatus.FAILED and self.severity.get(o.test_unique_id or "", "ERROR") == severity
        ]

    @property
    def any_rule_failed(self) -> bool:
        return any(s.card.failed_rules for s in self.sources)

    @property
    def has_errors(self) -> bool:
        return any(s.card.has_errors for s in self.sources) or bool(self.action_errors or self.output_errors)
