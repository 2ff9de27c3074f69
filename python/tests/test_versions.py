"""Installs the way dbt users install (docs/SUPPORTED_VERSIONS.md):

* `pip install` of the project into a fresh venv that already has dbt-core 1.12.0 and dbt-duckdb keeps
  every installed package at its version (dbt-core stays 1.12.0): `pip freeze` before and after;
* `dbt deps` installs the package from a git URL with a `revision:` tag (a local bare clone) and the
  project then builds with it;
* the version ranges of pyproject.toml admit dbt 1.10 to 1.12 and Python 3.10 to 3.13;
* dataplex_dq._compat's Python 3.10 stand-in for `datetime.fromisoformat` reads what 3.11's does.

The version matrix itself (the demo and the integration project on other dbt and Python versions) is
`make matrix`: scripts/version_matrix.py.

These tests install from PyPI (or pip's cache) into venvs under a temporary directory: a few minutes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

REPO_ROOT = Path(__file__).resolve().parents[2]
# dbt-core 1.12.0 installs offline here only with this parser (its only release with a wheel)
DBT_112 = ["dbt-core==1.12.0", "dbt-core-experimental-parser==2.0.0a4", "dbt-duckdb"]
TAG = "v0.1.0"


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}:\n{output[-4000:]}"
    return output


def pip(python: Path, *args: str) -> list[str]:
    """This venv's pip working on the environment of `python` (`pip --python`): a venv made `--without-pip` needs no
    pip of its own (ensurepip's, then upgraded, took ~8 s)."""
    return [sys.executable, "-m", "pip", "--python", str(python), *args, "--disable-pip-version-check"]


def freeze(python: Path) -> dict[str, str]:
    lines = run(pip(python, "freeze", "--all")).splitlines()
    out = {}
    for line in lines:
        if "==" in line:
            name, version = line.split("==", 1)
            out[name.lower().replace("_", "-")] = version
        elif " @ " in line:
            name, url = line.split(" @ ", 1)
            out[name.lower().replace("_", "-")] = url
    return out


def git_env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }


@pytest.fixture(scope="module")
def bare_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare git repository of this checkout's files as they are now (tracked and new, not ignored ones),
    with the tag v0.1.0: what a user's packages.yml or pip names by URL."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("git")
    env = git_env(root)
    work = root / "work"
    work.mkdir()
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO_ROOT)
    for rel in filter(None, listed.split("\0")):
        src = REPO_ROOT / rel
        if src.is_file():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, work / rel)
    run(["git", "init", "-q", "-b", "main"], cwd=work, env=env)
    run(["git", "add", "-A"], cwd=work, env=env)
    run(["git", "commit", "-q", "-m", "snapshot"], cwd=work, env=env)
    run(["git", "tag", TAG], cwd=work, env=env)
    bare = root / "dataplex_dq.git"
    run(["git", "clone", "-q", "--bare", str(work), str(bare)], env=env)
    return bare


def test_ranges_admit_dbt_1_10_to_1_12_and_python_3_10_to_3_13() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert SpecifierSet(project["requires-python"]).contains("3.10")
    requirements = {Requirement(r).name: Requirement(r) for r in project["dependencies"]}
    for version in ("1.10.9", "1.11.16", "1.12.0", "1.12.6", "1.13.0"):
        assert requirements["dbt-core"].specifier.contains(version), version
    for version in ("1.10.0", "1.11.1", "1.12.0"):
        assert requirements["dbt-duckdb"].specifier.contains(version), version
    for extra in ("postgres", "bigquery"):
        for requirement in map(Requirement, project["optional-dependencies"][extra]):
            assert requirement.specifier.contains("1.10.0") and requirement.specifier.contains("1.12.0")
    classifiers = set(project["classifiers"])
    for minor in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {minor}" in classifiers


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-01T12:00:00Z",
        "2024-05-01 14:00:00+02",
        "2024-05-01T12:00:00.123456789",
        "2024-05-01 12:00:00.5+0530",
        "2024-05-01T12:00",
        "2024-05-01",
        "2024-05-01T12:00:00.123+00:00",
        "2024-05-01T12:00:00-07:00",
    ],
)
def test_fromisoformat_for_python_3_10_reads_what_3_11_reads(text: str) -> None:
    from dataplex_dq._compat import fromisoformat_310

    assert fromisoformat_310(text) == datetime.fromisoformat(text)


