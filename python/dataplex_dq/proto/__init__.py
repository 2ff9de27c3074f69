"""``google.cloud.dataplex.v1`` data quality messages, generated from ``protos/``.

The classes are wire-compatible with Google's (same full names and field numbers) but live in a
private descriptor pool (see ``_pool.py``), so this package imports cleanly next to
``google-cloud-dataplex``. ``google.protobuf.json_format`` works with them as usual.
"""

from dataplex_dq.proto._pool import POOL
from dataplex_dq.proto.data_quality_pb2 import (
    DataQualityColumnResult,
    DataQualityDimension,
    DataQualityDimensionResult,
    DataQualityResult,
    DataQualityRule,
    DataQualityRuleResult,
    DataQualitySpec,
)
from dataplex_dq.proto.datascans_common_pb2 import DataScanCatalogPublishingStatus
from dataplex_dq.proto.processing_pb2 import DataSource, ScannedData, Trigger

__all__ = [
    "POOL",
    "DataQualityColumnResult",
    "DataQualityDimension",
    "DataQualityDimensionResult",
    "DataQualityResult",
    "DataQualityRule",
    "DataQualityRuleResult",
    "DataQualitySpec",
    "DataScanCatalogPublishingStatus",
    "DataSource",
    "ScannedData",
    "Trigger",
]
