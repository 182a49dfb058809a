"""A function shown in a chapter is the package's function: every def/class is verbatim in its module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADER = re.compile(r"^#\s*(compaction/[\w/]+\.py)\s*$")  # first line of a cell that shows package code
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def shown_cells(folders=("notebooks", "solutions")) -> list[tuple[str, str, str]]:
    """(where, module path, cell source) for every code cell whose first line names a module."""
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            for index, cell in enumerate(nb.cells):
                first = cell.source.split("\n", 1)[0] if cell.cell_type == "code" else ""
                if match := HEADER.match(first):
                    found.append((f"{folder}/{path.name} cell {index}", match.group(1), cell.source))
    return found


def definitions(source: str) -> list[tuple[str, str]]:
    """(name, exact source text) of each top-level def/class, decorators included."""
    lines = source.split("\n")
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found.append((node.name, "\n".join(lines[start - 1 : node.end_lineno])))
    return found


def sync_problems(cell_source: str, module_source: str) -> list[str]:
    """What in a shown cell differs from its module; solution marker lines are ignored."""
    kept = "\n".join(line for line in cell_source.split("\n") if line.strip() not in MARKERS)
    try:
        defs = definitions(kept)
    except SyntaxError as exc:
        return [f"the cell is not plain Python: {exc}"]
    if not defs:
        return ["the cell names a module but defines no function or class"]
    return [f"{name} is not verbatim in the module" for name, text in defs if text not in module_source]


CELLS = shown_cells()


@pytest.mark.skipif(not CELLS, reason="no notebook shows package code yet")
@pytest.mark.parametrize("where, module, source", CELLS, ids=[c[0] for c in CELLS])
def test_each_function_shown_in_a_notebook_is_verbatim_in_its_module(where, module, source):
    path = ROOT / module
    assert path.is_file(), f"{where} names {module}, which does not exist"
    assert sync_problems(source, path.read_text(encoding="utf-8")) == [], where


MODULE = '''def first_user(messages):
    """The first user message."""
    return next(m for m in messages if m["role"] == "user")


class Note:
    pass
'''


def test_a_cell_copied_verbatim_is_in_sync():
    cell = "# compaction/example.py\n" + MODULE
    assert sync_problems(cell, MODULE) == []


def test_a_function_edited_in_the_notebook_is_caught():
    cell = "# compaction/example.py\n" + MODULE.replace('== "user"', '== "assistant"')
    assert sync_problems(cell, MODULE) == ["first_user is not verbatim in the module"]


def test_solution_markers_inside_a_shown_function_are_ignored():
    cell = MODULE.replace("    return next", "    ### BEGIN SOLUTION\n    return next").replace(
        '"user")\n', '"user")\n    ### END SOLUTION\n'
    )
    assert sync_problems("# compaction/example.py\n" + cell, MODULE) == []


def test_a_header_cell_without_definitions_or_with_magics_is_reported():
    assert sync_problems("# compaction/example.py\nx = 1", MODULE) != []
    assert "not plain Python" in sync_problems("# compaction/example.py\n%time f()", MODULE)[0]


def test_the_header_names_a_module_path():
    assert HEADER.match("# compaction/offline/server.py").group(1) == "compaction/offline/server.py"
    assert HEADER.match("# see compaction/layers/snip.py for more") is None
