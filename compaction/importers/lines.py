"""The lines of a JSON Lines session file as text, with what their bytes needed said as problems.

A byte-order mark at the start of the file (some editors write one) is dropped, so the first
record is read like any other. A line whose bytes are not UTF-8 is decoded with U+FFFD in place of
each bad byte and reported (rule ``not_utf8``, its line and the first bad byte's column), never
changed in silence. Lines end at ``\\n`` only (a ``\\r\\n`` ending stays on the line, which JSON
reads as whitespace). ``json_records`` parses the lines: each record with its line number, each
line that is not one reported (``not_json``, ``truncated_last_line`` for a cut-off last line,
``too_deep``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from typing import Any

from compaction.importers.nesting import TooDeep, loads
from compaction.importers.problems import Problem, json_error

BOM = b"\xef\xbb\xbf"


def text_lines(path: str | os.PathLike, file: str, problems: list[Problem]) -> Iterator[str]:
    """Every line of ``path``, blank ones too, in order (so line numbers hold); repairs in ``problems``."""
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                detail = f"bytes that are not UTF-8 from column {exc.start + 1} were replaced by U+FFFD"
                problems.append(Problem(file, f"line {number}", "not_utf8", detail))
                yield raw.decode("utf-8", errors="replace")


def json_records(lines: Iterable[str], file: str, problems: list[Problem]) -> Iterator[tuple[int, Any]]:
    """(line number, parsed record) for each non-blank line; a line that is no record goes to ``problems``."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield number, loads(line)
        except TooDeep as exc:
            problems.append(Problem(file, f"line {number}", "too_deep", str(exc)))
        except json.JSONDecodeError as exc:
            rule = "not_json" if line.endswith("\n") else "truncated_last_line"
            problems.append(Problem(file, f"line {number}", rule, json_error(exc, line=False)))


LINE_RULES = ("not_json", "truncated_last_line", "too_deep")  # a line lost before it was a record


def line_losses(problems: list[Problem]) -> int:
    """How many lines ``json_records`` could not read as records (each is a record lost)."""
    return sum(1 for p in problems if p.rule in LINE_RULES)
