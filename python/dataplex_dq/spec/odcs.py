"""The Open Data Contract Standard (ODCS v3, bitol-io/open-data-contract-standard, docs/data-quality.md)
`quality` entries <-> Dataplex DataQualityRules (normalized snake_case dicts, as spec/reader.py holds them).

One mapping, both ways; its table, row by row, is docs/SEMANTICS.md's "Data contracts (ODCS)" section
(python/tests/test_odcs.py has a test per row). Library metrics with `mustBe: 0` map onto the row-level
rule types (nullValues: non_null_expectation, invalidValues: set_expectation or regex_expectation,
duplicateValues: uniqueness_expectation, missingValues: row_condition_expectation); rowCount and any other
operator or unit onto a table_condition_expectation over the count; schema-level duplicateValues and `sql`
rules onto a sql_assertion; `text` and `custom` rules onto nothing (listed as unmapped).

The entry's `description` is the rule's description, `dimension` its dimension (upper case; a synonym such as
`cf` is kept in an attribute); `id` / `name` give the rule's name (made a valid Dataplex name; the original
is kept in an attribute when it differs). What a DataQualityRule has no field for (`severity`,
`businessImpact`, `method`, `schedule`, `scheduler`, an explicit `type` or `unit`, `tags`,
`customProperties`, `authoritativeDefinitions`) and, for a table condition made from a library metric,
the metric, operator and value, are kept in the rule's `attributes` as `odcs_<key>` (JSON text for lists
and numbers), so that `export-contract` writes the entry back as it was.

Rules made without a contract export as their ODCS equivalent: the rows above read right to left; a
range, row condition, table condition, statistic or SQL assertion as `type: sql` with `mustBe: 0` (a
statistic: its value `mustBeBetween` the bounds); a template_reference or a threshold other rule types
cannot say is listed as unmapped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OPERATORS = {
    "mustBe": "=",
    "mustNotBe": "<>",
    "mustBeGreaterThan": ">",
    "mustBeGreaterOrEqualTo": ">=",
    "mustBeLessThan": "<",
    "mustBeLessOrEqualTo": "<=",
    "mustBeBetween": "between",
    "mustNotBeBetween": "not between",
}
DIMENSIONS = ("accuracy", "completeness", "conformity", "consistency", "coverage", "timeliness", "uniqueness")
DIMENSION_SYNONYMS = {
    "ac": "accuracy",
    "cp": "completeness",
    "cf": "conformity",
    "cs": "consistency",
    "cv": "coverage",
    "tm": "timeliness",
    "uq": "uniqueness",
}
#: Dataplex's own dimensions that ODCS names otherwise (export).
DATAPLEX_DIMENSIONS = {"validity": "conformity", "freshness": "timeliness", "volume": "completeness"}
#: Entry fields a DataQualityRule has no field for, kept in attributes as odcs_<key>.
KEPT = (
    "id",
    "name",
    "type",
    "unit",
    "severity",
    "businessImpact",
    "method",
    "schedule",
    "scheduler",
    "tags",
    "customProperties",
    "authoritativeDefinitions",
)
PREFIX = "odcs_"
_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


@dataclass
class Unmapped:
    """An entry (import) or rule (export) the other side cannot hold, and why."""

    where: str
    why: str
    entry: Any = None


@dataclass
class Mapped:
    rules: list[dict[str, Any]] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)


# ---------------------------------------------------------------- helpers


def _attr_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=False)


def _attr_value(text: str, key: str) -> Any:
    if key in ("tags", "customProperties", "authoritativeDefinitions", "value", "arguments", "values_numeric"):
        return json.loads(text)
    return text


def rule_name(entry: Mapping[str, Any], fallback: str) -> str:
    """A valid Dataplex rule name from the entry's name or id (or `fallback`)."""
    given = entry.get("name") or entry.get("id") or fallback
    text = re.sub(r"[^A-Za-z0-9]+", "-", str(given)).strip("-")
    if not text or not text[0].isalpha():
        text = "r-" + text
    return text[:63].rstrip("-")


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return "'" + str(value).replace("'", "''") + "'"


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, got {value!r}")
    return json.dumps(value)


def _comparison(expr: str, op_key: str, value: Any) -> str:
    op = OPERATORS[op_key]
    if op_key in ("mustBeBetween", "mustNotBeBetween"):
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"{op_key} takes two numbers, got {value!r}")
        return f"{expr} {op} {_number(value[0])} and {_number(value[1])}"
    return f"{expr} {op} {_number(value)}"


