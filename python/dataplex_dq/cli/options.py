"""Options the commands share (dbt's locations, --html, --resend) and reading dbt's own options."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from dataplex_dq.record import dbt_options

if TYPE_CHECKING:
    from dataplex_dq.outputs.html_data import HtmlOptions

F = TypeVar("F", bound=Callable[..., object])


def _html_options(html: str | None, samples: bool, project_dir: Path, target_path: Path | None) -> HtmlOptions | None:
    """--html [PATH] (empty: PROJECT_DIR/target/dataplex_dq/index.html) -> html_data.HtmlOptions."""
    if html is None:
        return None
    from dataplex_dq.outputs.html_data import HtmlOptions, default_html_path

    return HtmlOptions(
        Path(html) if html else default_html_path(Path(target_path) if target_path else Path(project_dir) / "target"),
        samples=samples,
    )


_resend = click.option(
    "--resend",
    is_flag=True,
    default=False,
    help="send the post-scan notifications again (a job's notification is otherwise sent once), and the alerts "
    "of rules still failing (otherwise sent once per failure)",
)

_html: list[Callable[[F], F]] = [
    click.option(
        "--html",
        default=None,
        is_flag=False,
        flag_value="",
        metavar="[PATH]",
        help="also write the HTML report (default PATH: target/dataplex_dq/index.html)",
    ),
    click.option(
        "--samples/--no-samples",
        default=True,
        show_default=True,
        help="fetch up to 10 failing rows per failing rule into the HTML report",
    ),
]


# report resolves each location as dbt does (paths.py), so none has a default here
_common: list[Callable[[F], F]] = [
    dbt_options.project_dir(
        None,
        "dbt project directory (as dbt: DBT_PROJECT_DIR, else the current directory or its parent holding "
        "dbt_project.yml)",
    ),
    dbt_options.profiles_dir(
        "directory of profiles.yml (as dbt: DBT_PROFILES_DIR, else the current directory if it holds "
        "profiles.yml, else ~/.dbt)"
    ),
    dbt_options.target("dbt target (DBT_TARGET, else the profile's default)"),
    dbt_options.target_path(
        "dbt artifacts folder (as dbt: DBT_TARGET_PATH, else target-path of dbt_project.yml, else target; under "
        "the project dir)"
    ),
]


def common_options(f: F) -> F:
    for opt in reversed(_common):
        f = opt(f)
    return f


def _dbt_option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                return args[i + 1]
            if a.startswith(n + "="):
                return a.split("=", 1)[1]
    return None
