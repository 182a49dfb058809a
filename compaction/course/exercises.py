"""Exercises generated from solutions: every solution region becomes a stub with a hint.

Each region between a ``### BEGIN SOLUTION`` line and its ``### END SOLUTION`` line becomes
``raise NotImplementedError("<hint>")`` at the marker's indentation (an optional first line
``# Hint: ...`` inside the region is kept and gives the hint); outputs are cleared. A solution of the
Japanese edition (a folder marked ``ja``, ``ja/solutions``) gets its hint in Japanese when
``compaction.presentation.texts_ja.HINTS`` has it, in the comment and the message alike: the code
cells of ``ja/solutions`` are the English ones, so the hint can only be translated here. Deliberately
left out: grading and hidden tests; a check is a table the learner reads.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat

from compaction.presentation.language import marked_language
from compaction.presentation.texts_ja import HINTS

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
HINT_PREFIX = "# Hint:"
DEFAULT_HINT = "replace this line with your solution"


class MarkerError(ValueError):
    """Solution markers that do not pair up: names the file, the cell and the line."""


def strip_solutions(source: str, *, where: str = "cell", edition: str = "en") -> str:
    """Replace every BEGIN/END SOLUTION region of one cell's source by a NotImplementedError stub."""
    out: list[str] = []
    region: list[str] | None = None  # lines inside the open region
    indent = ""
    for number, line in enumerate(source.split("\n"), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if region is not None:
                raise MarkerError(f"{where}, line {number}: {BEGIN} inside an open solution region")
            region, indent = [], line[: len(line) - len(line.lstrip())]
        elif marker == END:
            if region is None:
                raise MarkerError(f"{where}, line {number}: {END} without a {BEGIN} before it")
            out.extend(_stub(region, indent, edition))
            region = None
        elif region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise MarkerError(f"{where}: {BEGIN} without a matching {END}")
    return "\n".join(out)


def _stub(region: list[str], indent: str, edition: str = "en") -> list[str]:
    first = region[0].strip() if region else ""
    if first.startswith(HINT_PREFIX):
        hint = first[len(HINT_PREFIX) :].strip() or DEFAULT_HINT
        if edition == "ja" and hint in HINTS:
            hint = HINTS[hint]
            first = f"{HINT_PREFIX} {hint}"
        return [indent + first, f"{indent}raise NotImplementedError({json.dumps(hint, ensure_ascii=False)})"]
    return [f"{indent}raise NotImplementedError({json.dumps(DEFAULT_HINT)})"]


def build_exercise(
    solution: nbformat.NotebookNode, *, name: str = "notebook", edition: str = "en"
) -> nbformat.NotebookNode:
    """The exercise form of a solution notebook: answers stubbed, outputs and run metadata cleared."""
    nb = copy.deepcopy(solution)
    kernelspec = nb.metadata.get("kernelspec")
    language = nb.metadata.get("language_info", {}).get("name")
    nb.metadata = nbformat.NotebookNode()
    if kernelspec:
        nb.metadata["kernelspec"] = kernelspec
    if language:
        nb.metadata["language_info"] = {"name": language}
    for index, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, where=f"{name}, cell {index}", edition=edition)
        cell.outputs = []
        cell.execution_count = None
    return nb


def exercise_text(solution_path: Path) -> str:
    """The exact file content build-exercises writes for one solution notebook."""
    solution = nbformat.read(solution_path, as_version=4)
    edition = marked_language(solution_path.parent) or "en"  # ja/solutions: ja (ja/.course-language)
    text = nbformat.writes(build_exercise(solution, name=str(solution_path), edition=edition))
    return text if text.endswith("\n") else text + "\n"  # as nbformat.write ends its files


def build_exercises(solutions: Path, exercises: Path, *, check: bool = False) -> list[str]:
    """Write (or, with check, compare) every exercise; return the names of files that differ."""
    sources = sorted(solutions.glob("*.ipynb")) if solutions.is_dir() else []
    differing: list[str] = []
    for path in sources:
        target = exercises / path.name
        text = exercise_text(path)
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == text:
            continue
        differing.append(f"{target} (missing)" if current is None else str(target))
        if not check:
            exercises.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    wanted = {p.name for p in sources}
    orphans = sorted(exercises.glob("*.ipynb")) if exercises.is_dir() else []
    differing += [f"{p} (no solution {solutions / p.name})" for p in orphans if p.name not in wanted]
    return differing