def _operator(entry: Mapping[str, Any]) -> tuple[str, Any] | None:
    found = [(k, entry[k]) for k in OPERATORS if k in entry]
    return found[0] if len(found) == 1 else None


def _values_sql(values: list[Any]) -> str:
    return ", ".join(_literal(v) for v in values if v is not None)


# ---------------------------------------------------------------- ODCS -> Dataplex


def entry_to_rule(entry: Mapping[str, Any], column: str | None, fallback: str) -> dict[str, Any] | Unmapped:
    """One quality entry (of a property when `column` is given, else of the schema object) as a normalized
    DataQualityRule, or why it cannot be one."""
    where = f"{'property ' + column if column else 'schema'} quality '{fallback}'"
    if not isinstance(entry, Mapping):
        return Unmapped(where, "not a mapping", entry)
    kind = entry.get("type") or ("library" if entry.get("metric") or entry.get("rule") else None)
    if kind in ("text", "custom") or kind is None:
        why = {"text": "a text rule is for people", "custom": f"a {entry.get('engine') or 'custom'} engine's rule"}
        return Unmapped(where, why.get(str(kind), "no metric, query or type") + ": no Dataplex equivalent", entry)
    rule: dict[str, Any] = {"name": rule_name(entry, fallback)}
    attributes: dict[str, str] = {}
    if entry.get("description"):
        rule["description"] = str(entry["description"])
    if column:
        rule["column"] = column
    dimension = entry.get("dimension")
    if isinstance(dimension, str) and dimension:
        full = DIMENSION_SYNONYMS.get(dimension, dimension)
        rule["dimension"] = full.upper()
        if full != dimension:
            attributes[PREFIX + "dimension"] = dimension
    for key in KEPT:
        if entry.get(key) is not None:
            attributes[PREFIX + key] = _attr_text(entry[key])
    if entry.get("name") is None and entry.get("id") is None:
        attributes[PREFIX + "name_derived"] = "true"
    operator = _operator(entry)
    if operator is None:
        return Unmapped(where, "needs exactly one operator (mustBe, mustBeLessThan, ...)", entry)
    op_key, value = operator
    try:
        body = _rule_body(entry, kind, column, op_key=op_key, value=value, attributes=attributes)
    except ValueError as exc:
        return Unmapped(where, str(exc), entry)
    if isinstance(body, str):
        return Unmapped(where, body, entry)
    rule.update(body)
    if attributes:
        rule["attributes"] = attributes
    return rule


