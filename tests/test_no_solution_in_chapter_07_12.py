"""No exercise answer of chapters 07-12 is in its chapter: the learner has to write it, not copy it."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from compaction.course.exercises import BEGIN, END

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = [p.name for p in sorted((ROOT / "solutions").glob("*.ipynb")) if "07" <= p.name[:2] <= "12"]


def code_lines(source: str) -> set[str]:
    """The lines of code, stripped, without blanks, comments and markers."""
    return {
        line.strip()
        for line in source.split("\n")
        if line.strip() and not line.strip().startswith("#") and line.strip() not in (BEGIN, END)
    }


def answers(solution: Path) -> list[set[str]]:
    """The code lines of each BEGIN/END SOLUTION region of a solution notebook."""
    found = []
    for cell in nbformat.read(solution, as_version=4).cells:
        if cell.cell_type != "code" or BEGIN not in cell.source:
            continue
        for region in cell.source.split(BEGIN)[1:]:
            found.append(code_lines(region.split(END)[0]))
    return found


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_answer_of_the_exercises_is_in_the_chapter(name):
    chapter = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    shown = set().union(*(code_lines(c.source) for c in chapter.cells if c.cell_type == "code"))
    for lines in answers(ROOT / "solutions" / name):
        copied = {line for line in lines if len(line) > 12} & shown  # short lines ("return None") are common
        assert len(copied) <= len(lines) // 4, (
            f"{name}: the chapter shows these lines of an answer: {sorted(copied)}"
        )


def test_a_copied_answer_would_be_found():
    answer = "\n".join(
        ["    total = sum(len(v) for v in per_file.values())", "    lines = [f'Search: {total}']"]
    )
    chapter = "def condense(output):\n" + answer
    lines, shown = code_lines(answer), code_lines(chapter)
    assert len({line for line in lines if len(line) > 12} & shown) > len(lines) // 4
