"""The rules a dbt project declares, as the package recorded them in manifest.json.

When dbt parses the project, every dataplex_dq test records the identity of its rules in its node's
``config.meta.dataplex_dq_rules`` (macros/identity.sql): per rule its index, whether its name was
given, and the rule normalized as the ``DataQualityRule`` its metrics row carries (``rule_spec``).
The post-hook uses it for rules that left no metrics row (errored or skipped), for the names each
data source declares, and ``export-spec`` turns it back into a Dataplex DataQualitySpec. Names are
never derived here: the macros derive them, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dataplex_dq.errors import ArtifactsError
from dataplex_dq.record.artifacts import IDENTITY_KEY, Artifacts, RuleTest, short_test_name


@dataclass(frozen=True, slots=True)
class DeclaredRule:
    """One rule of a test as recorded at parse time."""

    rule_index: int
    name_given: bool  # declared with a name (not derived by the package)
    # DataQualityRule in snake_case proto JSON, plus `attributes` (string map): the manifest's own dict, not a copy
    # (read, never changed: a reader that edits a rule copies it first, as export-spec does)
    rule: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.rule.get("name") or "")


def recorded_rules(test: RuleTest) -> list[DeclaredRule]:
    """The rules `test` declares, as recorded in its manifest node; a one-line error when the
    manifest has no record (parsed by a dataplex_dq version older than the post-hook)."""

    recorded = test.identity
    if recorded is None:
        raise ArtifactsError(
            f"manifest.json: test {short_test_name(test)} has no config.meta.{IDENTITY_KEY} (the rule names "
            "dataplex_dq records when dbt parses the project): the project was parsed with an older dataplex_dq "
            "package; run `dbt deps`, then dbt again with --no-partial-parse (`dbt build` before `dataplex-dq report`, "
            "`dbt parse` before `export-spec`)"
        )
    entries = recorded if isinstance(recorded, list) else [None]
    out = []
    for entry in entries:
        rule = entry.get("rule") if isinstance(entry, dict) else None
        index = entry.get("rule_index") if isinstance(entry, dict) else None
        if not isinstance(rule, dict) or not rule.get("name") or not isinstance(index, int):
            raise ArtifactsError(
                f"manifest.json: test {short_test_name(test)}: config.meta.{IDENTITY_KEY} is not a list of "
                "{rule_index, name_given, rule} as dataplex_dq records it; run `dbt parse` again"
            )
        out.append(DeclaredRule(index, bool(entry.get("name_given")), rule))
    return out


def declared_rules(test: RuleTest) -> list[tuple[int, dict[str, Any]]]:
    """(rule_index, DataQualityRule dict) of every rule a test declares, for tests that left no
    metrics rows: one for a per-rule test; one per rule of `rules` for a data_quality_scan (a rule
    without exactly one rule type and a mapping of its fields is not recorded)."""
    return [(r.rule_index, r.rule) for r in recorded_rules(test)]


def declared_rule_names(artifacts: Artifacts) -> dict[str, tuple[str, ...]]:
    """Per data source, the names of every rule its dataplex_dq tests declare in the manifest (run in
    this invocation or not), sorted: what the "latest" result models keep (issue 9 B)."""
    names: dict[str, set[str]] = {}
    for test in artifacts.tests.values():
        if test.data_source_id is None:
            continue
        names.setdefault(test.data_source_id, set()).update(r.name for r in recorded_rules(test))
    return {source: tuple(sorted(n)) for source, n in names.items()}
