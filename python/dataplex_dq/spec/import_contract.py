"""`dataplex-dq import-contract`: an ODCS v3 data contract's `quality` entries (schema- and property-level)
into schema.yml as Dataplex rules (spec/odcs.py maps them; spec/import_spec.py writes them, as for a
Dataplex spec). An entry with no Dataplex equivalent is listed, never dropped silently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from dataplex_dq.errors import DataplexDqError, first_line
from dataplex_dq.record import dbt_options
from dataplex_dq.spec.import_spec import ImportResult, import_loaded, print_import, target_dialect
from dataplex_dq.spec.odcs import Mapped, contract_rules
from dataplex_dq.spec.reader import LoadedSpec, SpecError, normalize_spec
from dataplex_dq.spec.transpile import DIALECTS


class ContractError(DataplexDqError):
    """The contract cannot be read or has nothing to import."""


def read_contract(path: Path) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ContractError(f"{path}: cannot be read as YAML ({first_line(exc)})") from None
    if not isinstance(data, dict) or data.get("kind", "DataContract") != "DataContract":
        raise ContractError(f"{path}: not an ODCS data contract (kind: DataContract)")
    return data


def _bigquery_resource(contract: dict[str, Any], obj: dict[str, Any]) -> str | None:
    """project.dataset.table of a schema object when the contract's one BigQuery server says where it is."""
    servers = [s for s in contract.get("servers") or [] if isinstance(s, dict) and s.get("type") == "bigquery"]
    table = obj.get("physicalName") or obj.get("name")
    if len(servers) != 1 or not table or not servers[0].get("dataset"):
        return None
    project = servers[0].get("project")
    return ".".join(str(p) for p in (project, servers[0]["dataset"], table) if p)


def import_contract(
    path: Path,
    *,
    model: str | None = None,
    source: str | None = None,
    object_name: str | None = None,
    form: str = "tests",
    dialect: str = "bigquery",
    force: bool = False,
    project_dir: Path = Path("."),
) -> list[tuple[str, ImportResult | None, Mapped]]:
    """Import each schema object's rules (or `object_name`'s) into the model or source table named by
    `model` / `source`, else the one its BigQuery server names, else the model named as the object.
    Returns (object, what import-spec did or None when it had no rule, the mapping) per object."""
    contract = read_contract(path)
    objects = {
        str(o.get("name") or o.get("physicalName")): o for o in contract.get("schema") or [] if isinstance(o, dict)
    }
    mapped = contract_rules(contract, object_name)
    if not mapped:
        raise ContractError(
            f"{path}: no schema object" + (f" named '{object_name}'" if object_name else "") + " in the contract"
        )
    if (model or source) and len(mapped) > 1:
        raise ContractError(
            f"{path} has {len(mapped)} schema objects ({', '.join(mapped)}); pass --object to pick the one for "
            f"--{'model' if model else 'source'}"
        )
    out: list[tuple[str, ImportResult | None, Mapped]] = []
    for name, m in mapped.items():
        if not m.rules:
            out.append((name, None, m))
            continue
        try:
            spec = normalize_spec({"rules": m.rules})
        except SpecError as exc:
            raise ContractError(f"{path}: schema object '{name}': {exc}") from None
        resource = _bigquery_resource(contract, objects.get(name) or {})
        loaded = LoadedSpec(source=str(path), spec=spec, data_resource=resource)
        target_model = (
            model if (model or source or resource) else str((objects.get(name) or {}).get("physicalName") or name)
        )
        result = import_loaded(
            loaded, target_model, form=form, dialect=dialect, force=force, project_dir=project_dir, source=source
        )
        out.append((name, result, m))
    return out


@click.command("import-contract")
@click.argument("contract_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--object", "object_name", default=None, help="the contract's schema object to import (default: all)")
@click.option("--model", "model", default=None, help="the model (or seed, snapshot) that gets the rules")
@click.option("--source", "source", default=None, metavar="NAME.TABLE", help="the source table that gets the rules")
@click.option("--form", type=click.Choice(["tests", "scan"]), default="tests", show_default=True)
@click.option("--dialect", type=click.Choice(list(DIALECTS)), default=None, help="SQL dialect to write")
@click.option("--force", is_flag=True, help="replace rules the model already declares")
@dbt_options.project_dir()
@dbt_options.profiles_dir("directory of profiles.yml, to tell the dialect")
@dbt_options.target("dbt target, to tell the dialect")
def import_contract_command(
    *,
    contract_file: Path,
    object_name: str | None,
    model: str | None,
    source: str | None,
    form: str,
    dialect: str | None,
    force: bool,
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
) -> None:
    """Write the quality rules of an ODCS v3 data contract (its schema objects' and properties' `quality`
    entries) into schema.yml as Dataplex rules. Entries without a Dataplex equivalent are listed.

    Exit codes: 0 written; 2 nothing written (unreadable contract, bad target, clash without --force, ...)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True)
    try:
        chosen = dialect or target_dialect(project_dir, profiles_dir, target) or "bigquery"
        done = import_contract(
            contract_file,
            model=model,
            source=source,
            object_name=object_name,
            form=form,
            dialect=chosen,
            force=force,
            project_dir=project_dir,
        )
    except DataplexDqError as exc:
        console.print(f"[red]dataplex-dq import-contract failed:[/red] {escape(str(exc))}")
        raise SystemExit(2) from None
    for name, result, mapped in done:
        if result is not None:
            print_import(result, result.target_name, chosen, console)
        else:
            console.print(f"Schema object '{escape(name)}': no quality entry maps to a Dataplex rule.")
        for u in mapped.unmapped:
            console.print(f"[yellow]unmapped:[/yellow] {escape(name)}: {escape(u.where)}: {escape(u.why)}")
