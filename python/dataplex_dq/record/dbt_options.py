"""The command-line options every command shares with dbt: where the project, the profiles and the
artifacts are, and which target. One definition each; a command words its own help where the option
means something narrower there (import-spec reads the target only to tell the SQL dialect)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

__all__ = ["dbt_args", "profiles_dir", "project_dir", "target", "target_path"]

F = TypeVar("F", bound=Callable[..., object])


def _directory(name: str, default: str | None, help_text: str) -> Callable[[F], F]:
    return click.option(
        name,
        default=default,
        show_default=default is not None,
        type=click.Path(file_okay=False, path_type=Path),
        help=help_text,
    )


def project_dir(default: str | None = ".", help_text: str = "dbt project directory") -> Callable[[F], F]:
    return _directory("--project-dir", default, help_text)


def profiles_dir(help_text: str = "directory of profiles.yml (dbt's default when unset)") -> Callable[[F], F]:
    return _directory("--profiles-dir", None, help_text)


def target_path(help_text: str = "dbt artifacts folder (PROJECT_DIR/target when unset)") -> Callable[[F], F]:
    return _directory("--target-path", None, help_text)


def target(help_text: str = "dbt target (the profile's default when unset)") -> Callable[[F], F]:
    return click.option("--target", "-t", default=None, help=help_text)


def dbt_args(project: Path, profiles: Path | None, target_name: str | None) -> list[str]:
    """The same locations as dbt command-line arguments (for dbtRunner)."""
    args = ["--project-dir", str(project)]
    if profiles:
        args += ["--profiles-dir", str(profiles)]
    if target_name:
        args += ["--target", target_name]
    return args
