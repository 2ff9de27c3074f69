"""Result files are written atomically and never collide (issue 30 item 9), through `dataplex-dq report`:
models `größe` and `grüe` (both were `model.hx.gr_e.json`, one overwriting the other) get a file each, which
`dataplex-dq diff` reads back under their ids; under a file-size limit the report fails in one line and leaves
every previous file byte-identical (it used to delete them, then leave a truncated index.html and JSON)."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import drop_target_schemas, require_target
from dbt_harness import TARGETS, DbtProject, run_dataplex_dq, target_env, write_project

SCHEMA = """\
version: 2
models:
  - name: größe
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.non_null_expectation: {name: groesse-present}
  - name: grüe
    columns:
      - name: qty
        data_tests:
          - dataplex_dq.range_expectation: {name: gruee-small, arguments: {max_value: 5}}
"""

PYTHON = str(Path(__file__).resolve().parents[2] / "python")
GROESSE, GRUEE = "model.hx.größe", "model.hx.grüe"
FILES = {
    "model.hx.gr%C3%B6%C3%9Fe.json",
    "model.hx.gr%C3%B6%C3%9Fe.pb",
    "model.hx.gr%C3%BCe.json",
    "model.hx.gr%C3%BCe.pb",
    "index.html",
}


def _md5s(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module", params=TARGETS)
def reported(request, tmp_path_factory) -> Iterator[DbtProject]:
    target = request.param
    require_target(target)
    tmp = tmp_path_factory.mktemp(f"atomic_{target}")
    env = target_env(target, tmp, "atomic")
    p = write_project(
        tmp,
        "hx",
        {
            # ASCII relation names (aliases): the model names, and so the data sources' ids, are not
            "models/größe.sql": "{{ config(alias='groesse') }}\nselect 1 as qty union all select 2 as qty\n",
            "models/grüe.sql": "{{ config(alias='gruee') }}\nselect 1 as qty union all select 7 union all select 9\n",
            "models/schema.yml": SCHEMA,
        },
        env=env,
        target=None if target == "duckdb" else target,
    )
    build = p.run("build")
    assert build.returncode == 1, build.output[-3000:]  # gruee-small fails (7 and 9 > 5)
    first = p.report("--html")
    assert first.returncode == 1, first.stdout + first.stderr
    yield p
    drop_target_schemas(target, env)


def test_two_models_whose_names_differ_only_in_non_ascii_get_a_file_each(reported, tmp_path):
    p = reported
    out = p.target_path / "dataplex_dq"
    assert set(_md5s(out)) == FILES
    groesse = json.loads((out / "model.hx.gr%C3%B6%C3%9Fe.json").read_text())
    gruee = json.loads((out / "model.hx.gr%C3%BCe.json").read_text())
    assert (groesse["rowCount"], groesse["score"], groesse["passed"]) == ("2", 100.0, True)
    assert (gruee["rowCount"], gruee.get("score", 0.0), gruee.get("passed", False)) == ("3", 0.0, False)
    # diff reads them back under the data sources' ids (this run against a copy of itself: no regression)
    base = tmp_path / "base"
    shutil.copytree(out, base)
    proc = run_dataplex_dq(
        "diff", str(base), "--project-dir", str(p.project_dir), "--target-path", str(p.target_path), env=p.env
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    diff = json.loads((p.target_path / "dataplex_dq_diff.json").read_text())
    assert GROESSE in json.dumps(diff, ensure_ascii=False) and GRUEE in json.dumps(diff, ensure_ascii=False), diff


LIMIT = 200  # bytes: less than each JSON file and the page


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_file_size_limit_leaves_the_previous_report_intact(reported):
    p = reported
    out = p.target_path / "dataplex_dq"
    before = _md5s(out)
    assert set(before) == FILES
    assert min((out / n).stat().st_size for n in FILES if not n.endswith(".pb")) > LIMIT
    rebuilt = p.run("build")  # a new invocation: new job ids, so the new files differ from the previous ones
    assert rebuilt.returncode == 1, rebuilt.output[-3000:]
    dirs = ["--project-dir", str(p.project_dir), "--profiles-dir", str(p.profiles_dir)]
    proc = subprocess.run(
        [sys.executable, "-m", "dataplex_dq.cli", "report", "--html", *dirs, "--target-path", str(p.target_path)],
        env={**os.environ, **p.env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "COLUMNS": "300", "PYTHONPATH": PYTHON},
        cwd=p.project_dir,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=_limit_file_size,
    )
    text = proc.stdout + proc.stderr
    print(text)
    assert proc.returncode == 2, text
    assert "Traceback" not in text, text
    errors = [" ".join(ln.split()) for ln in text.splitlines() if "File too large" in ln or "not written" in ln]
    assert errors == [
        f"output failed: result files: cannot write the result files to {out}: File too large; the previous result "
        "files are kept",
        f"output failed: HTML report: {out / 'index.html'} not written: the result files could not be (above); the "
        "previous page is kept",
    ], text
    assert "Results written to" not in text
    assert _md5s(out) == before  # nothing removed, replaced, truncated or left behind
