"""Imports run one way, and the folders show it: core -> presentation -> offline -> layers -> ... -> course.

Every module of the package lives in a folder named for its tier (only ``__init__`` and ``__main__``
sit at the top), and its tier is read from that folder. A module may import its own tier and the
tiers before it, never one after, and no set of modules may import each other in a circle. The
offline model may import only the core. Imports inside functions are read too, and only an optional
dependency may be imported there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "compaction"

# the tier folders, in the order imports may run (a folder imports its own and the ones before it)
TIERS = (
    "core",
    "presentation",
    "offline",
    "layers",
    "pipeline",
    "agent",
    "importers",
    "levels",
    "evaluate",
    "views",
    "course",
)
TOP = len(TIERS)  # compaction/__init__.py and compaction/__main__.py: the entry points, above every tier
TOP_LEVEL = {"__init__", "__main__"}
OFFLINE_MAY_IMPORT = {TIERS.index("core"), TIERS.index("offline")}
# imported inside a function on purpose: the package works without them (a warning, or a static view)
OPTIONAL = {"tiktoken", "httpx", "httpx2", "ipywidgets", "ipykernel"}  # ipykernel: the course extra


def module_name(path: Path) -> str:
    """compaction/levels/condense.py -> levels.condense; compaction/offline/__init__.py -> offline."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package (the practice project the offline agent works on left out)."""
    project = PACKAGE / "offline" / "project"
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if not p.is_relative_to(project)}


def tier_of(name: str) -> int | None:
    """The tier of a module, read from its folder; None for a module outside every tier folder."""
    if name in TOP_LEVEL:
        return TOP
    folder = name.split(".")[0]
    return TIERS.index(folder) if folder in TIERS else None


def imports_of(path: Path, known: set[str]) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function) for every import of a package module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for alias in child.names:  # "from compaction.offline import scenario" names a module
                    sub = f"{child.module}.{alias.name}"
                    target = sub if sub.removeprefix("compaction.") in known else child.module
                    found.append((target, child.lineno, in_function))
            visit(child, inside)

    visit(tree, False)
    return found


MODULES = modules()
EDGES = {
    name: [(t.removeprefix("compaction."), line, inner) for t, line, inner in imports_of(path, set(MODULES))]
    for name, path in MODULES.items()
}


def package_edges(name: str) -> list[tuple[str, int, bool]]:
    return [(t, line, inner) for t, line, inner in EDGES[name] if t in MODULES and t != name]


def test_every_module_sits_in_a_folder_named_for_its_tier():
    unplaced = [name for name in MODULES if tier_of(name) is None]
    assert unplaced == [], f"move these modules into a tier folder {TIERS}: {unplaced}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_run_down_the_tiers(name):
    mine = tier_of(name)
    wrong = []
    for target, line, _ in package_edges(name):
        theirs = tier_of(target)
        if mine is None or theirs is None:
            continue
        if theirs > mine:
            wrong.append(f"{name} (tier {mine}) imports {target} (tier {theirs}) at line {line}")
        elif mine == TIERS.index("offline") and theirs not in OFFLINE_MAY_IMPORT:
            wrong.append(f"{name}: the offline model imports {target} at line {line}; only the core may be")
    assert wrong == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_inside_a_function_except_an_optional_dependency(name):
    inner = [
        f"{name} line {line}: import of {target} inside a function"
        for target, line, inside in EDGES[name]
        if inside and target.split(".")[0] not in OPTIONAL
    ]
    assert inner == []


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_two_modules_import_each_other_even_through_others():
    graph = {name: sorted({t for t, _, _ in package_edges(name)}) for name in MODULES}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_and_names_its_modules():
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b"], "b": ["c"], "c": []}) is None


def test_the_tier_is_read_from_the_folder():
    assert tier_of("layers.summarize") < tier_of("agent.backend")  # a layer reaching into the agent: upward
    assert tier_of("levels.condense") < tier_of("course.checks.snip") < tier_of("__main__")
    assert tier_of("snip") is None  # a module left at the top of the package is in no tier
    assert tier_of("not_a_folder.module") is None


def test_the_scripted_agent_never_imports_the_offline_server():
    """The server asks the scripted agent for each turn; the agent knows nothing of HTTP or the server."""
    wrong = [
        f"{name} imports {target} at line {line}"
        for name in MODULES
        if name.startswith("offline.scripted")
        for target, line, _ in package_edges(name)
        if target.startswith("offline.server")
    ]
    assert wrong == []
