"""What compile would refuse in a spec's rules, found before `import-spec` writes anything.

dbt compiles a rule through the package's validation (macros/validation.sql, each rule type's
``<rule_type>_validate`` in macros/rules/, the facts of macros/rules/_registry.sql, docs/SEMANTICS.md §3).
This module checks the same things, on the same facts (:mod:`dataplex_dq.rule_types` is the registry's
Python side, cross-checked by python/tests/test_rule_types.py), with the same message texts, so that a spec
``import-spec`` accepts compiles and one it refuses would not. The regex check is the package's own macro
(macros/regex_check.sql, self-contained, rendered with plain Jinja). What needs the warehouse (a column the
relation lacks, a bound its type cannot hold, RE2 syntax PostgreSQL lacks) is left to compile.
integration_tests/tests/test_spec_validation_parity.py compiles every case of
python/tests/test_spec_validate.py and compares the verdicts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dataplex_dq.rule_types import RULE_TYPES

#: Dataplex allows at most this many rules on one data source (macros/scan.sql, scan_rules).
MAX_RULES = 1000

_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_DIMENSION = re.compile(r"^[A-Z]{1,30}$")
_EMAIL = re.compile(r"^[^@\s,;<>\"]+@[^@\s,;<>\"]+$")
_PACKAGE = "dataplex_dq"


@dataclass(frozen=True)
class Problem:
    """One thing compile would refuse: the rule (index and name; None for a scan-level setting), the field
    and what is wrong (compile's own words)."""

    index: int | None
    rule: str | None
    field: str
    message: str

    def line(self, source: str) -> str:
        where = f"rule #{self.index} '{self.rule}'" if self.index is not None else "the spec"
        return f"{source}, {where}, field '{self.field}': {self.message}"


RegexCheck = Callable[[str], "str | None"]


# ---------------------------------------------------------------- the package's regex check


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def _return(value: Any) -> None:
    raise _Return(value)


class _Macros:
    """The macros of some templates as `dataplex_dq.<name>(...)` calls, with dbt's `return`."""

    def __init__(self) -> None:
        self.modules: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        macro = next(getattr(m, name) for m in self.modules if hasattr(m, name))

        def call(*args: Any) -> Any:
            try:
                macro(*args)
            except _Return as r:
                return r.value
            return None

        return call


def package_macros(project_dir: Path | None) -> Path | None:
    """The dataplex_dq package's macros/ folder: the one the project installed (dbt deps), else this checkout's."""
    candidates: list[Path] = []
    if project_dir is not None:
        for packages in ("dbt_packages", "dbt_modules"):
            candidates += sorted((Path(project_dir) / packages).glob("*/macros"))
    candidates.append(Path(__file__).resolve().parents[3] / "macros")
    for macros in candidates:
        project_file = macros.parent / "dbt_project.yml"
        if (macros / "regex_check.sql").is_file() and project_file.is_file():
            try:
                text = project_file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if re.search(rf"^name:\s*['\"]?{_PACKAGE}['\"]?\s*$", text, re.M):
                return macros
    return None


def macros_of(files: Sequence[str], project_dir: Path | None) -> Any | None:
    """The macros of the package's macro `files` (e.g. "regex_check.sql") as Python callables, calling each other
    as `dataplex_dq.<name>` with dbt's `return` (macros that need only `modules.re`), or None when the package
    cannot be found."""
    import jinja2

    macros = package_macros(project_dir)
    if macros is None:
        return None
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    ns = _Macros()
    env.globals.update({"return": _return, "modules": type("Modules", (), {"re": re})(), _PACKAGE: ns})
    ns.modules = [env.from_string((macros / name).read_text(encoding="utf-8")).module for name in files]
    return ns


def regex_check_macros(project_dir: Path | None) -> Any | None:
    """The macros of the package's macros/regex_check.sql as Python callables (`regex_problem`,
    `re2_unicode_classes`, ...), or None when the package cannot be found."""
    return macros_of(["regex_check.sql"], project_dir)


def regex_check(project_dir: Path | None) -> RegexCheck | None:
    """The package's RE2 check (macros/regex_check.sql, `regex_problem`) as a function, or None when the
    package cannot be found."""
    macros = regex_check_macros(project_dir)
    if macros is None:
        return None
    check: RegexCheck = macros.regex_problem
    return check


# ---------------------------------------------------------------- the package's rule templates

TemplateCheck = Callable[[Mapping[str, Any]], "list[tuple[str, str]]"]


def project_rule_templates(project_dir: Path | None) -> Any:
    """The project's rule templates: `vars: dataplex_dq_rule_templates` of its dbt_project.yml (as written;
    None when there is none)."""
    import yaml

    path = Path(project_dir or ".") / "dbt_project.yml"
    try:
        project = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    variables = project.get("vars") if isinstance(project, dict) else None
    return variables.get("dataplex_dq_rule_templates") if isinstance(variables, dict) else None


def rule_template_check(project_dir: Path | None) -> TemplateCheck | None:
    """The package's template resolution (macros/rule_templates.sql, `rule_template_resolve`) over the
    package's and the project's templates, as a function of a template_reference returning its problems
    [(field, message)]; None when the package (or its rule_templates.sql) cannot be found."""
    macros = package_macros(project_dir)
    if macros is None or not (macros / "rule_templates.sql").is_file():
        return None
    ns = macros_of(["rule_templates.sql"], project_dir)
    if ns is None:
        return None
    templates = ns.rule_templates_of(project_rule_templates(project_dir))

    def check(params: Mapping[str, Any]) -> list[tuple[str, str]]:
        return [(str(f), str(m)) for f, m in ns.rule_template_resolve(dict(params), templates)["problems"]]

    return check


# ---------------------------------------------------------------- the checks (macros/validation.sql)


def _is_sql_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _text(value: Any) -> str:
    """A value as compile's messages print it."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def rule_problems(
    rule: Mapping[str, Any], index: int, regex: RegexCheck | None = None, templates: TemplateCheck | None = None
) -> list[Problem]:
    """What compile's validate_rule would report for one normalized rule (spec.reader's snake_case shape)."""
    out: list[Problem] = []
    rule_type = next((t for t in RULE_TYPES if t in rule), None)
    name = rule.get("name")
    label = str(name) if name else f"{rule_type or 'rule'}-{index}"

    def problem(field: str, message: str) -> None:
        out.append(Problem(index, label, field, message))

    # validate_rule_identity
    if name is not None and not _NAME.match(str(name)):
        problem(
            "name",
            f"'{name}' is not a valid Dataplex rule name: use letters, digits and hyphens, start with a letter, "
            "end with a letter or digit, at most 63 characters",
        )
    description = rule.get("description")
    if description is not None and len(str(description)) > 1024:
        problem("description", f"is {len(str(description))} characters long; at most 1024 are allowed")
    dimension = rule.get("dimension")
    if dimension is not None and not _DIMENSION.match(str(dimension)):
        problem(
            "dimension",
            f"'{dimension}' must be 1 to 30 upper-case letters (e.g. VALIDITY, COMPLETENESS or a custom name like "
            "TIMELINESS)",
        )
    if rule_type is None:
        return out
    facts = RULE_TYPES[rule_type]
    # validate_rule_threshold
    threshold = rule.get("threshold")
    if threshold is not None:
        if not facts.row_level:
            problem(
                "threshold",
                f"is only allowed on row-level rules; {rule_type} is an aggregate rule that passes or fails as a whole",
            )
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, (int, float))
            or math.isnan(threshold)
            or not 0 <= threshold <= 1
        ):
            problem("threshold", f"must be a number between 0 and 1 (0 means 1.0), got {_text(threshold)}")
    # validate_rule_flags_and_column
    if rule.get("ignore_null") and not facts.takes_ignore_null:
        problem("ignore_null", f"is only valid for range, regex, set and uniqueness rules, not {rule_type}")
    if facts.needs_column and not rule.get("column"):
        problem("column", f"is required: give the rule a column: ({rule_type} checks one column)")
    # validate_rule_params: each rule type's <rule_type>_validate
    params = rule.get(rule_type) or {}
    bounded = rule_type in ("range_expectation", "statistic_range_expectation")
    if bounded and params.get("min_value") is None and params.get("max_value") is None:
        problem("min_value", "at least one of min_value and max_value must be given")
    if rule_type == "statistic_range_expectation" and params.get("statistic") not in ("MEAN", "MIN", "MAX"):
        problem("statistic", f"must be one of MEAN, MIN, MAX, got {_text(params.get('statistic'))}")
    if rule_type == "set_expectation" and not params.get("values"):
        problem("values", f"must be a non-empty list of values, got {_text(params.get('values'))}")
    if rule_type == "regex_expectation":
        pattern = params.get("regex")
        if not isinstance(pattern, str):
            problem("regex", f"must be a string, got {_text(pattern)}")
        elif regex is not None:
            found = regex(pattern)
            if found:
                problem("regex", f"'{pattern}' {found}")
    conditions = ("row_condition_expectation", "table_condition_expectation")
    if rule_type in conditions and not _is_sql_text(params.get("sql_expression")):
        problem("sql_expression", "is required (a SQL boolean expression)")
    if rule_type == "sql_assertion":
        statement = params.get("sql_statement")
        if not _is_sql_text(statement):
            problem("sql_statement", "is required (a SELECT returning the rows in an invalid state)")
        elif ";" in str(statement):
            problem("sql_statement", "must not contain a semicolon")
    if rule_type == "template_reference" and templates is not None:
        for field, message in templates(params):
            problem(field, message)
    # validate_debug_queries
    for i, query in enumerate(rule.get("debug_queries") or []):
        field = f"debug_queries[{i}]"
        statement = query.get("sql_statement") if isinstance(query, Mapping) else None
        if not _is_sql_text(statement):
            problem(f"{field}.sql_statement", "is required")
        elif ";" in str(statement):
            problem(f"{field}.sql_statement", "must not contain a semicolon")
        described = query.get("description") if isinstance(query, Mapping) else None
        if described is not None and len(str(described)) > 1024:
            problem(f"{field}.description", "is longer than 1024 characters")
    return out


def setting_problems(spec: Mapping[str, Any]) -> list[Problem]:
    """What compile would report for the scan-level settings (validate_scope_settings,
    validate_post_scan_actions) and what the notification output would refuse at report time."""
    out: list[Problem] = []
    pct = spec.get("sampling_percent")
    if pct is not None and (
        isinstance(pct, bool) or not isinstance(pct, (int, float)) or math.isnan(pct) or not 0 <= pct <= 100
    ):
        out.append(Problem(None, None, "sampling_percent", f"must be a number between 0 and 100, got {_text(pct)}"))
    report = (spec.get("post_scan_actions") or {}).get("notification_report") or {}
    emails: Sequence[Any] = (report.get("recipients") or {}).get("emails") or []
    for i, email in enumerate(emails):
        if not isinstance(email, str) or not _EMAIL.match(email):
            out.append(
                Problem(
                    None,
                    None,
                    f"post_scan_actions.notification_report.recipients.emails[{i}]",
                    f"{email!r} is not one email address (no spaces, line breaks, commas or several '@')",
                )
            )
    return out


def spec_problems(
    spec: Mapping[str, Any],
    *,
    regex: RegexCheck | None = None,
    other_rules: int = 0,
    templates: TemplateCheck | None = None,
) -> list[Problem]:
    """Every problem compile would report in a normalized spec, in rule order; ``other_rules``: the rules the
    data source keeps besides these (the limit counts them all)."""
    rules = list(spec.get("rules") or [])
    out = setting_problems(spec)
    total = len(rules) + other_rules
    if total > MAX_RULES:
        out.append(
            Problem(
                None,
                None,
                "rules",
                f"the data source would have {total} rules ({len(rules)} in this spec); Dataplex allows at most "
                f"{MAX_RULES} per data source",
            )
        )
        return out  # the rules themselves are not checked one by one past the limit
    for i, rule in enumerate(rules):
        out.extend(rule_problems(rule, i, regex, templates))
    return out
