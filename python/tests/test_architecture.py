"""docs/ARCHITECTURE.md stays complete: it names every Python module of python/dataplex_dq (by its path
relative to that folder, in backticks: `run/recorded.py`; a package's `__init__.py` may instead be named
by its folder, `run/`; the generated proto/*_pb2*.py are left out), every dispatched SQL primitive
(each X of adapter.dispatch('X', 'dataplex_dq') in macros/ and models/, in backticks: `X`), and its four
"Adding a ..." sections. And the modules of python/dataplex_dq import each other without a cycle (imports
under `if TYPE_CHECKING:` are not run, so they do not count)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "dataplex_dq"
DOC = ROOT / "docs" / "ARCHITECTURE.md"
DISPATCH = re.compile(r"""adapter\.dispatch\(\s*['"]([A-Za-z0-9_]+)['"]\s*,\s*['"]dataplex_dq['"]""")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
ADDING = ("Adding a rule type", "Adding a warehouse", "Adding an output", "Adding a command")


def python_modules() -> list[str]:
    """Every module's path relative to python/dataplex_dq, generated proto modules left out."""
    return sorted(
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if not (p.parent.name == "proto" and "_pb2" in p.name)
    )


def dispatched_names() -> list[str]:
    files = [*(ROOT / "macros").rglob("*.sql"), *(ROOT / "models").rglob("*.sql")]
    return sorted({name for f in files for name in DISPATCH.findall(f.read_text(encoding="utf-8"))})


def named_in(text: str) -> set[str]:
    return {span.strip() for span in CODE_SPAN.findall(text)}


def missing_modules(text: str) -> list[str]:
    spans = named_in(text)
    missing = []
    for module in python_modules():
        folder = module.rsplit("/", 1)[0] + "/" if "/" in module else None
        if module in spans or (module.endswith("/__init__.py") and folder in spans):
            continue
        missing.append(module)
    return missing


def missing_primitives(text: str) -> list[str]:
    spans = named_in(text)
    return [name for name in dispatched_names() if name not in spans]


def headings(text: str) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.*)$", text, re.MULTILINE)}


def test_the_inputs_are_found():
    """The lists the other tests check against are not empty by mistake (a moved folder, a changed regex)."""
    modules = python_modules()
    assert {"run/recorded.py", "outputs/base.py", "cli/main.py", "__init__.py"} <= set(modules)
    assert not [m for m in modules if "_pb2" in m]
    names = dispatched_names()
    assert len(names) >= 60 and {"scope_select", "json_text_field", "type_double"} <= set(names)
    assert sorted(p.stem for p in (ROOT / "macros" / "cross_db").glob("*.sql")) == names


def test_every_python_module_is_named():
    assert missing_modules(DOC.read_text(encoding="utf-8")) == []


def test_every_dispatched_primitive_is_named():
    assert missing_primitives(DOC.read_text(encoding="utf-8")) == []


def test_the_adding_sections_exist():
    found = headings(DOC.read_text(encoding="utf-8"))
    assert [h for h in ADDING if h not in found] == []


def test_a_name_left_out_is_found():
    """The checks fail when the document misses a name: a module, a package named by its folder only, a
    primitive, a heading."""
    text = DOC.read_text(encoding="utf-8")
    without_module = text.replace("`run/recorded.py`", "run/recorded.py")
    assert missing_modules(without_module) == ["run/recorded.py"]
    without_init = text.replace("`warehouse/__init__.py`", "warehouse/__init__.py").replace("`warehouse/`", "")
    assert missing_modules(without_init) == ["warehouse/__init__.py"]
    assert missing_modules(without_init + "\n`warehouse/`\n") == []
    without_primitive = text.replace("`scope_select`", "scope_select")
    assert missing_primitives(without_primitive) == ["scope_select"]
    assert "Adding an output" not in headings(text.replace("## Adding an output", "Adding an output"))


# ----------------------------------------------------------------------------------------- import cycles


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement run at some point (module level or inside a function), except under
    `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the dataplex_dq modules it imports (`from pkg import name` is the module pkg.name when
    that is a module, else pkg)."""
    paths = {module_name(PACKAGE / m): PACKAGE / m for m in python_modules()}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        is_package = path.name == "__init__.py"
        deps: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            deps |= {t for t in targets if t in paths and t != name}
        graph[name] = deps
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state and (cycle := visit(dep)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle():
    graph = import_graph()
    assert "dataplex_dq.run.recorded" in graph["dataplex_dq.run.report"]  # the graph is read at all
    assert "dataplex_dq.record.lean_build" in graph["dataplex_dq.cli.build"]  # `from pkg import module`
    assert find_cycle(graph) is None


def test_a_cycle_is_found():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    graph = import_graph()
    graph["dataplex_dq.run.cost"] = {*graph["dataplex_dq.run.cost"], "dataplex_dq.run.report"}
    assert find_cycle(graph) is not None


def test_type_checking_imports_do_not_count(tmp_path):
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\nelse:\n    import b\n"
        "def f():\n    import c\n"
    )
    assert sorted(a.name for n in _imports(tree) for a in n.names if isinstance(n, ast.Import)) == ["b", "c"]
