"""Anomaly checks in the post-hook (docs/SEMANTICS.md §13): the few facts the report needs about them.

Anomaly checks arrive as ordinary metrics rows (macros/anomaly/), so scoring, protos and the export
treat them like any rule. Two things are theirs: a check still learning its history has the status
``TRAINING`` (reported and exported, left out of scores and of ``DataQualityResult.rules``), and the
check's ``rule_attributes`` name the four tables it used, which fill
``DataQualityResult.anomaly_detection_generated_assets``.
"""

from __future__ import annotations

from collections.abc import Iterable

from dataplex_dq.proto import DataQualityResult
from dataplex_dq.run.metrics import RuleStatus
from dataplex_dq.run.outcomes import RuleOutcome

__all__ = ["ASSET_FIELDS", "anomalies", "fill_generated_assets", "is_anomaly_check", "training_checks"]

ASSET_FIELDS = ("result_table", "data_intermediate_table", "freshness_intermediate_table", "volume_intermediate_table")
"""The fields of DataQualityResult.AnomalyDetectionGeneratedAssets, as the checks' attributes name them."""


def is_anomaly_check(outcome: RuleOutcome) -> bool:
    return bool(outcome.attributes.get("anomaly_check"))


def training_checks(outcomes: Iterable[RuleOutcome]) -> list[RuleOutcome]:
    return [o for o in outcomes if o.status is RuleStatus.TRAINING]


def anomalies(outcomes: Iterable[RuleOutcome]) -> list[RuleOutcome]:
    """Anomaly checks that found an anomaly (a FAILED check)."""
    return [o for o in outcomes if o.status is RuleStatus.FAILED and is_anomaly_check(o)]


def fill_generated_assets(result: DataQualityResult, outcomes: Iterable[RuleOutcome]) -> None:
    """Set ``anomaly_detection_generated_assets`` from the first anomaly check's attributes (all the
    checks of one data source use the same four tables); leave it unset without anomaly checks."""
    for outcome in outcomes:
        attrs = outcome.attributes
        if is_anomaly_check(outcome) and all(attrs.get(f) for f in ASSET_FIELDS):
            assets = result.anomaly_detection_generated_assets
            for f in ASSET_FIELDS:
                setattr(assets, f, attrs[f])
            return
