"""A separate process copying rows into a results table the way the post-scan action
`bigquery_export.results_table` does (issue 9, D; issue 29): run by test_export_safety.py as
`python export_worker.py '<json>'`, it opens the target through dbt's adapter as `dataplex-dq report` does,
resolves each table name as the report does (report._results_relation: parsed, validated, quoted), and
runs the package's macro copy_results from a source results table it fills with synthetic rows. It prints
one JSON line per export: {"ok": true, "relation": "..."} or {"error": "..."}.

The JSON: {"project_dir", "profiles_dir", "target", "manifest", "exports": [{"table", "job_id", "rules"}]}.
The source table (made with the package's own DDL, create_results_table_sql) is one per process, so that
two workers at once never share it, and is dropped at the end. DATAPLEX_DQ_TEST_PAUSE_AFTER_DELETE
(seconds) is passed to copy_results' test hook `pause` (a wait between its DELETE and its INSERT)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from dataplex_dq.errors import DataplexDqError
from dataplex_dq.run.report import _results_relation
from dataplex_dq.warehouse.connection import Warehouse
from dataplex_dq.warehouse.table_name import TableNameError


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _create_source(wh: Warehouse, exports: list[dict[str, Any]]) -> Any:
    """A results table of this process holding the old worker's synthetic rows, one per rule of each export."""
    creds = wh.credentials
    source = wh.relation(
        getattr(creds, "database", None), getattr(creds, "schema", None), f"dq_copy_source_{os.getpid()}"
    )
    wh.execute(f"drop table if exists {source}")
    # the package's DDL; on BigQuery without its `PARTITION BY DATE(job_start_time)`, which the
    # emulator of the test suite refuses (default__ is the same columns and types, unpartitioned)
    ddl = "default__create_results_table_sql" if wh.adapter_type == "bigquery" else "create_results_table_sql"
    wh.execute(wh.macro(ddl, relation=source))
    values = [
        f"({_literal(e['job_id'])}, {_literal(rule)}, 'PASSED', true, 'inv-worker', 7)"
        for e in exports
        for rule in e["rules"]
    ]
    wh.execute(
        f"insert into {source} (data_quality_job_id, rule_name, rule_status, rule_passed, dbt_invocation_id, "
        f"rule_rows_evaluated) values {', '.join(values)}"
    )
    wh.commit()
    return source


def main() -> None:
    args = json.loads(sys.argv[1])
    pause = float(os.environ.get("DATAPLEX_DQ_TEST_PAUSE_AFTER_DELETE") or 0)
    with Warehouse(Path(args["project_dir"]), Path(args["profiles_dir"]), args["target"], Path(args["manifest"])) as wh:
        source = _create_source(wh, args["exports"])
        try:
            for e in args["exports"]:
                try:
                    relation = _results_relation(wh, {}, e["table"])
                    kwargs: dict[str, Any] = {"pause": pause} if pause > 0 else {}
                    wh.macro("copy_results", source=source, target=relation, job_ids=[e["job_id"]], **kwargs)
                    print(json.dumps({"ok": True, "relation": str(relation)}), flush=True)
                except (DataplexDqError, TableNameError) as exc:
                    print(json.dumps({"error": " ".join(str(exc).split())}), flush=True)
        finally:
            wh.execute(f"drop table if exists {source}")
            wh.commit()


if __name__ == "__main__":
    main()
