"""lean_build: which package nodes `dataplex-dq build` leaves out, and when it builds them again."""

from __future__ import annotations

import json
from pathlib import Path

from dataplex_dq.record import lean_build

TESTS_ONLY = ["package:dataplex_dq,resource_type:test"]
MODELS = "package:dataplex_dq,resource_type:model"
EVERYTHING = [*TESTS_ONLY, MODELS]


def _project(tmp_path: Path) -> tuple[Path, Path, Path]:
    project = tmp_path / "proj"
    package = project / "dbt_packages" / "dataplex_dq"
    (package / "models").mkdir(parents=True)
    (package / "macros" / "results").mkdir(parents=True)
    (package / "dbt_project.yml").write_text("name: dataplex_dq\n")
    (package / "models" / "dq_job_scores.sql").write_text("select 1 as x\n")
    (project / "dbt_project.yml").write_text("name: p\n")
    (project / "profiles.yml").write_text("p: {}\n")
    return project, project, project / "target"


def _built(lean: lean_build.LeanBuild, status: str = "success") -> None:
    lean_build.record(lean, {"model.dataplex_dq.dq_job_scores": status, "test.p.some_test": "fail"})


def test_first_build_builds_models_and_skips_package_tests(tmp_path: Path) -> None:
    project, profiles, target = _project(tmp_path)
    lean = lean_build.plan(project, profiles, target, [], tests=False, models=False)
    assert lean.excludes == TESTS_ONLY
    _built(lean)
    assert (target / "dataplex_dq_package_models.json").exists()
    again = lean_build.plan(project, profiles, target, [], tests=False, models=False)
    assert again.excludes == EVERYTHING
    assert lean_build.plan(project, profiles, target, [], tests=True, models=False).excludes == [MODELS]


def test_a_change_builds_the_models_again(tmp_path: Path) -> None:
    project, profiles, target = _project(tmp_path)
    _built(lean_build.plan(project, profiles, target, [], tests=False, models=False))
    for change in (
        lambda: (project / "dbt_packages" / "dataplex_dq" / "models" / "dq_job_scores.sql").write_text("select 2\n"),
        lambda: (project / "profiles.yml").write_text("p: {target: other}\n"),
    ):
        change()
        assert lean_build.plan(project, profiles, target, [], tests=False, models=False).excludes == TESTS_ONLY
    assert lean_build.plan(project, profiles, target, ["--vars", "{a: 1}"], tests=False, models=False).excludes == (
        TESTS_ONLY
    )
    lean = lean_build.plan(project, profiles, target, [], tests=False, models=False)
    _built(lean)
    assert lean_build.plan(project, profiles, target, [], tests=False, models=True).excludes == TESTS_ONLY
    assert lean_build.plan(project, profiles, target, ["--full-refresh"], tests=False, models=False).excludes == (
        TESTS_ONLY
    )


def test_a_failed_model_forgets_the_fingerprint(tmp_path: Path) -> None:
    project, profiles, target = _project(tmp_path)
    _built(lean_build.plan(project, profiles, target, [], tests=False, models=False))
    lean = lean_build.plan(project, profiles, target, [], tests=False, models=True)
    _built(lean, status="error")
    assert not (target / "dataplex_dq_package_models.json").exists()
    assert lean_build.plan(project, profiles, target, [], tests=False, models=False).excludes == TESTS_ONLY


def test_a_selection_is_run_as_given(tmp_path: Path) -> None:
    project, profiles, target = _project(tmp_path)
    _built(lean_build.plan(project, profiles, target, [], tests=False, models=False))
    for args in (["--select", "dataplex_dq"], ["-s", "x"], ["--exclude=y"], ["--selector", "z"]):
        assert lean_build.plan(project, profiles, target, args, tests=False, models=False).excludes == []


def test_no_installed_package_builds_everything_but_package_tests(tmp_path: Path) -> None:
    project = tmp_path / "bare"
    project.mkdir()
    lean = lean_build.plan(project, project, project / "target", [], tests=False, models=False)
    assert lean.excludes == TESTS_ONLY and lean.fingerprint is None
    _built(lean)
    assert not (project / "target" / "dataplex_dq_package_models.json").exists()


def test_package_tests_set_their_var_beside_the_users_vars() -> None:
    on = {"dataplex_dq_package_tests": True}
    assert lean_build.with_package_tests(["--target", "prod"]) == ["--target", "prod", "--vars", json.dumps(on)]
    merged = lean_build.with_package_tests(["--vars", "{day: '2026-01-01', n: 2}", "-t", "x"])
    assert merged[0] == "--vars" and merged[2:] == ["-t", "x"]
    assert json.loads(merged[1]) == {"day": "2026-01-01", "n": 2, **on}
    inline = lean_build.with_package_tests(['--vars={"a": 1}'])
    assert inline[0].startswith("--vars=") and json.loads(inline[0].split("=", 1)[1]) == {"a": 1, **on}
    # a --vars dbt cannot read either is left for dbt to report
    assert lean_build.with_package_tests(["--vars", "{a: [1"]) == ["--vars", "{a: [1"]
