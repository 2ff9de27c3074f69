"""Read dbt's artifacts (manifest.json, run_results.json): the dataplex_dq tests, the data sources
they are attached to, and how each test ran in the last invocation."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from dataplex_dq._compat import UTC, fromisoformat
from dataplex_dq.errors import ArtifactsError
from dataplex_dq.field_names import snake_keys
from dataplex_dq.run.cost import QueryCost

PACKAGE = "dataplex_dq"
DATA_SOURCE_TYPES = ("model", "seed", "snapshot", "source")


@dataclass(frozen=True)
class DataSource:
    """A model, seed, snapshot or source that carries rules."""

    unique_id: str
    name: str
    resource_type: str
    relation_name: str | None
    database: str | None
    schema: str | None
    identifier: str | None
    settings: dict[str, Any] = field(default_factory=dict)  # meta.dataplex_dq
    owners: tuple[str, ...] = ()  # dbt's meta.owner, else its group's owner (outputs/owners.py)

    @property
    def label(self) -> str:
        return f"{self.resource_type} '{self.name}'"


# Where the package records the identity of a test's rules when dbt parses it (macros/identity.sql).
IDENTITY_KEY = "dataplex_dq_rules"


@dataclass(frozen=True)
class RuleTest:
    """One dataplex_dq test node (a per-rule test, or a data_quality_scan with several rules)."""

    unique_id: str
    name: str
    test_name: str  # generic test: range_expectation, ..., data_quality_scan
    data_source_id: str | None
    column_name: str | None
    relation_name: str | None  # where dbt stored the metrics row(s)
    kwargs: dict[str, Any]
    description: str | None
    order: int  # position in the manifest, for a stable rule order
    severity: str = "ERROR"  # dbt's test severity: a failed rule of a WARN test is a warning
    identity: Any = None  # config.meta[IDENTITY_KEY]: its rules as the package recorded them (declared.py)
    tags: tuple[str, ...] = ()  # dbt tags (the HTML report's tag filter)
    owners: tuple[str, ...] = ()  # the test's meta.owner (outputs/owners.py)
    alert_suppression_interval: Any = None  # the test's meta.dataplex_dq.alert_suppression_interval (alerts)


@dataclass(frozen=True)
class TestRun:
    unique_id: str
    status: str  # dbt status: pass, fail, warn, error, skipped
    message: str | None
    failures: int | None
    started_at: datetime | None
    completed_at: datetime | None
    # the test query's execution_time and adapter_response (bytes billed on BigQuery): cost.py
    cost: QueryCost = field(default_factory=QueryCost)


@dataclass(frozen=True)
class Artifacts:
    target_path: Path
    project_name: str | None
    invocation_id: str
    invocation_started_at: datetime | None
    generated_at: datetime | None
    tests: dict[str, RuleTest]
    data_sources: dict[str, DataSource]
    runs: dict[str, TestRun]
    results_model: dict[str, str | None] = field(default_factory=dict)  # where dbt builds dataplex_dq_results
    dbt_target: str | None = None  # the --target dbt ran with (run_results.json args), None when not passed
    command: str | None = None  # the dbt command that wrote run_results.json (`args.which`)
    result_count: int = 0  # entries of run_results.json (any node)
    # manifest.json's macros as dbt wrote them: the report's Warehouse renders them without reading the file again
    macros: dict[str, Any] = field(default_factory=dict, repr=False)

    def ran_tests(self) -> list[RuleTest]:
        """dataplex_dq tests that are part of the last invocation, in manifest order."""
        return sorted((t for uid, t in self.tests.items() if uid in self.runs), key=lambda t: t.order)

    def query_costs(self) -> dict[str, QueryCost]:
        """The cost of each dataplex_dq test that ran a query in the last invocation (skipped ones ran none)."""
        return {uid: run.cost for uid, run in self.runs.items() if run.status != "skipped"}


def _utc_naive(value: Any) -> datetime | None:
    """ISO timestamp from dbt (UTC, 'Z' suffix) as a naive UTC datetime."""
    if not value:
        return None
    try:
        parsed = fromisoformat(str(value))
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


class _NodeMeta(msgspec.Struct):
    """What the report reads of a node's `meta` (a test's repeats its config.meta: every rule's identity)."""

    owner: Any = msgspec.UNSET
    dataplex_dq: Any = msgspec.UNSET