def test_pip_install_beside_dbt_1_12_keeps_it(tmp_path: Path, bare_repo: Path) -> None:
    """The user's venv has dbt-core 1.12.0 and dbt-duckdb; `pip install` of the CLI from a git URL with a
    tag (the README's line, here a local clone) only adds packages: nothing is up- or downgraded."""
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    # the pip of this venv (pinned, recent): the pip of Python 3.11.7's ensurepip (23.2) rejects a git+file:/// URL
    # (a packaging bug); users' pips are newer, and their URL is https
    # --no-compile: no .pyc written for the ~50 packages (~4 s of CPU; the later `--help` compiles what it imports)
    run(pip(python, "install", "--quiet", "--no-compile", *DBT_112))
    before = freeze(python)
    assert before["dbt-core"] == "1.12.0"
    run(
        pip(python, "install", "--quiet", "--no-compile", f"dbt-dataplex-dq @ git+file://{bare_repo}@{TAG}"),
        env=git_env(tmp_path),
    )
    after = freeze(python)
    changed = {name: (version, after.get(name)) for name, version in before.items() if after.get(name) != version}
    assert not changed, f"pip install changed what was installed (before, after): {changed}"
    assert after["dbt-core"] == "1.12.0"
    assert "dbt-dataplex-dq" in after
    help_text = run([str(venv / "bin" / "dataplex-dq"), "--help"])
    assert "build" in help_text


def test_dbt_deps_from_git_url_with_a_revision_tag(tmp_path: Path, bare_repo: Path) -> None:
    """packages.yml `git:` + `revision: v0.1.0` (a local bare clone): `dbt deps` installs the tagged
    package, and a project with one seed and two rules builds with it."""
    project = tmp_path / "project"
    (project / "seeds").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: git_user\nversion: '1.0'\nconfig-version: 2\nprofile: git_user\n"
        'on-run-end: "{{ dataplex_dq.on_run_end(results) }}"\n',
        encoding="utf-8",
    )
    (project / "packages.yml").write_text(
        f'packages:\n  - git: "file://{bare_repo}"\n    revision: {TAG}\n', encoding="utf-8"
    )
    (project / "profiles.yml").write_text(
        "git_user:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: {tmp_path / 'git_user.duckdb'}\n      threads: 1\n",
        encoding="utf-8",
    )
    (project / "seeds" / "items.csv").write_text("id,qty\n1,5\n2,\n3,7\n", encoding="utf-8")
    (project / "seeds" / "items.yml").write_text(
        "seeds:\n  - name: items\n    columns:\n      - name: qty\n        data_tests:\n"
        "          - dataplex_dq.non_null_expectation:\n              name: qty-present\n"
        "              arguments:\n                dimension: COMPLETENESS\n"
        "          - dataplex_dq.range_expectation:\n              name: qty-small\n"
        "              arguments:\n                max_value: 6\n                dimension: VALIDITY\n",
        encoding="utf-8",
    )
    env = {**git_env(tmp_path), "DBT_PROFILES_DIR": str(project), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    dbt = str(Path(sys.executable).parent / "dbt")
    run([dbt, "deps"], cwd=project, env=env)
    installed = project / "dbt_packages" / "dataplex_dq" / "dbt_project.yml"
    assert installed.exists(), "dbt deps did not install the package"
    assert installed.read_text(encoding="utf-8") == (REPO_ROOT / "dbt_project.yml").read_text(encoding="utf-8")
    proc = subprocess.run([dbt, "build"], cwd=project, env=env, capture_output=True, text=True, check=False)
    output = proc.stdout + proc.stderr
    assert "PASS=" in output and "Compilation Error" not in output, output[-4000:]
    assert "Failure in test qty-present" in output and "Failure in test qty-small" in output, output[-4000:]


def test_the_matrix_reads_dbt_deprecation_warnings_from_the_output_and_the_log(tmp_path: Path) -> None:
    """make matrix fails a cell whose dbt printed or logged a deprecation (scripts/version_smoke.py): the
    lines as dbt 1.12 writes them, colours and all (recorded from a project with a deprecated test)."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        import version_smoke
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))
    printed = (
        "\x1b[0m04:27:27  [\x1b[33mWARNING\x1b[0m][MissingArgumentsPropertyInGenericTestDeprecation]: Deprecated\n"
        "\x1b[0m04:27:28  Found 1 model, 1 test\n"
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "dbt.log").write_text(
        "04:27:28.1 [warn ] [MainThread]: [WARNING][DeprecationsSummary]: Deprecated functionality\n"
        "04:27:28.2 [info ] [MainThread]: Done.\n",
        encoding="utf-8",
    )
    found = version_smoke.deprecations(printed, tmp_path)
    assert len(found) == 2
    assert any("MissingArgumentsPropertyInGenericTestDeprecation" in line for line in found)
    assert any("DeprecationsSummary" in line for line in found)
    assert version_smoke.deprecations("04:27:28  Done. PASS=2\n", tmp_path / "nowhere") == []
