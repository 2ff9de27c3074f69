from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dbt_harness import INTEGRATION_DIR, DbtProject, fetch_metrics_rows


@pytest.fixture(scope="session")
def duckdb_build(tmp_path_factory):
    """`dbt build` of the integration project on DuckDB, once per session."""
    work = tmp_path_factory.mktemp("duckdb_build")
    db = work / "integration.duckdb"
    project = DbtProject(INTEGRATION_DIR, INTEGRATION_DIR, work / "target", {"DBT_DUCKDB_PATH": str(db)})
    deps = project.run("deps")
    assert deps.returncode == 0, deps.output
    build = project.run("build")
    metrics = fetch_metrics_rows(db, build.manifest)
    return build, metrics, db
