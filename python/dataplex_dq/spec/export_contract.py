"""`dataplex-dq export-contract`: the project's rules as an ODCS v3 data contract, one schema object per
data source with its `quality` entries (property-level for a rule on a column, schema-level otherwise),
validated against ODCS's JSON schema (spec/odcs/odcs-json-schema-v3.1.0.json, shipped with the package)
before it is written. The rules are read as export-spec reads them (manifest.json after `dbt parse`);
spec/odcs.py maps them. A rule ODCS cannot hold is listed, never dropped silently."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from dataplex_dq.errors import ArtifactsError, DataplexDqError, first_line
from dataplex_dq.outputs.files import write_atomic
from dataplex_dq.record import dbt_options
from dataplex_dq.spec.export_spec import ExportedSpec, export_specs, parse_project, selected_ids
from dataplex_dq.spec.odcs import Unmapped, rule_to_entry

ODCS_VERSION = "v3.1.0"
SCHEMA_FILE = Path(__file__).resolve().parent / "odcs" / "odcs-json-schema-v3.1.0.json"


class ContractSchemaError(DataplexDqError):
    """What export-contract built is not a valid ODCS contract (a bug: one line naming the place)."""


@dataclass
class Contract:
    document: dict[str, Any]
    unmapped: list[tuple[str, Unmapped]] = field(default_factory=list)  # (data source, why)
    notes: list[tuple[str, str]] = field(default_factory=list)


def schema_object(exported: ExportedSpec, unmapped: list[tuple[str, Unmapped]]) -> dict[str, Any] | None:
    """One data source's schema object, or None when none of its rules maps."""
    source = exported.data_source
    properties: dict[str, list[dict[str, Any]]] = {}
    own: list[dict[str, Any]] = []
    for rule in (exported.spec or {}).get("rules", []):
        got = rule_to_entry(rule)
        if isinstance(got, Unmapped):
            unmapped.append((source.label, got))
            continue
        entry, column = got
        if column:
            properties.setdefault(column, []).append(entry)
        else:
            own.append(entry)
    if not properties and not own:
        return None
    obj: dict[str, Any] = {"name": source.name}
    if source.identifier and source.identifier != source.name:
        obj["physicalName"] = source.identifier
    obj["physicalType"] = "table"
    if properties:
        obj["properties"] = [{"name": column, "quality": entries} for column, entries in properties.items()]
    if own:
        obj["quality"] = own
    return obj


def build_contract(specs: list[ExportedSpec], *, name: str, contract_id: str, version: str = "1.0.0") -> Contract:
    unmapped: list[tuple[str, Unmapped]] = []
    notes = [(s.data_source.label, n) for s in specs for n in s.notes]
    objects = [o for o in (schema_object(s, unmapped) for s in specs if s.spec is not None) if o is not None]
    document = {
        "apiVersion": ODCS_VERSION,
        "kind": "DataContract",
        "id": contract_id,
        "name": name,
        "version": version,
        "status": "active",
        "schema": objects,
    }
    return Contract(document, unmapped, notes)


def validate_contract(document: dict[str, Any]) -> None:
    """Raise ContractSchemaError naming the first place where `document` breaks ODCS's JSON schema."""
    import jsonschema  # type: ignore[import-untyped]  # dbt-core's dependency

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top)"
        raise ContractSchemaError(f"the contract is not valid ODCS {ODCS_VERSION} at {where}: {errors[0].message}")


def render(document: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120)


@click.command("export-contract")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path), help="contract file")
@click.option("--select", "-s", "select", default=None, help="dbt selector of the data sources (default: all)")
@click.option("--name", "name", default=None, help="the contract's name and id (default: the dbt project's name)")
@click.option("--parse/--no-parse", default=True, show_default=True, help="run `dbt parse` first")
@dbt_options.project_dir()
@dbt_options.profiles_dir()
@dbt_options.target()
@dbt_options.target_path()
def export_contract_command(
    *,
    out_file: Path,
    select: str | None,
    name: str | None,
    parse: bool,
    project_dir: Path,
    profiles_dir: Path | None,
    target: str | None,
    target_path: Path | None,
) -> None:
    """Write the project's rules as an ODCS v3 data contract (YAML), validated against ODCS's JSON schema.
    Rules ODCS cannot hold are listed on stderr.

    Exit codes: 0 written; 2 nothing written (dbt parse failed, no rule maps, ...)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True)
    err = Console(highlight=False, soft_wrap=True, stderr=True)
    target_path = Path(target_path) if target_path else Path(project_dir) / "target"
    try:
        if parse:
            parse_project(Path(project_dir), profiles_dir, target, target_path)
        manifest_path = target_path / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ArtifactsError(f"{manifest_path} cannot be read ({first_line(exc)}); run `dbt parse`") from None
        selected = selected_ids(Path(project_dir), profiles_dir, target, select) if select else None
        project_name = str((manifest.get("metadata") or {}).get("project_name") or "dbt-project")
        contract = build_contract(
            export_specs(manifest, selected), name=name or project_name, contract_id=name or project_name
        )
        if not contract.document["schema"]:
            for label, u in contract.unmapped:
                err.print(f"unmapped: {escape(label)}: {escape(u.where)}: {escape(u.why)}")
            raise ArtifactsError("no rule of the project maps to an ODCS quality entry")
        validate_contract(contract.document)
        write_atomic(out_file, render(contract.document).encode("utf-8"))
    except (DataplexDqError, OSError) as exc:
        message = str(exc) if isinstance(exc, DataplexDqError) else f"cannot write {out_file}: {first_line(exc)}"
        click.echo(f"dataplex-dq export-contract failed: {' '.join(message.split())}")
        raise SystemExit(2) from None
    entries = sum(
        len(o.get("quality", [])) + sum(len(p["quality"]) for p in o.get("properties", []))
        for o in contract.document["schema"]
    )
    sources = len(contract.document["schema"])
    console.print(
        f"Wrote {entries} quality entries of {sources} data source(s) to {escape(str(out_file))} "
        f"(ODCS {ODCS_VERSION}, validated)."
    )
    for label, u in contract.unmapped:
        err.print(f"unmapped: {escape(label)}: {escape(u.where)}: {escape(u.why)}")
    for label, note in contract.notes:
        err.print(f"note: {escape(label)}: {escape(note)}")
