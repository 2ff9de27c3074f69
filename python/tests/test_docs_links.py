"""The repository's Markdown stays true: every `](#anchor)` names a heading (as GitHub computes its
anchor), every relative link names a file that exists, and every repository path a document names
in backticks (`macros/...`, `python/...`) exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "demo").glob("*.md"),
        *(p for p in (ROOT / "integration_tests").rglob("*.md") if not {"dbt_packages", "target"} & set(p.parts)),
    ],
    key=lambda p: p.relative_to(ROOT).as_posix(),
)
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
TOP_DIRS = ("macros", "python", "models", "integration_tests", "docs", "scripts", "demo", "protos", ".ci")
REPO_PATH = re.compile(rf"^(?:{'|'.join(re.escape(d) for d in TOP_DIRS)})/[\w./*-]*$")
PATH_TOKEN = re.compile(rf"(?<![\w/.-])((?:{'|'.join(re.escape(d) for d in TOP_DIRS)})/[\w./*-]*\w)")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a YAML block is not a heading)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: the rendered text lower-cased, every character other than a
    letter, digit, `_`, `-` or space removed, spaces turned into hyphens (underscores stay)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").replace("**", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if not m:
            continue
        base = github_anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[str]:
    return [a or b for line in prose_lines(path.read_text(encoding="utf-8")) for a, b in LINK.findall(line)]


def test_anchor_rule_keeps_underscores_and_drops_punctuation():
    assert github_anchor("Notifications (`post_scan_actions.notification_report`)") == (
        "notifications-post_scan_actionsnotification_report"
    )
    assert github_anchor("The scan lifecycle: incremental scans, post-scan actions, catalog publishing") == (
        "the-scan-lifecycle-incremental-scans-post-scan-actions-catalog-publishing"
    )
    assert github_anchor("7. Scores and pass/fail") == "7-scores-and-passfail"
    assert github_anchor("data_quality_scan (one scan per table)") == "data_quality_scan-one-scan-per-table"


def test_heading_inside_a_code_block_is_not_a_heading(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("# Title\n\n```yaml\n# packages.yml\n```\n\n## Title\n", encoding="utf-8")
    assert anchors(doc) == {"title", "title-1"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(doc: Path):
    problems = []
    for target in links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (doc.parent / file_part).resolve() if file_part else doc
        if not linked.exists():
            problems.append(f"{target}: no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no heading with anchor #{anchor} in {linked.relative_to(ROOT)}")
    assert problems == []


def named_paths(doc: Path) -> list[str]:
    """Repository paths a document names: in backticks in its prose, and anywhere in its plain (no
    language) fenced blocks, the diagrams. Build outputs (`demo/target/...`, `*.duckdb`) are left out."""
    out, fenced, plain = [], False, False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            plain = fenced and line.strip().strip("`~") == ""
            continue
        if not fenced:
            out += [s.rstrip(".,:;") for s in CODE_SPAN.findall(line)]
        elif plain:
            out += PATH_TOKEN.findall(line)
    return [p for p in out if REPO_PATH.match(p) and "target" not in p.split("/") and not p.endswith(".duckdb")]


def test_paths_named_in_prose_and_diagrams(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `macros/rules/` and `demo/target/x.json`.\n\n```\na ─► macros/scope.sql\n```\n\n"
        "```yaml\n# models/schema.yml\n```\n",
        encoding="utf-8",
    )
    assert named_paths(doc) == ["macros/rules/", "macros/scope.sql"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_repository_path_named_exists(doc: Path):
    missing = [p for p in named_paths(doc) if not (list(ROOT.glob(p)) if "*" in p else (ROOT / p).exists())]
    assert missing == []


def test_each_rule_section_links_its_macro():
    """Each rule type's README section links the file that defines its dbt test."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rules = sorted(p.stem for p in (ROOT / "macros" / "rules").glob("*.sql") if not p.stem.startswith("_"))
    assert "range_expectation" in rules and "data_quality_scan" in rules
    unlinked = [r for r in rules if f"](macros/rules/{r}.sql)" not in readme]
    assert unlinked == []