def _rule_body(
    entry: Mapping[str, Any], kind: str, column: str | None, *, op_key: str, value: Any, attributes: dict[str, str]
) -> dict[str, Any] | str:
    """The rule type (and threshold, ignore_null) of an entry, or why there is none."""
    if kind == "sql":
        query = entry.get("query")
        if not isinstance(query, str) or not query.strip():
            return "a sql rule needs a query"
        sql = query.strip().replace("{object}", "${data()}")
        if "{property}" in sql:
            if not column:
                return "{property} in a schema-level query"
            sql = sql.replace("{property}", column)
            attributes[PREFIX + "property_placeholder"] = "true"
        check = _comparison(f"({sql})", op_key, value)
        return {
            "sql_assertion": {
                "sql_statement": f"select 1 as dq_failed from (select 1 as dq_one) dq_one where not ({check})"
            }
        }
    metric = entry.get("metric") or entry.get("rule")
    if entry.get("rule") and not entry.get("metric"):
        attributes[PREFIX + "rule"] = str(entry["rule"])
    arguments = entry.get("arguments") or {}
    if not isinstance(arguments, Mapping):
        return "arguments must be a mapping"
    unit = entry.get("unit") or "rows"
    zero = op_key == "mustBe" and value == 0 and unit == "rows"
    if metric == "rowCount":
        if column:
            return "rowCount is a schema-level metric"
        return {"table_condition_expectation": {"sql_expression": _comparison("count(*)", op_key, value)}}
    if metric == "duplicateValues" and not column:
        keys = arguments.get("properties")
        if not isinstance(keys, list) or not keys or not zero:
            return "schema-level duplicateValues maps with `properties` and mustBe 0 only"
        cols = ", ".join(str(k) for k in keys)
        return {
            "sql_assertion": {"sql_statement": f"select {cols} from ${{data()}} group by {cols} having count(*) > 1"}
        }
    if not column:
        return f"{metric} is a property-level metric"
    if metric == "nullValues" and zero:
        return {"non_null_expectation": {}}
    if metric == "nullValues" and unit == "percent" and op_key == "mustBeLessOrEqualTo":
        return {"non_null_expectation": {}, "threshold": round(1 - float(value) / 100, 12)}
    if metric == "invalidValues" and "validValues" in arguments and zero:
        valid = arguments["validValues"]
        if not isinstance(valid, list):
            return "validValues must be a list"
        if None in valid:
            attributes[PREFIX + "null_index"] = str(valid.index(None))
        given = [v for v in valid if v is not None]
        if given and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in given):
            attributes[PREFIX + "values_numeric"] = "true"
        return {"set_expectation": {"values": [str(v) for v in given]}, "ignore_null": True}
    if metric == "invalidValues" and "pattern" in arguments:
        if not zero:
            return "invalidValues with a pattern maps with mustBe 0 only (a regex in SQL differs per warehouse)"
        return {"regex_expectation": {"regex": str(arguments["pattern"])}, "ignore_null": True}
    if metric == "duplicateValues" and zero:
        return {"uniqueness_expectation": {}}
    count = _count_sql(metric, column, arguments)
    if count is None:
        return f"metric {metric!r} with these arguments has no Dataplex equivalent"
    if metric == "missingValues" and zero:
        attributes.update({PREFIX + "metric": "missingValues", PREFIX + "arguments": _attr_text(dict(arguments))})
        missing = arguments.get("missingValues") or []
        listed = _values_sql(missing)
        cond = f"{column} not in ({listed})" if listed else "true"
        passes = f"{column} is not null and {cond}" if None in missing else f"{column} is null or {cond}"
        return {"row_condition_expectation": {"sql_expression": passes}}
    expr = f"100.0 * {count} / nullif(count(*), 0)" if unit == "percent" else count
    attributes.update(
        {
            PREFIX + "metric": str(metric),
            PREFIX + "operator": op_key,
            PREFIX + "value": _attr_text(value),
        }
    )
    if arguments:
        attributes[PREFIX + "arguments"] = _attr_text(dict(arguments))
    return {"table_condition_expectation": {"sql_expression": _comparison(f"({expr})", op_key, value)}}


def _count_sql(metric: Any, column: str, arguments: Mapping[str, Any]) -> str | None:
    if metric == "nullValues":
        return f"sum(case when {column} is null then 1 else 0 end)"
    if metric == "missingValues":
        missing = arguments.get("missingValues") or []
        if not isinstance(missing, list):
            return None
        parts = ([f"{column} is null"] if None in missing else []) + (
            [f"{column} in ({_values_sql(missing)})"] if any(v is not None for v in missing) else []
        )
        return f"sum(case when {' or '.join(parts) or 'false'} then 1 else 0 end)"
    if metric == "invalidValues" and isinstance(arguments.get("validValues"), list):
        return f"sum(case when {column} not in ({_values_sql(arguments['validValues'])}) then 1 else 0 end)"
    if metric == "duplicateValues":
        return f"(count({column}) - count(distinct {column}))"
    return None


def contract_rules(contract: Mapping[str, Any], object_name: str | None = None) -> dict[str, Mapped]:
    """{schema object name: its rules and unmapped entries} of a contract (property-level entries first,
    in property order, then the object's own); `object_name` picks one object."""
    out: dict[str, Mapped] = {}
    for obj in contract.get("schema") or []:
        if not isinstance(obj, Mapping):
            continue
        name = str(obj.get("name") or obj.get("physicalName") or "")
        if object_name is not None and object_name not in (obj.get("name"), obj.get("physicalName")):
            continue
        mapped = Mapped()
        for prop in obj.get("properties") or []:
            if not isinstance(prop, Mapping):
                continue
            column = str(prop.get("name") or "")
            for i, entry in enumerate(prop.get("quality") or []):
                metric = entry.get("metric") or entry.get("type") if isinstance(entry, Mapping) else "entry"
                _add(mapped, entry_to_rule(entry, column, f"{column}-{metric}-{i + 1}"))
        for i, entry in enumerate(obj.get("quality") or []):
            metric = entry.get("metric") or entry.get("type") if isinstance(entry, Mapping) else "entry"
            _add(mapped, entry_to_rule(entry, None, f"{name}-{metric}-{i + 1}"))
        out[name] = mapped
    return out


