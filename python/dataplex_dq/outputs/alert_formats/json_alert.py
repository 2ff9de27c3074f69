"""Generic JSON for any other receiver: the shape published in schemas/alert.schema.json (kind
`dataplex_dq.alert`, schema_version 1). Values are data, not markup: nothing is escaped but JSON's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dataplex_dq.outputs.alert_formats import Alert, AlertItem
from dataplex_dq.outputs.owners import Owner

SCHEMA_VERSION = 1


def _owner(o: Owner) -> dict[str, Any]:
    return {"name": o.name, "slack": o.slack, "teams": o.teams_id, "email": o.email}


def _item(i: AlertItem) -> dict[str, Any]:
    sample = None
    if i.sample is not None:
        sample = {
            "columns": list(i.sample.columns),
            "rows": [list(r) for r in i.sample.rows],
            "truncated": i.sample.truncated,
            "error": i.sample.error,
        }
    return {
        "event": i.event,
        "data_source": {"id": i.data_source_id, "label": i.data_source},
        "rule": {"name": i.rule_name, "column": i.column, "dimension": i.dimension, "status": i.status},
        "severity": i.severity,
        "tags": list(i.tags),
        "summary": i.summary or None,
        "failing_since": i.failing_since,
        "owners": [_owner(o) for o in i.owners],
        "failing_rows_query": i.failing_rows_query,
        "sample": sample,
    }


class JsonAlert:
    name = "json"

    def payload(self, alert: Alert) -> Mapping[str, Any]:
        return {
            "kind": "dataplex_dq.alert",
            "schema_version": SCHEMA_VERSION,
            "title": alert.title,
            "route": alert.route,
            "invocation_id": alert.invocation_id,
            "project": alert.project,
            "target": alert.target,
            "sent_at": alert.sent_at,
            "alerts": [_item(i) for i in alert.items],
        }
