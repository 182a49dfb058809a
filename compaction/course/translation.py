"""The Japanese edition kept in step with the English one, cell by cell.

``ja/notebooks/`` and ``ja/solutions/`` hold one notebook per English one, with the same cells in the
same order: every code cell byte for byte the English one; every markdown cell a translation whose
metadata names the English cell it translates and a hash of that cell's source when it was
translated (``{"translation": {"of": "<cell id>", "sha256": "<hex>"}}``). ``differences`` lists, for
one pair, each cell that is out of step (the chapter and the cell named): an English cell changed
since its translation, a code cell that differs, a cell with no counterpart, a markdown cell never
translated. ``sync`` copies the English code cells into a ja notebook and keeps every translation
(marking nothing as translated); ``translate`` writes translations with their hashes. Exercises of
the ja edition are generated from ``ja/solutions/`` as the English ones are. Deliberately left out:
judging a translation (a reader does that); outputs, which come from running the ja notebook.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from pathlib import Path

import nbformat

EDITIONS = {"ja": Path("ja")}  # language -> its folder under the course root
FOLDERS = ("notebooks", "solutions")  # translated by hand; exercises are generated from solutions
KEY = "translation"


class TranslationError(ValueError):
    """A translation that cannot be written: names the notebook or the cell."""


def source_hash(source: str) -> str:
    """The SHA-256 of a cell's source, as hex."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def counterpart(english: Path, root: Path, language: str = "ja") -> Path:
    """The translated notebook of an English one: ``notebooks/x.ipynb`` -> ``ja/notebooks/x.ipynb``."""
    return root / EDITIONS[language] / english.resolve().relative_to(root.resolve())


def original(translated: Path, root: Path, language: str = "ja") -> Path:
    """The English notebook a translated one translates: ``ja/notebooks/x.ipynb`` -> ``notebooks/x.ipynb``."""
    folder = (root / EDITIONS[language]).resolve()
    try:
        return root / translated.resolve().relative_to(folder)
    except ValueError:
        raise TranslationError(f"{translated}: not a notebook of the edition's folder {folder}") from None


def english_notebooks(root: Path) -> list[Path]:
    """Every English notebook an edition translates (chapters and solutions), in course order."""
    return [p for folder in FOLDERS for p in sorted((root / folder).glob("*.ipynb"))]


def sync_all(root: Path, language: str = "ja") -> None:
    """Write each English notebook's counterpart: its code cells, and every translation kept."""
    for path in english_notebooks(root):
        other = counterpart(path, root, language)
        before = nbformat.read(other, as_version=4) if other.is_file() else None
        other.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(sync(nbformat.read(path, as_version=4), before), other)


def apply(target: Path, texts: Mapping[str, str], root: Path, language: str = "ja") -> None:
    """Write ``texts`` (English cell id -> translation) into the translated notebook ``target``."""
    if not isinstance(texts, Mapping):
        raise TranslationError(
            f"the translations must be a JSON object of cell id -> text, not {type(texts).__name__}"
        )
    english = original(target, root, language)
    if not english.is_file() or not target.is_file():
        raise TranslationError(f"{target}: no such translated notebook, or no English {english}")
    nb = nbformat.read(target, as_version=4)
    translate(nbformat.read(english, as_version=4), nb, texts)
    nbformat.write(nb, target)


def _label(index: int, cell: nbformat.NotebookNode) -> str:
    first = next((line for line in cell.source.splitlines() if line.strip()), "")
    first = first if len(first) <= 50 else first[:47] + "..."
    return f"cell {index} ({cell.cell_type} {cell.get('id', '?')}: {first!r})"


def differences(english: nbformat.NotebookNode, translated: nbformat.NotebookNode, name: str) -> list[str]:
    """Each way ``translated`` is out of step with ``english``, one line naming the chapter and the cell."""
    found = []
    for index in range(max(len(english.cells), len(translated.cells))):
        if index >= len(translated.cells):
            found.append(f"{name}: {_label(index, english.cells[index])} has no translated counterpart")
            continue
        cell = translated.cells[index]
        if index >= len(english.cells):
            found.append(f"{name}: translated {_label(index, cell)} has no English counterpart")
            continue
        source = english.cells[index]
        where = f"{name}: {_label(index, source)}"
        if cell.cell_type != source.cell_type:
            found.append(f"{where} is a {cell.cell_type} cell in the translation")
        elif source.cell_type != "markdown":
            if cell.source != source.source:
                found.append(f"{where}: the code differs from the English (run translation sync)")
        else:
            record = cell.get("metadata", {}).get(KEY)
            if not record:
                found.append(f"{where} is not translated")
            elif record.get("of") != source.get("id"):
                found.append(f"{where}: the translation here translates cell {record.get('of')!r}")
            elif record.get("sha256") != source_hash(source.source):
                found.append(f"{where} changed since it was translated")
    return found


def sync(english: nbformat.NotebookNode, translated: nbformat.NotebookNode | None) -> nbformat.NotebookNode:
    """A ja notebook with the English cells, keeping every translation and every unchanged code cell.

    A translated markdown cell is kept by the English cell id it records; a code cell whose source is
    still the English one keeps its Japanese outputs. A code cell the English changed comes with the
    English outputs: re-execute the ja notebook after a sync that changed code.
    """
    kept = {}
    for cell in translated.cells if translated is not None else []:
        record = cell.get("metadata", {}).get(KEY)
        if cell.cell_type == "markdown" and record:
            kept[record.get("of")] = cell
        elif cell.cell_type == "code":
            kept[cell.get("id")] = cell
    result = copy.deepcopy(english)
    for index, cell in enumerate(result.cells):
        mine = kept.get(cell.get("id"))
        if mine is not None and mine.cell_type == cell.cell_type:
            if cell.cell_type == "markdown" or mine.source == cell.source:
                result.cells[index] = copy.deepcopy(mine)
    if translated is not None:
        result.metadata = copy.deepcopy(translated.metadata)
    return result


def translate(
    english: nbformat.NotebookNode, translated: nbformat.NotebookNode, texts: Mapping[str, str]
) -> None:
    """Set the translation of each English markdown cell id in ``texts``, with its English cell's hash."""
    by_id = {cell.get("id"): cell for cell in english.cells}
    for cell_id, text in texts.items():
        source = by_id.get(cell_id)
        if source is None or source.cell_type != "markdown":
            raise TranslationError(f"no English markdown cell with id {cell_id!r}")
        index = english.cells.index(source)
        target = translated.cells[index] if index < len(translated.cells) else {}
        if target.get("id") != cell_id and target.get("metadata", {}).get(KEY, {}).get("of") != cell_id:
            raise TranslationError(
                f"cell {index} of the translation is not the counterpart of {cell_id!r}: sync first"
            )
        target.source = text
        target.metadata[KEY] = {"of": cell_id, "sha256": source_hash(source.source)}


def out_of_step(root: Path, language: str = "ja") -> list[str]:
    """Every difference between the English notebooks and an edition's, and each missing notebook."""
    found = []
    for path in english_notebooks(root):
        other = counterpart(path, root, language)
        name = str(other.relative_to(root))
        if not other.is_file():
            found.append(f"{name}: missing (the translation of {path.relative_to(root)})")
            continue
        found += differences(nbformat.read(path, as_version=4), nbformat.read(other, as_version=4), name)
    return found
