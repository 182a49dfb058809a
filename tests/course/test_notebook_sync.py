"""What a chapter saves is what a later chapter runs: ``#@save`` cells and ``compaction/course/built.py``.

A chapter code cell whose first line is ``#@save`` holds functions a later chapter plugs in (chapter
06 runs chapter 03's ``budget``, 04's ``snip`` and 05's ``micro`` in the package's pipeline). Every
function of such a cell is verbatim in ``compaction/course/built.py``, under a comment naming its
chapter, and the module holds no function that no chapter saved. A saved function is the chapter's
last word on it: no later code cell of the same chapter defines the same name again (a chapter that
fixes a saved function saves the fixed one, or ``built.py`` keeps the version the chapter replaced).
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "compaction" / "course" / "built.py"
SAVE = "#@save"


def chapter_code(path: Path) -> list[str]:
    """The sources of a chapter's code cells, in order."""
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def is_saved(source: str) -> bool:
    """True for a cell whose first line is ``#@save``."""
    return source.split("\n", 1)[0].strip() == SAVE


def saved_cells() -> list[tuple[str, str]]:
    """(chapter file, cell source) for every chapter code cell whose first line is ``#@save``."""
    return [
        (path.name, source)
        for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
        for source in chapter_code(path)
        if is_saved(source)
    ]


def replaced_saves(sources: list[str]) -> list[str]:
    """Each saved function that a later code cell defines again, named by the two code cells."""
    saved: dict[str, int] = {}  # name -> index of the code cell that saved it
    found = []
    for index, source in enumerate(sources):
        for name in definitions(source):
            if name in saved:
                found.append(f"code cell {saved[name]} saves {name}, code cell {index} defines it again")
        if is_saved(source):
            saved.update(dict.fromkeys(definitions(source), index))
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


@pytest.mark.parametrize("chapter", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_no_later_cell_of_a_chapter_replaces_a_function_it_saved(chapter):
    replaced = replaced_saves(chapter_code(chapter))
    assert not replaced, (
        f"{chapter.name}: {'; '.join(replaced)}: built.py would keep a version the chapter replaced; "
        "put #@save on the last definition"
    )


def test_a_saved_function_defined_again_later_is_found_and_a_new_name_is_not():
    first = f"{SAVE}\ndef snip(messages):\n    return messages\n"
    later = "def snip(messages):\n    return list(messages)\n"
    assert replaced_saves([first, "x = 1", later]) == ["code cell 0 saves snip, code cell 2 defines it again"]
    assert replaced_saves([later, first]) == []  # an earlier draft, then the saved version
    assert replaced_saves([first, "def note_for(name):\n    return name\n"]) == []
    twice = ["code cell 0 saves snip, code cell 1 defines it again"]
    assert replaced_saves([first, f"{SAVE}\n{later}"]) == twice


def test_the_built_module_holds_only_what_a_chapter_saved():
    saved = {name for _, source in CELLS for name in definitions(source)}
    extra = sorted(set(definitions(BUILT.read_text(encoding="utf-8"))) - saved)
    assert not extra, f"{BUILT.relative_to(ROOT)} defines {extra}, which no #@save cell holds"