class _Node(msgspec.Struct):
    """The keys of a manifest node the report reads (manifest_rules, _data_source, owners_of, results_model_of);
    the rest (compiled SQL, unrendered config, columns, ...) is skipped while parsing, never built."""

    resource_type: Any = msgspec.UNSET
    unique_id: Any = msgspec.UNSET
    name: Any = msgspec.UNSET
    test_metadata: Any = msgspec.UNSET
    attached_node: Any = msgspec.UNSET
    depends_on: Any = msgspec.UNSET
    column_name: Any = msgspec.UNSET
    relation_name: Any = msgspec.UNSET
    description: Any = msgspec.UNSET
    config: Any = msgspec.UNSET
    tags: Any = msgspec.UNSET
    meta: _NodeMeta | msgspec.UnsetType = msgspec.UNSET
    database: Any = msgspec.UNSET
    schema: Any = msgspec.UNSET
    alias: Any = msgspec.UNSET
    identifier: Any = msgspec.UNSET
    source_name: Any = msgspec.UNSET
    group: Any = msgspec.UNSET


class _Manifest(msgspec.Struct):
    metadata: Any = msgspec.UNSET
    nodes: dict[str, _Node] = {}
    sources: dict[str, _Node] = {}
    macros: Any = msgspec.UNSET
    groups: Any = msgspec.UNSET


def _set_fields(struct: msgspec.Struct) -> dict[str, Any]:
    return {f: v for f in struct.__struct_fields__ if (v := getattr(struct, f)) is not msgspec.UNSET}


def _read_manifest(path: Path) -> dict[str, Any]:
    """manifest.json with only what the report reads, in the shape json.load gives it: parsed against
    :class:`_Manifest` (msgspec), which skips the rest without building it (16.5 MB of a 10,000-rule project:
    0.05 s instead of 0.23 s, and ~100,000 fewer objects). A file of another shape is read by :func:`_read_json`,
    whose errors name what is wrong."""
    try:
        data = path.read_bytes()
        manifest = msgspec.json.decode(data, type=_Manifest)
    except (OSError, msgspec.MsgspecError):
        return _read_json(path, "manifest.json")
    out = _set_fields(manifest)
    for collection in ("nodes", "sources"):
        nodes = out[collection]
        for uid, node in nodes.items():
            fields = nodes[uid] = _set_fields(node)
            if isinstance(fields.get("meta"), _NodeMeta):
                fields["meta"] = _set_fields(fields["meta"])
    return out


def _read_json(path: Path, what: str) -> dict[str, Any]:
    if not path.exists():
        raise ArtifactsError(
            f"{path} not found: run `dbt build` (or `dbt test`) first, "
            f"or point --target-path at the folder holding {what}"
        )
    try:
        with path.open("rb") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ArtifactsError(f"{path} cannot be read as JSON ({exc}); re-run dbt to write it again") from exc
    checked: dict[str, Any] = _expect(data, dict, path, "the file")
    return checked


def _expect(value: Any, kind: type, path: Path, what: str) -> Any:
    """``value`` when it is a ``kind``; else a one-line ArtifactsError (an artifact of the wrong shape)."""
    if not isinstance(value, kind):
        names: dict[type, str] = {dict: "an object", list: "a list"}
        raise ArtifactsError(
            f"{path}: {what} is {type(value).__name__ if value is not None else 'null'}, "
            f"not {names.get(kind, kind.__name__)}: "
            "this is not an artifact of dbt 1.11; re-run `dbt build` to write it again"
        )
    return value


# `args.which` of run_results.json -> the command as a user types it
DBT_COMMANDS = {"generate": "docs generate", "serve": "docs serve", "run-operation": "run-operation"}
TEST_COMMANDS = ("build", "test", "retry")