def _add(mapped: Mapped, got: dict[str, Any] | Unmapped) -> None:
    if isinstance(got, Unmapped):
        mapped.unmapped.append(got)
    else:
        mapped.rules.append(got)


# ---------------------------------------------------------------- Dataplex -> ODCS

_DUP_KEYS = re.compile(r"^select (.+) from \$\{data\(\)\} group by (.+) having count\(\*\) > 1$", re.S)
_SQL_WRAP = re.compile(
    r"^select 1 as dq_failed from \(select 1 as dq_one\) dq_one where not "
    r"\(\((.*)\) (=|<>|>=|<=|>|<|between|not between) (.+)\)$",
    re.S,
)
# any case: import-contract transpiles the expression for the target (sqlglot writes COUNT(*), BETWEEN)
_ROWCOUNT = re.compile(r"^count\(\*\) (=|<>|>=|<=|>|<|between|not between) (.+)$", re.S | re.I)
_OPERATOR_OF = {v: k for k, v in OPERATORS.items()}


def _parse_value(op: str, text: str) -> Any:
    if op in ("between", "not between"):
        low, high = re.split(r" and ", text, maxsplit=1, flags=re.I)
        return [json.loads(low), json.loads(high)]
    return json.loads(text)


def rule_to_entry(rule: Mapping[str, Any]) -> tuple[dict[str, Any], str | None] | Unmapped:
    """(the ODCS quality entry of a normalized DataQualityRule, its property or None for schema level),
    or why there is none."""
    name = str(rule.get("name") or "")
    where = f"rule '{name}'" if name else "a rule"
    attrs: dict[str, str] = {str(k): str(v) for k, v in (rule.get("attributes") or {}).items()}
    odcs = {k[len(PREFIX) :]: v for k, v in attrs.items() if k.startswith(PREFIX)}
    column = rule.get("column") or None
    entry: dict[str, Any] = {}
    body = _entry_body(rule, odcs, column)
    if isinstance(body, str):
        return Unmapped(where, body, dict(rule))
    entry_core, column = body
    if "rule" in odcs and "metric" in entry_core:
        entry_core["rule"] = entry_core.pop("metric")
    for key in KEPT:
        if key in odcs:
            entry[key] = _attr_value(odcs[key], key)
    if name and "name" not in odcs and "id" not in odcs and odcs.get("name_derived") != "true":
        entry["name"] = name
    if rule.get("description"):
        entry["description"] = rule["description"]
    if "dimension" in odcs:
        entry["dimension"] = odcs["dimension"]
    elif rule.get("dimension"):
        lower = str(rule["dimension"]).lower()
        lower = DATAPLEX_DIMENSIONS.get(lower, lower)
        if lower in DIMENSIONS:
            entry["dimension"] = lower
    entry.update(entry_core)
    return _ordered(entry), column


