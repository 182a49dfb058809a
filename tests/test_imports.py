"""Imports run one way: core -> layers -> pipeline -> agent -> levels -> what a learner looks at -> course.

Every module of the package is placed in one tier; a module may import its own tier and the tiers
below it, never one above, and no set of modules may import each other in a circle. The offline
model may import only the core. Imports inside functions are read too, and only an optional
dependency may be imported there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "compaction"

# tier -> the modules in it (a name ending in ".*" covers a subpackage)
TIERS = {
    0: (
        "messages tokens store transcript placeholders api_errors events guards models summary_prompt "
        "paths failures recovery palette"
    ),
    1: "offline.*",
    2: "budget snip micro summary_request restore summarize reactive triggers prompt_cache instructions",
    3: "pipeline recent_turns",
    4: "shell tools agent backend session server_side compact_on_demand importers importers.*",
    5: "levels.*",
    6: "widgets.* plots evaluate.* replay.*",  # replay runs evaluate's strategies and probes
    7: "course.*",
    8: "__init__ __main__",
}
TIER_NAMES = {0: "core", 1: "offline model", 2: "layers", 3: "pipeline", 4: "agent", 5: "levels"}
OFFLINE_MAY_IMPORT = {0, 1}
# imported inside a function on purpose: the package works without them (a warning, or a static view)
OPTIONAL = {"tiktoken", "httpx", "httpx2", "ipywidgets"}


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
    """The tier a module is placed in, or None when the table above does not place it."""
    for tier, names in TIERS.items():
        for entry in names.split():
            if name == entry or (entry.endswith(".*") and (name + ".").startswith(entry[:-1])):
                return tier
    return None


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


def test_every_module_is_placed_in_a_tier():
    unplaced = [name for name in MODULES if tier_of(name) is None]
    assert unplaced == [], f"place these modules in TIERS of tests/test_imports.py: {unplaced}"


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
        elif mine == 1 and theirs not in OFFLINE_MAY_IMPORT:
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


def test_the_tier_check_catches_an_upward_import():
    assert tier_of("summarize") == 2 and tier_of("backend") == 4  # a layer reaching into the agent tier
    assert tier_of("levels.condense") == 5 and tier_of("course.checks.snip") == 7
    assert tier_of("not_a_module") is None