def no_tests_message(path: Path, command: str | None, results: int) -> str:
    """Why a run_results.json with no dataplex_dq test cannot give a report, and what to run instead."""
    shown = f"`dbt {DBT_COMMANDS.get(command or '', command)}`" if command else "a dbt command"
    if command and command not in TEST_COMMANDS:
        return (
            f"{path} was written by {shown}, which runs no tests: run `dbt build` (or `dbt test`), "
            "then `dataplex-dq report` (or `dataplex-dq build` for both)"
        )
    return (
        f"{path} was written by {shown} that ran no dataplex_dq test ({results} other results): "
        "run `dbt build` (or `dbt test`) with a selection that includes the dataplex_dq tests, "
        "then `dataplex-dq report`"
    )


def owners_of(node: dict[str, Any], groups: dict[str, Any] | None = None) -> tuple[str, ...]:
    """dbt's owner of a node: `meta.owner` (or `config.meta.owner`), a name or a list of names; else, with
    ``groups`` (manifest.json's), the owner (name, else email) of the node's `group`."""
    config: dict[str, Any] = node["config"] if isinstance(node.get("config"), dict) else {}
    for meta in (config.get("meta"), node.get("meta")):
        owner = meta.get("owner") if isinstance(meta, dict) else None
        if isinstance(owner, str) and owner.strip():
            return (owner.strip(),)
        if isinstance(owner, list) and owner:
            return tuple(str(o).strip() for o in owner if str(o).strip())
    group = config.get("group") or node.get("group")
    for g in (groups or {}).values():
        if isinstance(g, dict) and group and g.get("name") == group:
            group_owner: dict[str, Any] = g["owner"] if isinstance(g.get("owner"), dict) else {}
            who = group_owner.get("name") or group_owner.get("email")
            return (str(who),) if who else ()
    return ()


def _data_source(node: dict[str, Any], groups: dict[str, Any] | None = None) -> DataSource:
    config_meta = (node.get("config") or {}).get("meta") or {}
    meta = node.get("meta") or {}
    settings = snake_keys(config_meta.get(PACKAGE) or meta.get(PACKAGE) or {})  # either casing, as the macros
    name = node.get("name", "")
    if node.get("resource_type") == "source":
        name = f"{node.get('source_name')}.{name}"
    return DataSource(
        unique_id=node["unique_id"],
        name=name,
        resource_type=node.get("resource_type", ""),
        relation_name=node.get("relation_name"),
        database=node.get("database"),
        schema=node.get("schema"),
        identifier=node.get("alias") or node.get("identifier") or node.get("name"),
        settings=settings if isinstance(settings, dict) else {},
        owners=owners_of(node, groups),
    )


def scan_spec(kwargs: dict[str, Any], *, normalize_rules: bool = True) -> dict[str, Any]:
    """A data_quality_scan's arguments as the macro reads them (macros/spec_normalize.sql): the spec
    bare, under `data_quality_spec`, or in a whole DataScan resource, with snake_case names at every
    depth, nulls, `column: ''` and `threshold: 0` left out (unset). ``normalize_rules`` False: its `rules`
    kept as declared, not copied (:func:`manifest_rules`: a test's rules are read from its identity,
    record/declared.py; copying 10,000 rules made ~11,000 objects that lived as long as the report)."""
    if not normalize_rules:
        return _scan_spec_rules_as_declared(kwargs)
    given: dict[str, Any] = snake_keys({k: v for k, v in kwargs.items() if k not in ("model", "column_name")})
    spec = given.get("data_quality_spec")
    if isinstance(spec, dict):
        given = {
            **{k: v for k, v in given.items() if k in ("rules", "row_filter", "sampling_percent", "post_scan_actions")},
            **spec,
        }
    rules = given.get("rules")
    if isinstance(rules, list):
        given["rules"] = [
            {
                k: v
                for k, v in r.items()
                if not (k == "column" and v == "") and not (k == "threshold" and v == 0 and not isinstance(v, bool))
            }
            if isinstance(r, dict)
            else r
            for r in rules
        ]
    return given


_SPEC_KEYS = ("data_quality_spec", "dataQualitySpec")


def _scan_spec_rules_as_declared(kwargs: dict[str, Any]) -> dict[str, Any]:
    """:func:`scan_spec` of the arguments without their `rules`, then the rules list put back as declared (the
    spec's under `data_quality_spec`, else the bare one, as scan_spec reads them)."""
    rules = kwargs.get("rules")
    without: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in _SPEC_KEYS and isinstance(value, dict):
            rules = value["rules"] if value.get("rules") is not None else rules
            without[key] = {k: v for k, v in value.items() if k != "rules"}
        elif key != "rules":
            without[key] = value
    given = scan_spec(without)
    if rules is not None:
        given["rules"] = rules
    return given


