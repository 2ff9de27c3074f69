"""The SQL statements dbt ran on BigQuery, read back from what a run leaves: dbt's debug log (every
statement, as `On <node>: <sql>`) and `target/run/` (each node's main statement). For the analyzer
gate (test_bigquery_gate.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# a log line: ESC[0m15:22:13.612229 [debug] [Thread-4 (]: On seed.x.y: /* {...} */
_LOG_LINE = re.compile(r"^(?:\x1b\[0m)?\d\d:\d\d:\d\d\.\d+ \[\w+ *\] \[[^\]]*\]: ")
_ON = re.compile(r"^On ([^:\s]+): (.*)$", re.S)
_QUERY_COMMENT = re.compile(r"^\s*/\* \{.*?\} \*/", re.S)


@dataclass(frozen=True)
class Statement:
    origin: str  # where it was read: "<log file>: <node>" or a target/run path
    sql: str


def _clean(sql: str) -> str:
    return _QUERY_COMMENT.sub("", sql, count=1).strip()


def from_dbt_log(path: Path) -> list[Statement]:
    """Every `On <node>: <sql>` entry of a dbt debug log, in the order dbt ran them."""
    out: list[Statement] = []
    current: list[str] | None = None
    node = ""

    def flush() -> None:
        if current is not None:
            sql = _clean("\n".join(current))
            if sql:
                out.append(Statement(f"{path.name}: {node}", sql))

    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        head = _LOG_LINE.match(line)
        if head:
            flush()
            current = None
            m = _ON.match(line[head.end() :])
            if m:
                node, current = m.group(1), [m.group(2)]
        elif current is not None:
            current.append(line)
    flush()
    return out


def from_target_run(target_path: Path) -> list[Statement]:
    """The main statement of each node dbt ran (target/run/**.sql)."""
    return [
        Statement(str(p.relative_to(target_path)), _clean(p.read_text()))
        for p in sorted((target_path / "run").rglob("*.sql"))
    ]


def executed(target_path: Path) -> list[Statement]:
    """The statements of one dbt invocation with `--target-path target_path` (its log in target/logs):
    the log's entries in order, then target/run's statements the log did not show (the same text
    counted once)."""
    log = target_path / "logs" / "dbt.log"
    statements = from_dbt_log(log) if log.exists() else []
    seen = {s.sql for s in statements}
    for s in from_target_run(target_path):
        if s.sql and s.sql not in seen:
            statements.append(s)
            seen.add(s.sql)
    return statements


def seed_tables(manifest: dict, project_dir: Path) -> list[tuple[tuple[str, str, str], list[tuple[str, str]]]]:
    """The seeds of a manifest as BigQuery tables: ((project, dataset, table), [(column, type)]), the
    columns in CSV order with the seed's column_types (dbt-bigquery loads seeds with a load job, not
    with SQL, so no statement of the log creates them). A column without a declared type is STRING."""
    import csv

    out = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "seed":
            continue
        types = {k.lower(): v for k, v in ((node.get("config") or {}).get("column_types") or {}).items()}
        path = Path(node.get("root_path") or project_dir) / node["original_file_path"]
        with path.open(newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
        columns = [(c, types.get(c.lower(), "STRING")) for c in header]
        out.append(((node["database"], node["schema"], node.get("alias") or node["name"]), columns))
    return out