def _entry_body(
    rule: Mapping[str, Any], odcs: dict[str, str], column: str | None
) -> tuple[dict[str, Any], str | None] | str:
    threshold = rule.get("threshold")
    if "metric" in odcs and "operator" in odcs:
        out: dict[str, Any] = {"metric": odcs["metric"], odcs["operator"]: json.loads(odcs["value"])}
        if "arguments" in odcs:
            out["arguments"] = json.loads(odcs["arguments"])
        return out, column
    if odcs.get("metric") == "missingValues" and "row_condition_expectation" in rule:
        return {"metric": "missingValues", "arguments": json.loads(odcs["arguments"]), "mustBe": 0}, column
    if "non_null_expectation" in rule:
        if threshold:
            return {
                "metric": "nullValues",
                "mustBeLessOrEqualTo": _clean(round((1 - float(threshold)) * 100, 10)),
            }, column
        return {"metric": "nullValues", "mustBe": 0}, column
    if threshold:
        return "a threshold other than for a null check has no ODCS operator here"
    if "set_expectation" in rule:
        values: list[Any] = list((rule["set_expectation"] or {}).get("values") or [])
        if odcs.get("values_numeric") == "true":
            values = [json.loads(v) for v in values]
        if "null_index" in odcs:
            values.insert(int(odcs["null_index"]), None)
        return {"metric": "invalidValues", "arguments": {"validValues": values}, "mustBe": 0}, column
    if "regex_expectation" in rule:
        return {
            "metric": "invalidValues",
            "arguments": {"pattern": rule["regex_expectation"].get("regex")},
            "mustBe": 0,
        }, column
    if "uniqueness_expectation" in rule:
        return {"metric": "duplicateValues", "mustBe": 0}, column
    if "table_condition_expectation" in rule:
        expr = str(rule["table_condition_expectation"].get("sql_expression") or "")
        m = _ROWCOUNT.match(expr)
        if m and not column:
            op = m.group(1).lower()
            return {"metric": "rowCount", _OPERATOR_OF[op]: _parse_value(op, m.group(2))}, None
        return {
            "type": "sql",
            "query": f"SELECT CASE WHEN {expr} THEN 0 ELSE 1 END FROM {{object}}",
            "mustBe": 0,
        }, column
    if "sql_assertion" in rule:
        statement = str(rule["sql_assertion"].get("sql_statement") or "")
        m = _SQL_WRAP.match(statement)
        if m:
            query = m.group(1).replace("${data()}", "{object}")
            if odcs.get("property_placeholder") == "true" and column:
                query = query.replace(column, "{property}")
            return {
                "type": "sql",
                "query": query,
                _OPERATOR_OF[m.group(2)]: _parse_value(m.group(2), m.group(3)),
            }, column
        d = _DUP_KEYS.match(statement)
        if d and d.group(1) == d.group(2) and not column:
            keys = [k.strip() for k in d.group(1).split(",")]
            return {"metric": "duplicateValues", "arguments": {"properties": keys}, "mustBe": 0}, None
        query = f"SELECT COUNT(*) FROM ({statement.replace('${data()}', '{object}')}) dq_rows"
        return {"type": "sql", "query": query, "mustBe": 0}, column
    if "range_expectation" in rule:
        r = rule["range_expectation"]
        if not column:
            return "a range check needs a column"
        low, high = r.get("min_value"), r.get("max_value")
        bad = [f"{column} {'<=' if r.get('strict_min_enabled') else '<'} {low}"] if low is not None else []
        bad += [f"{column} {'>=' if r.get('strict_max_enabled') else '>'} {high}"] if high is not None else []
        return {
            "type": "sql",
            "query": f"SELECT COUNT(*) FROM {{object}} WHERE {' OR '.join(bad)}",
            "mustBe": 0,
        }, column
    if "row_condition_expectation" in rule:
        expr = rule["row_condition_expectation"].get("sql_expression")
        return {"type": "sql", "query": f"SELECT COUNT(*) FROM {{object}} WHERE NOT ({expr})", "mustBe": 0}, column
    if "statistic_range_expectation" in rule:
        s = rule["statistic_range_expectation"]
        fn = {"MEAN": "AVG", "MIN": "MIN", "MAX": "MAX"}.get(str(s.get("statistic")))
        low, high = s.get("min_value"), s.get("max_value")
        if fn is None or not column or s.get("strict_min_enabled") or s.get("strict_max_enabled"):
            return "this statistic check has no ODCS operator here"
        try:
            bounds = [float(b) if b is not None else None for b in (low, high)]
        except ValueError:
            return "a statistic check with non-numeric bounds has no ODCS operator"
        query = f"SELECT {fn}({column}) FROM {{object}}"
        if bounds[0] is not None and bounds[1] is not None:
            return {"type": "sql", "query": query, "mustBeBetween": [_clean(bounds[0]), _clean(bounds[1])]}, column
        if bounds[0] is not None:
            return {"type": "sql", "query": query, "mustBeGreaterOrEqualTo": _clean(bounds[0])}, column
        if bounds[1] is None:
            return "a statistic check without bounds has no ODCS operator"
        return {"type": "sql", "query": query, "mustBeLessOrEqualTo": _clean(bounds[1])}, column
    if "template_reference" in rule:
        return "a template_reference names a Dataplex rule template, which ODCS has no equivalent for"
    return "no rule type ODCS can say"


def _clean(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


_ORDER = ("id", "name", "description", "type", "metric", "rule", "arguments", "query", *OPERATORS, "unit", "dimension")


def _ordered(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in _ORDER if k in entry} | {k: v for k, v in entry.items() if k not in _ORDER}


def comparable(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry as the round trip compares it: `type: library` is the default, `rule` the deprecated
    spelling of `metric`."""
    out = dict(entry)
    if "rule" in out and "metric" not in out:
        out["metric"] = out.pop("rule")
    return out
