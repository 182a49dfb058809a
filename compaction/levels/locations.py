"""Locations: the file paths and line numbers a tool output cites, and a compact way to write them.

``references`` finds paths (with a slash, or a known extension) and their line numbers in the forms
tools print them: ``path:12``, Python's ``File "path", line 12``, and this module's own compact form
``path: 3-5,9`` that ``line_ranges`` and ``locations`` write. ``missing_references`` says which of
them a shorter text lost; the condensers and their tests rely on it.
Deliberately left out: columns (``path:12:5`` counts as line 12), URLs (never paths), and paths
without an extension, which are too often ordinary words.
"""

from __future__ import annotations

import re
from collections import defaultdict

_URL = re.compile(r"\w+://\S+")
_TRACE = re.compile(r'File "([^"]+)", line (\d+)')
_PATH = r"(?:[\w.~-]*/)*[\w.-]*[\w-]\.[A-Za-z]\w{0,5}"
_PATH_LINE = re.compile(rf"(?<![\w/.-])({_PATH}):(\d+)")
_EXTENSIONS = "|".join(
    "py pyi js jsx ts tsx java go rs rb c h cc cpp md rst txt json jsonl yaml yml toml cfg ini sh pl "
    "html css log ipynb".split()
)  # a name without a slash counts as a file path only with one of these
_BARE_PATH = re.compile(
    rf"(?<![\w/.:-])((?:[\w.~-]*/)+[\w.-]*[\w-]\.[A-Za-z]\w{{0,5}}|[\w-]+(?:\.[\w-]+)*\.(?:{_EXTENSIONS}))(?![\w/])"
)
# our own compact form "path: 3-5,9", at a line's start or after "; " or ": " in a list of them
_LOCATION_LINE = re.compile(rf"(?:^|(?<=; )|(?<=: ))\s*-?\s*({_PATH}): ((?:\d+(?:-\d+)?(?:,\s?)?)+)", re.M)


def references(text: str) -> dict[str, set[int]]:
    """Every file path mentioned in ``text`` with the line numbers it is cited with."""
    found: dict[str, set[int]] = defaultdict(set)  # path -> line numbers
    text = _URL.sub(" ", text)
    for path, line in _TRACE.findall(text) + _PATH_LINE.findall(text):
        found[path].add(int(line))
    for match in _LOCATION_LINE.finditer(text):  # our own compact form: "path: 3, 8-10"
        found[match[1]].update(_expand(match[2]))
    for path in _BARE_PATH.findall(text):
        found[path]  # noqa: B018 - a path with no line number still counts
    return dict(found)


def missing_references(original: str, condensed: str) -> list[str]:
    """The ``path`` and ``path:line`` references of ``original`` that ``condensed`` lost."""
    have = references(condensed)
    missing = []
    for path, lines in sorted(references(original).items()):
        if path not in have and path not in condensed:
            missing.append(path)
        missing += [f"{path}:{n}" for n in sorted(lines - have.get(path, set()))]
    return missing


def _expand(ranges: str) -> set[int]:
    numbers: set[int] = set()
    for part in ranges.split(","):
        a, _, b = part.strip().partition("-")
        if a.isdigit():
            numbers.update(range(int(a), int(b or a) + 1))
    return numbers


def line_ranges(numbers) -> str:
    """Sorted line numbers as compact ranges: ``{3, 4, 5, 9}`` -> ``"3-5,9"``."""
    out, run = [], []
    for n in sorted(set(numbers)):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [n]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)  # no space: cl100k then spends one token per number, not two


def locations(text: str) -> list[str]:
    """One line per referenced path: ``path: 3-5,9`` (or the path alone), sorted by path."""
    return [f"{p}: {line_ranges(n)}" if n else p for p, n in sorted(references(text).items())]
