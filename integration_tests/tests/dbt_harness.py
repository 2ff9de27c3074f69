"""Run dbt on a project in a subprocess and read what it left behind (artifacts, metrics rows)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
INTEGRATION_DIR = REPO_ROOT / "integration_tests"


def dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("dbt")
    if not found:
        raise RuntimeError("dbt is not installed in this environment; run `make venv` first")
    return found


@dataclass
class DbtResult:
    args: list[str]
    returncode: int
    output: str
    target_path: Path
    run_results: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)

    def results_by_name(self) -> dict[str, dict[str, Any]]:
        """run_results entries keyed by node name."""
        nodes = self.manifest.get("nodes", {})
        out = {}
        for r in self.run_results.get("results", []):
            node = nodes.get(r["unique_id"], {})
            out[node.get("name", r["unique_id"])] = r
        return out


@dataclass
class DbtProject:
    project_dir: Path
    profiles_dir: Path
    target_path: Path
    env: dict[str, str]

    def run(self, *args: str, check: bool = True) -> DbtResult:
        cmd = [dbt_executable(), *args, "--project-dir", str(self.project_dir), "--profiles-dir", str(self.profiles_dir)]
        if args and args[0] != "deps":
            cmd += ["--target-path", str(self.target_path)]
        env = {**os.environ, **self.env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_LOG_PATH": str(self.target_path / "logs")}
        proc = subprocess.run(cmd, cwd=self.project_dir, env=env, capture_output=True, text=True)
        result = DbtResult(list(args), proc.returncode, proc.stdout + proc.stderr, self.target_path)
        for name in ("run_results", "manifest"):
            path = self.target_path / f"{name}.json"
            if path.exists() and args and args[0] != "deps":
                setattr(result, name, json.loads(path.read_text()))
        if check and proc.returncode not in (0, 1):
            raise AssertionError(f"dbt {' '.join(args)} crashed (exit {proc.returncode}):\n{result.output[-4000:]}")
        return result


def fetch_metrics_rows(duckdb_path: Path, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every dataplex_dq test's stored metrics rows, keyed by rule name."""
    import duckdb

    rels = [
        n["relation_name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] == "test" and (n.get("test_metadata") or {}).get("namespace") == "dataplex_dq" and n.get("relation_name")
    ]
    con = duckdb.connect(str(duckdb_path), read_only=True)
    try:
        rows: dict[str, dict[str, Any]] = {}
        for rel in rels:
            res = con.execute(f"select * from {rel}")
            cols = [d[0] for d in res.description]
            for values in res.fetchall():
                row = dict(zip(cols, values))
                rows[row["rule_name"]] = row
        return rows
    finally:
        con.close()


def run_dataplex_dq(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the `dataplex-dq` command (this checkout's package) in a subprocess."""
    full_env = {**os.environ, **(env or {}), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "COLUMNS": "200"}
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT / "python"), full_env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "dataplex_dq.cli", *args], cwd=cwd or REPO_ROOT, env=full_env, capture_output=True, text=True)