def scan_settings(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The scan-level settings a data_quality_scan test declares (snake_case or camelCase arguments),
    in the snake_case keys of meta.dataplex_dq. They apply to the scan's rules and override the data
    source's meta.dataplex_dq, as in the macro (macros/scan.sql)."""
    out: dict[str, Any] = {}
    for key, camel in (
        ("row_filter", "rowFilter"),
        ("sampling_percent", "samplingPercent"),
        ("post_scan_actions", "postScanActions"),
        ("incremental_field", "incrementalField"),
        ("incremental_lookback", "incrementalLookback"),
        ("catalog_publishing_enabled", "catalogPublishingEnabled"),
    ):
        value = kwargs.get(key) if kwargs.get(key) is not None else kwargs.get(camel)
        if value is not None:
            out[key] = value
    return out


def _test_setting(node: dict[str, Any], key: str) -> Any:
    """A test's `meta.dataplex_dq.<key>` (or `config.meta`)."""
    config: dict[str, Any] = node["config"] if isinstance(node.get("config"), dict) else {}
    for meta in (config.get("meta"), node.get("meta")):
        ours = meta.get(PACKAGE) if isinstance(meta, dict) else None
        if isinstance(ours, dict) and ours.get(key) is not None:
            return ours[key]
    return None


def _test_kwargs(meta: dict[str, Any]) -> dict[str, Any]:
    given = meta.get("kwargs")
    kwargs: dict[str, Any] = given if isinstance(given, dict) else {}
    return scan_spec(kwargs, normalize_rules=False) if meta.get("name") == "data_quality_scan" else kwargs


def manifest_rules(manifest: dict[str, Any]) -> tuple[dict[str, RuleTest], dict[str, DataSource]]:
    """The dataplex_dq tests of a manifest and the data sources they are attached to (settings of a
    data_quality_scan merged into its data source's), whatever ran."""
    tests: dict[str, RuleTest] = {}
    wanted_sources: set[str] = set()
    for order, (uid, node) in enumerate(manifest.get("nodes", {}).items()):
        if not isinstance(node, dict):
            continue
        meta = node.get("test_metadata") or {}
        if not isinstance(meta, dict):
            continue
        if node.get("resource_type") != "test" or meta.get("namespace") != PACKAGE:
            continue
        source_id = node.get("attached_node")
        if not source_id:
            deps = (node.get("depends_on") or {}).get("nodes") or []
            source_id = deps[0] if deps else None
        if source_id:
            wanted_sources.add(source_id)
        tests[uid] = RuleTest(
            unique_id=uid,
            name=node.get("name", uid),
            test_name=meta.get("name", ""),
            data_source_id=source_id,
            column_name=node.get("column_name"),
            relation_name=node.get("relation_name"),
            kwargs=_test_kwargs(meta),
            description=node.get("description") or None,
            order=order,
            severity=str((node.get("config") or {}).get("severity") or "ERROR").upper(),
            identity=((node.get("config") or {}).get("meta") or {}).get(IDENTITY_KEY),
            tags=tuple(str(t) for t in node.get("tags") or ()) if isinstance(node.get("tags"), list) else (),
            owners=owners_of(node),
            alert_suppression_interval=_test_setting(node, "alert_suppression_interval"),
        )

    data_sources: dict[str, DataSource] = {}
    for collection in ("nodes", "sources"):
        for uid in wanted_sources:
            node = manifest.get(collection, {}).get(uid)
            if node is not None:
                data_sources[uid] = _data_source(node, manifest.get("groups"))
    for test in tests.values():
        if test.test_name == "data_quality_scan" and test.data_source_id in data_sources:
            source = data_sources[test.data_source_id]
            data_sources[source.unique_id] = replace(source, settings={**source.settings, **scan_settings(test.kwargs)})
    return tests, data_sources


def _macros(manifest: dict[str, Any]) -> dict[str, Any]:
    macros = manifest.get("macros")
    return macros if isinstance(macros, dict) else {}


def results_model_of(manifest: dict[str, Any]) -> dict[str, str | None]:
    """Where the manifest builds the package model dataplex_dq_results (database, schema, identifier)."""
    node = (manifest.get("nodes") or {}).get(f"model.{PACKAGE}.dataplex_dq_results") or {}
    return {"database": node.get("database"), "schema": node.get("schema"), "identifier": node.get("alias")}


def load_artifacts(target_path: Path) -> Artifacts:
    """Load the artifacts of the last dbt invocation in ``target_path``."""
    target_path = Path(target_path)
    manifest = _read_manifest(target_path / "manifest.json")
    run_results = _read_json(target_path / "run_results.json", "run_results.json")
    mpath, rpath = target_path / "manifest.json", target_path / "run_results.json"
    _expect(manifest.get("nodes", {}), dict, mpath, "`nodes`")
    _expect(manifest.get("sources", {}), dict, mpath, "`sources`")
    _expect(run_results.get("results", []), list, rpath, "`results`")
    _expect(run_results.get("metadata") or {}, dict, rpath, "`metadata`")
    for r in run_results.get("results", []):
        _expect(r, dict, rpath, "an entry of `results`")
    args = run_results.get("args")
    if isinstance(args, dict) and args.get("empty") is True:
        raise ArtifactsError(
            f"{rpath} was written by `dbt {args.get('which') or 'build'} --empty`, which reads no rows (a check of "
            "the SQL, not of the data): nothing to report or export; run dbt without --empty, then report"
        )
    tests, data_sources = manifest_rules(manifest)

    metadata = run_results.get("metadata") or {}
    invocation_id = metadata.get("invocation_id")
    if not invocation_id:
        raise ArtifactsError(f"{target_path / 'run_results.json'} has no invocation_id; re-run dbt to write it again")

    runs: dict[str, TestRun] = {}
    for r in run_results.get("results", []):
        uid = r.get("unique_id")
        if uid not in tests:
            continue
        timing = {t.get("name"): t for t in r.get("timing") or []}
        execute = timing.get("execute") or timing.get("compile") or {}
        compile_ = timing.get("compile") or execute
        runs[uid] = TestRun(
            unique_id=uid,
            status=str(r.get("status", "")).lower(),
            message=r.get("message"),
            failures=r.get("failures"),
            started_at=_utc_naive(compile_.get("started_at")),
            completed_at=_utc_naive(execute.get("completed_at")),
            cost=QueryCost.from_run_result(r.get("adapter_response"), r.get("execution_time")),
        )
    unknown = [
        r.get("unique_id")
        for r in run_results.get("results", [])
        if str(r.get("unique_id", "")).startswith("test.") and r.get("unique_id") not in manifest.get("nodes", {})
    ]
    if unknown:
        raise ArtifactsError(
            f"run_results.json lists {len(unknown)} test(s) missing from manifest.json (e.g. {unknown[0]}): "
            "the two files come from different dbt runs; re-run `dbt build`"
        )
    return Artifacts(
        target_path=target_path,
        project_name=(manifest.get("metadata") or {}).get("project_name"),
        invocation_id=invocation_id,
        invocation_started_at=_utc_naive(metadata.get("invocation_started_at")),
        generated_at=_utc_naive(metadata.get("generated_at")),
        tests=tests,
        data_sources=data_sources,
        runs=runs,
        dbt_target=(run_results.get("args") or {}).get("target") or None,
        results_model=results_model_of(manifest),
        result_count=len(run_results.get("results", [])),
        macros=_macros(manifest),
        command=str((run_results.get("args") or {}).get("which") or "") or None
        if isinstance(run_results.get("args"), dict)
        else None,
    )


MAX_TEST_NAME = 80


def short_test_name(test: RuleTest) -> str:
    """The dbt test's name when it is short; else its generic test, data source and hash: dbt names
    a test declared without `name:` after all its arguments (kilobytes for a data_quality_scan)."""
    if len(test.name) <= MAX_TEST_NAME:
        return test.name
    source = (test.data_source_id or "").split(".")[-1]
    digest = test.unique_id.rsplit(".", 1)[-1]
    return f"{test.test_name} on {source} ({digest})"
