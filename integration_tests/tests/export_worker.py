"""A separate process exporting rows with the post-hook's code (issue 9, D): run by
test_export_safety.py as `python export_worker.py '<json>'`, it opens the target through dbt's adapter
as `dataplex-dq report` does and prints one JSON line per export: {"ok": true} or {"error": "..."}.

The JSON: {"project_dir", "profiles_dir", "target", "manifest", "exports": [{"table", "job_id", "rules"}]}."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dataplex_dq.errors import DataplexDqError
from dataplex_dq.export import write_results
from dataplex_dq.report import _results_relation
from dataplex_dq.table_name import TableNameError
from dataplex_dq.warehouse import Warehouse


def main() -> None:
    args = json.loads(sys.argv[1])
    with Warehouse(Path(args["project_dir"]), Path(args["profiles_dir"]), args["target"], Path(args["manifest"])) as wh:
        for e in args["exports"]:
            try:
                relation = _results_relation(wh, {}, e["table"])
                rows = [
                    {
                        "data_quality_job_id": e["job_id"],
                        "rule_name": r,
                        "rule_status": "PASSED",
                        "rule_passed": True,
                        "dbt_invocation_id": "inv-worker",
                        "rule_rows_evaluated": 7,
                    }
                    for r in e["rules"]
                ]
                write_results(wh, relation, rows, [e["job_id"]])
                print(json.dumps({"ok": True, "relation": str(relation)}), flush=True)
            except (DataplexDqError, TableNameError) as exc:
                print(json.dumps({"error": " ".join(str(exc).split())}), flush=True)


if __name__ == "__main__":
    main()
