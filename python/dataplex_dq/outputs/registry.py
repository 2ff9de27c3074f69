"""The outputs of a report, in the order they run: the post-scan actions first (their outcomes go into the
protos), then the result files, then the HTML report. Adding an output: docs/ARCHITECTURE.md, "Adding an output"."""

from __future__ import annotations

from dataplex_dq.outputs.alerts import Alerts
from dataplex_dq.outputs.base import Output
from dataplex_dq.outputs.catalog import CatalogPublishing
from dataplex_dq.outputs.files import ResultFiles
from dataplex_dq.outputs.html_data import HtmlReport
from dataplex_dq.outputs.notifications import Notifications
from dataplex_dq.outputs.openlineage import OpenLineageEvents
from dataplex_dq.outputs.results_copy import ResultsCopy

OUTPUTS: tuple[Output, ...] = (
    ResultsCopy(),
    CatalogPublishing(),
    Notifications(),
    Alerts(),
    ResultFiles(),
    HtmlReport(),
    OpenLineageEvents(),
)
