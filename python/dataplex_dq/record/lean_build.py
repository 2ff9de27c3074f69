"""What `dataplex-dq build` leaves out of `dbt build`: the package's own nodes when a run needs none of them.

The package's result models (models/: views over the results table, and the results table itself, an
incremental model with an always-empty body) need no rebuild once they exist and are unchanged, and the
package's own data tests check the package, not the user's data. So `dataplex-dq build` excludes the
package's tests always (`--package-tests` runs them: they are off unless the var `dataplex_dq_package_tests` is
true, models/schema.yml, so it also sets that var), and its models too when the last build that built them
left a fingerprint equal to the current one: the package's models/ and macros/results/ files, the
project's dbt_project.yml, the profiles.yml and the dbt arguments. Anything else (no fingerprint, a new
package version, another target or schema, `dbt clean`) builds them as before. A dropped view is not
noticed: `--package-models` builds them regardless. A build given its own selection (--select, --exclude,
--selector, --resource-type) runs exactly that selection.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "dataplex_dq"
# beside target/dataplex_dq/, not in it: that folder holds only result files (diff and html read them all)
FINGERPRINT_FILE = "dataplex_dq_package_models.json"
MODELS = f"package:{PACKAGE},resource_type:model"
PACKAGE_TESTS_VAR = "dataplex_dq_package_tests"  # models/schema.yml: the package's own tests run when true
SELECTION_FLAGS = {"--select", "-s", "--models", "-m", "--selector", "--exclude", "--resource-type", "--resource-types"}


@dataclass(frozen=True)
class LeanBuild:
    """The `--exclude` arguments to add, and the fingerprint to record after a build that built the models."""

    excludes: list[str]
    fingerprint: str | None
    fingerprint_path: Path

    @property
    def skips_models(self) -> bool:
        return MODELS in self.excludes


def _package_dir(project_dir: Path) -> Path | None:
    for candidate in (project_dir / "dbt_packages" / PACKAGE, project_dir / "dbt_modules" / PACKAGE):
        if (candidate / "dbt_project.yml").exists():
            return candidate.resolve()
    return None


def fingerprint(project_dir: Path, profiles_dir: Path, dbt_args: Iterable[str]) -> str | None:
    """A digest of everything the package's models depend on, or None when the package is not found."""
    package = _package_dir(project_dir)
    if package is None:
        return None
    digest = hashlib.sha256()
    files = [project_dir / "dbt_project.yml", profiles_dir / "profiles.yml"]
    for folder in ("models", "macros/results"):
        files.extend(sorted(p for p in (package / folder).rglob("*") if p.is_file()))
    for path in files:
        digest.update(str(path).encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
    digest.update("\0".join(dbt_args).encode())
    return digest.hexdigest()


def plan(
    project_dir: Path, profiles_dir: Path, target_path: Path, dbt_args: list[str], *, tests: bool, models: bool
) -> LeanBuild:
    """The lean build for these arguments. `tests`/`models`: run the package's tests / build its models always."""
    path = target_path / FINGERPRINT_FILE
    if any(a in SELECTION_FLAGS or a.split("=", 1)[0] in SELECTION_FLAGS for a in dbt_args):
        return LeanBuild(excludes=[], fingerprint=None, fingerprint_path=path)  # the user's selection, as given
    excludes = [] if tests else [f"package:{PACKAGE},resource_type:test"]
    if "--full-refresh" in dbt_args:
        models = True
    current = fingerprint(project_dir, profiles_dir, dbt_args)
    if not models and current is not None and path.exists():
        try:
            recorded = json.loads(path.read_text()).get("fingerprint")
        except (OSError, ValueError):
            recorded = None
        if recorded == current:
            excludes = [*excludes, MODELS]
    return LeanBuild(excludes=excludes, fingerprint=current, fingerprint_path=path)


def with_package_tests(dbt_args: list[str]) -> list[str]:
    """``dbt_args`` with the var that enables the package's own data tests (``dataplex_dq_package_tests:
    true``), added to the ``--vars`` the user gave (YAML or JSON, as dbt reads it) or as a new ``--vars``."""
    import yaml

    args = list(dbt_args)
    for i, arg in enumerate(args):
        inline = arg.startswith("--vars=")
        if (arg == "--vars" and i + 1 < len(args)) or inline:
            text = arg.split("=", 1)[1] if inline else args[i + 1]
            try:
                given = yaml.safe_load(text) or {}
            except yaml.YAMLError:
                return args  # dbt reports the user's --vars as it would without us
            if not isinstance(given, dict):
                return args
            merged = json.dumps({**given, PACKAGE_TESTS_VAR: True})
            if inline:
                args[i] = f"--vars={merged}"
            else:
                args[i + 1] = merged
            return args
    return [*args, "--vars", json.dumps({PACKAGE_TESTS_VAR: True})]


def record(lean: LeanBuild, built: dict[str, str]) -> None:
    """After a build: keep the fingerprint when every package model was built successfully
    (`built`: unique_id -> status of the build's nodes); forget it when one failed."""
    models = {uid: status for uid, status in built.items() if uid.startswith(f"model.{PACKAGE}.")}
    if lean.skips_models or lean.fingerprint is None:
        return
    if models and all(status == "success" for status in models.values()):
        lean.fingerprint_path.parent.mkdir(parents=True, exist_ok=True)
        lean.fingerprint_path.write_text(json.dumps({"fingerprint": lean.fingerprint, "models": sorted(models)}))
    elif any(status != "success" for status in models.values()) and lean.fingerprint_path.exists():
        lean.fingerprint_path.unlink()
