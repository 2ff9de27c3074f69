"""Where the dbt project, profiles.yml and the artifacts are: resolved exactly as dbt 1.11 resolves
them (dbt/cli/resolvers.py, dbt/cli/params.py, dbt/config/project.py), so that `dataplex-dq report`
run where `dbt build` ran, with the same flags or environment, reads what dbt wrote.

* project dir: ``--project-dir``, then ``DBT_PROJECT_DIR``, then the first of the current
  directory and its parents holding ``dbt_project.yml``, then the current directory;
* profiles dir: ``--profiles-dir``, then ``DBT_PROFILES_DIR``, then the current directory when it
  holds ``profiles.yml``, then ``~/.dbt``;
* target path: ``--target-path``, then ``DBT_TARGET_PATH``, then ``target-path`` of
  dbt_project.yml, then ``target``; a relative one is under the project dir (as dbt writes it);
* target and profile: ``--target`` / ``DBT_TARGET`` and ``DBT_PROFILE`` (the profile's default
  target and the project's profile when unset).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dataplex_dq.errors import DataplexDqError


class ProjectPathError(DataplexDqError):
    """The dbt project or profiles.yml cannot be found."""


@dataclass(frozen=True)
class DbtPaths:
    project_dir: Path
    profiles_dir: Path
    target_path: Path
    target: str | None
    profile: str | None


def default_project_dir(cwd: Path) -> Path:
    return next((d for d in (cwd, *cwd.parents) if (d / "dbt_project.yml").exists()), cwd)


def default_profiles_dir(cwd: Path, home: Path) -> Path:
    return cwd if (cwd / "profiles.yml").exists() else home / ".dbt"


def _project_target_path(project_dir: Path) -> str | None:
    """`target-path` of dbt_project.yml (unrendered, as dbt's PartialProject reads it)."""
    try:
        import yaml
    except ImportError:
        return None
    try:
        data = yaml.safe_load((project_dir / "dbt_project.yml").read_text())
    except (OSError, ValueError, yaml.YAMLError):  # dbt itself reports a broken dbt_project.yml
        return None
    value = data.get("target-path") if isinstance(data, dict) else None
    return value if isinstance(value, str) and "{{" not in value else None


def resolve_paths(
    project_dir: str | Path | None = None,
    profiles_dir: str | Path | None = None,
    target_path: str | Path | None = None,
    target: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
) -> DbtPaths:
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else Path(cwd)
    home = Path.home() if home is None else Path(home)

    project = project_dir or env.get("DBT_PROJECT_DIR") or None
    project_path = (cwd / project) if project else default_project_dir(cwd)
    project_path = Path(os.path.normpath(project_path))
    if not (project_path / "dbt_project.yml").exists():
        how = (
            "--project-dir"
            if project_dir
            else ("DBT_PROJECT_DIR" if project else "the current directory and its parents")
        )
        raise ProjectPathError(
            f"no dbt_project.yml in {project_path} (from {how}): run dataplex-dq in your dbt project, "
            "or pass --project-dir (or set DBT_PROJECT_DIR) as for dbt"
        )

    profiles = profiles_dir or env.get("DBT_PROFILES_DIR") or None
    profiles_path = Path(os.path.normpath(cwd / profiles)) if profiles else default_profiles_dir(cwd, home)
    if not (profiles_path / "profiles.yml").exists():
        how = (
            "--profiles-dir"
            if profiles_dir
            else ("DBT_PROFILES_DIR" if profiles else "the current directory, then ~/.dbt")
        )
        raise ProjectPathError(
            f"no profiles.yml in {profiles_path} (from {how}): pass --profiles-dir or set DBT_PROFILES_DIR "
            "as for dbt, or run from the directory holding profiles.yml"
        )

    tpath = target_path or env.get("DBT_TARGET_PATH") or _project_target_path(project_path) or "target"
    # dbt joins the target path to the project root (an absolute one stays as it is)
    target_dir = Path(os.path.normpath(project_path / tpath))

    return DbtPaths(
        project_dir=project_path,
        profiles_dir=profiles_path,
        target_path=target_dir,
        target=target or env.get("DBT_TARGET") or None,
        profile=env.get("DBT_PROFILE") or None,
    )
