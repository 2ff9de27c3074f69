"""Project, profiles and target-path resolution: the same order as dbt 1.11 (issue 9, A.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dataplex_dq.record.paths import ProjectPathError, resolve_paths


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    proj = tmp_path / "proj"
    (proj / "models").mkdir(parents=True)
    (proj / "dbt_project.yml").write_text("name: p\nprofile: p\n")
    flag, env, home = tmp_path / "flag", tmp_path / "env", tmp_path / "home"
    for d in (flag, env, home / ".dbt"):
        d.mkdir(parents=True)
        (d / "profiles.yml").write_text("p: {}\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "dbt_project.yml").write_text("name: o\ntarget-path: build_out\n")
    return {"proj": proj, "flag": flag, "env": env, "home": home, "other": other, "tmp": tmp_path}


def test_profiles_dir_flag_then_env_then_cwd_then_home(layout):
    p = layout
    # --profiles-dir wins over DBT_PROFILES_DIR
    got = resolve_paths(None, str(p["flag"]), env={"DBT_PROFILES_DIR": str(p["env"])}, cwd=p["proj"], home=p["home"])
    assert got.profiles_dir == p["flag"]
    # DBT_PROFILES_DIR over profiles.yml in the current directory
    (p["proj"] / "profiles.yml").write_text("p: {}\n")
    got = resolve_paths(env={"DBT_PROFILES_DIR": str(p["env"])}, cwd=p["proj"], home=p["home"])
    assert got.profiles_dir == p["env"]
    # profiles.yml in the current directory over ~/.dbt
    got = resolve_paths(env={}, cwd=p["proj"], home=p["home"])
    assert got.profiles_dir == p["proj"]
    # ~/.dbt last
    (p["proj"] / "profiles.yml").unlink()
    got = resolve_paths(env={}, cwd=p["proj"], home=p["home"])
    assert got.profiles_dir == p["home"] / ".dbt"
    # a relative flag is relative to the current directory
    got = resolve_paths(None, "../flag", env={}, cwd=p["proj"], home=p["home"])
    assert got.profiles_dir == p["flag"]


def test_no_profiles_anywhere_is_one_clear_line(layout):
    with pytest.raises(ProjectPathError) as err:
        resolve_paths(env={}, cwd=layout["proj"], home=layout["tmp"] / "nohome")
    msg = str(err.value)
    assert "\n" not in msg and "no profiles.yml in" in msg and "~/.dbt" in msg and "DBT_PROFILES_DIR" in msg


def test_project_dir_flag_then_env_then_cwd_and_parents(layout):
    p = layout
    env = {"DBT_PROJECT_DIR": str(p["other"]), "DBT_PROFILES_DIR": str(p["env"])}
    assert resolve_paths(str(p["proj"]), env=env, cwd=p["tmp"]).project_dir == p["proj"]
    assert resolve_paths(env=env, cwd=p["tmp"]).project_dir == p["other"]
    env.pop("DBT_PROJECT_DIR")
    assert resolve_paths(env=env, cwd=p["proj"]).project_dir == p["proj"]
    # as dbt: a sub-directory of the project finds dbt_project.yml in a parent
    assert resolve_paths(env=env, cwd=p["proj"] / "models").project_dir == p["proj"]
    with pytest.raises(ProjectPathError, match=r"no dbt_project\.yml in"):
        resolve_paths(env=env, cwd=p["tmp"])


def test_target_path_flag_then_env_then_project_file_then_target(layout):
    p = layout
    env = {"DBT_PROFILES_DIR": str(p["env"])}
    assert resolve_paths(str(p["proj"]), env=env).target_path == p["proj"] / "target"
    assert resolve_paths(str(p["other"]), env=env).target_path == p["other"] / "build_out"
    assert resolve_paths(str(p["other"]), env={**env, "DBT_TARGET_PATH": "t2"}).target_path == p["other"] / "t2"
    assert (
        resolve_paths(str(p["other"]), target_path="t3", env={**env, "DBT_TARGET_PATH": "t2"}).target_path
        == p["other"] / "t3"
    )
    assert resolve_paths(str(p["other"]), target_path=str(p["tmp"] / "abs"), env=env).target_path == p["tmp"] / "abs"


def test_target_and_profile_from_the_environment(layout):
    env = {"DBT_PROFILES_DIR": str(layout["env"]), "DBT_TARGET": "prod", "DBT_PROFILE": "other"}
    got = resolve_paths(str(layout["proj"]), env=env)
    assert (got.target, got.profile) == ("prod", "other")
    assert resolve_paths(str(layout["proj"]), target="dev", env=env).target == "dev"
