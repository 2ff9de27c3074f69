"""A lint for BigQuery SQL: what Google's analyzer (bigquery_analyzer.py) does not check but BigQuery
refuses, or what is valid GoogleSQL by accident and means something else elsewhere.

* at most one TABLESAMPLE per table in one statement ("A sampled table can only appear once in a query
  statement"), and TABLESAMPLE only on relations known to be tables (not views, external tables);
* a table's PARTITION BY from BigQuery's list of partition expressions;
* at most 1,024,000 characters per statement;
* no constructs of other dialects (PostgreSQL / DuckDB): `::` casts, `FILTER (WHERE`, `ILIKE`,
  `USING SAMPLE`, `random()`, `regexp_matches`, `try_cast`, `double precision`, `[NOT] MATERIALIZED`
  CTEs, `now()`, `AT TIME ZONE`, `generate_series`, ...

String literals, quoted identifiers and comments are blanked out before the checks, so a rule's
description or a SQL text stored in a literal does not count.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_STATEMENT_CHARS = 1_024_000

# (pattern over the code with literals blanked, what it is)
FOREIGN_CONSTRUCTS = [
    (r"::", "a PostgreSQL `::` cast (use CAST(x AS type))"),
    (r"\bfilter\s*\(\s*where\b", "an aggregate FILTER (WHERE ...) clause (use COUNTIF / CASE inside the aggregate)"),
    (r"\bilike\b", "ILIKE (use LOWER(x) LIKE ...)"),
    (r"\busing\s+sample\b", "DuckDB's USING SAMPLE (use TABLESAMPLE SYSTEM (p PERCENT) or RAND())"),
    (r"\brandom\s*\(", "random() (BigQuery's is RAND())"),
    (r"\bregexp_matches\s*\(", "regexp_matches() (use REGEXP_CONTAINS)"),
    (r"\btry_cast\s*\(", "TRY_CAST (use SAFE_CAST)"),
    (r"\bdouble\s+precision\b", "the type DOUBLE PRECISION (use FLOAT64)"),
    (r"\bas\s+(?:not\s+)?materialized\s*\(", "a [NOT] MATERIALIZED CTE"),
    (r"\bnow\s*\(", "now() (use CURRENT_TIMESTAMP())"),
    (r"\bat\s+time\s+zone\b", "AT TIME ZONE (use DATETIME(ts, tz) / TIMESTAMP(dt, tz))"),
    (r"\bgenerate_series\s*\(", "generate_series() (use GENERATE_ARRAY / UNNEST)"),
    (r"\brepeatable\s*\(", "TABLESAMPLE ... REPEATABLE (BigQuery's sampler takes no seed)"),
    (r"\btablesample\s+bernoulli\b", "TABLESAMPLE BERNOULLI (BigQuery samples with SYSTEM)"),
    (r"\blimit\s+all\b", "LIMIT ALL"),
    (r"\bsimilar\s+to\b", "SIMILAR TO"),
]

# BigQuery's partition expressions (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-definition-language#partition_expression)
_COL = r"(?:`[^`]+`|[a-z_][a-z0-9_]*)"
ALLOWED_PARTITIONS = [
    r"_partitiondate",
    r"date\s*\(\s*_partitiontime\s*\)",
    _COL,
    rf"date\s*\(\s*{_COL}\s*\)",
    rf"(?:datetime_trunc|timestamp_trunc)\s*\(\s*{_COL}\s*,\s*(?:day|hour|month|year)\s*\)",
    rf"date_trunc\s*\(\s*{_COL}\s*,\s*(?:month|year)\s*\)",
    rf"range_bucket\s*\(\s*{_COL}\s*,\s*generate_array\s*\(\s*-?\d+\s*,\s*-?\d+\s*(?:,\s*\d+\s*)?\)\s*\)",
]

_TOKEN = re.compile(
    r"""(?P<comment>--[^\n]*|\#[^\n]*|/\*.*?\*/)
      | (?P<string>[rRbB]{0,2}(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
      | (?P<ident>`(?:\\.|[^`\\])*`)""",
    re.S | re.X,
)
_NAME = r"(?:`[^`]+`|[A-Za-z_][\w-]*)"
_TABLESAMPLE = re.compile(
    rf"(?:\bfrom|\bjoin|,)\s*({_NAME}(?:\s*\.\s*{_NAME})*)\s+(?:(?:as\s+)?(?!tablesample\b)[A-Za-z_]\w*\s+)?tablesample\b",
    re.I,
)


def code_only(sql: str, keep_identifiers: bool = False) -> str:
    """The SQL with comments and string literals blanked (same length), and quoted identifiers too
    unless keep_identifiers."""

    def blank(m: re.Match) -> str:
        if m.lastgroup == "ident" and keep_identifiers:
            return m.group(0)
        text = m.group(0)
        return text[0] + " " * (len(text) - 2) + text[-1] if m.lastgroup != "comment" else " " * len(text)

    return _TOKEN.sub(blank, sql)


def table_name(text: str) -> tuple[str, ...]:
    return tuple(p.strip().strip("`").lower() for p in re.findall(_NAME, text))


def lint(sql: str, is_table: Callable[[tuple[str, ...]], bool | None]) -> list[str]:
    """Problems of one BigQuery statement. `is_table(path)` says whether the relation (project,
    dataset, table) is a table (True), a view or other relation (False), or unknown (None)."""
    problems = []
    if len(sql) > MAX_STATEMENT_CHARS:
        problems.append(f"the statement has {len(sql):,} characters; BigQuery allows at most {MAX_STATEMENT_CHARS:,}")
    code = code_only(sql)
    for pattern, what in FOREIGN_CONSTRUCTS:
        m = re.search(pattern, code, re.I)
        if m:
            problems.append(f"{what}: `{sql[max(0, m.start() - 30) : m.end() + 30].strip()}`")
    with_names = code_only(sql, keep_identifiers=True)
    sampled: dict[tuple[str, ...], int] = {}
    for m in _TABLESAMPLE.finditer(with_names):
        path = table_name(m.group(1))
        sampled[path] = sampled.get(path, 0) + 1
    for path, n in sampled.items():
        name = ".".join(path)
        if n > 1:
            problems.append(
                f"table {name} is sampled {n} times in one statement; a sampled table can only appear once in a "
                "BigQuery statement"
            )
        kind = is_table(path)
        if kind is not True:
            problems.append(
                f"TABLESAMPLE on {name}, which is {'not a table' if kind is False else 'not known to be a table'}; "
                "BigQuery samples tables only (not views)"
            )
    problems.extend(_partition_problems(with_names))
    return problems


def _partition_problems(code: str) -> list[str]:
    """PARTITION BY of a CREATE TABLE (not a window's) against BigQuery's partition expressions."""
    m = re.match(r"\s*create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?table\b", code, re.I)
    if not m:
        return []
    # the table's options come before its AS (query); a window's PARTITION BY comes after
    head = re.split(r"\bas\s*(?:\(|select\b|with\b)", code[m.end() :], maxsplit=1, flags=re.I)[0]
    p = re.search(r"\bpartition\s+by\s+(.*?)(?=\bcluster\s+by\b|\boptions\s*\(|$)", head, re.I | re.S)
    if not p:
        return []
    expr = p.group(1).strip()
    if any(re.fullmatch(a, expr, re.I | re.S) for a in ALLOWED_PARTITIONS):
        return []
    return [
        f"PARTITION BY {expr} is not one of BigQuery's partition expressions (a DATE column, DATE(ts), "
        "TIMESTAMP_TRUNC/DATETIME_TRUNC(col, DAY|HOUR|MONTH|YEAR), DATE_TRUNC(col, MONTH|YEAR), _PARTITIONDATE, "
        "RANGE_BUCKET(int_col, GENERATE_ARRAY(...)))"
    ]
