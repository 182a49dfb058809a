"""What a chapter saves is what a later chapter runs: ``#@save`` cells and ``compaction/course/built.py``.

A chapter code cell whose first line is ``#@save`` holds functions a later chapter plugs in (chapter
06 runs chapter 03's ``budget``, 04's ``snip`` and 05's ``micro`` in the package's pipeline). Every
function of such a cell is verbatim in ``compaction/course/built.py``, under a comment naming its
chapter, and the module holds no function that no chapter saved.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "compaction" / "course" / "built.py"
SAVE = "#@save"


def saved_cells() -> list[tuple[str, str]]:
    """(chapter file, cell source) for every chapter code cell whose first line is ``#@save``."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and cell.source.split("\n", 1)[0].strip() == SAVE:
                found.append((path.name, cell.source))
    return found


def definitions(source: str) -> dict[str, str]:
    """Name -> exact source text of each top-level function."""
    lines = source.split("\n")
    return {
        node.name: "\n".join(lines[node.lineno - 1 : node.end_lineno])
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    }


CELLS = saved_cells()


def test_the_chapters_save_the_three_cheap_layers_they_build():
    saved = {name: chapter for chapter, source in CELLS for name in definitions(source)}
    assert {saved.get("budget"), saved.get("snip"), saved.get("micro")} == {
        "03_store_and_budget.ipynb",
        "04_snip.ipynb",
        "05_micro.ipynb",
    }


@pytest.mark.parametrize(("chapter", "source"), CELLS, ids=[c[0] for c in CELLS])
def test_each_saved_function_is_verbatim_in_the_built_module_under_its_chapter(chapter, source):
    module = BUILT.read_text(encoding="utf-8")
    for name, text in definitions(source).items():
        assert f"# chapter {chapter[:2]}\n{text}\n" in module, (
            f"{chapter}: {name} is not verbatim in {BUILT.relative_to(ROOT)} under '# chapter {chapter[:2]}'"
        )


def test_the_built_module_holds_only_what_a_chapter_saved():
    saved = {name for _, source in CELLS for name in definitions(source)}
    extra = sorted(set(definitions(BUILT.read_text(encoding="utf-8"))) - saved)
    assert not extra, f"{BUILT.relative_to(ROOT)} defines {extra}, which no #@save cell holds"
