"""How deep a JSON text nests, found without parsing it, so no parser can run out of stack.

Python's ``json`` parses recursively: a line of a few hundred thousand ``[`` raises RecursionError,
and a structure that deep breaks every recursive walk after it (token counts, ``json.dumps``). No
agent writes a record nested deeper than ``MAX_DEPTH``; such a record is skipped and named (file,
line, "nested deeper than N") like any other malformed record. ``loads`` is ``json.loads`` with that
check first; ``guarded`` does the same for the events of a streamed document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

MAX_DEPTH = 200  # levels of [ and {; real records nest a few dozen at most
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[\[\]{}\n]')  # strings (their brackets do not count), brackets
_OPEN, _CLOSE = ("start_map", "start_array"), ("end_map", "end_array")


class TooDeep(ValueError):
    """A JSON text nests deeper than ``MAX_DEPTH``; ``line`` is where (from 1, within the text)."""

    def __init__(self, line: int = 1):
        self.line = line
        super().__init__(f"nested deeper than {MAX_DEPTH}")


def too_deep_at(text: str | bytes) -> int | None:
    """The line (from 1) where ``text`` first nests deeper than ``MAX_DEPTH``, or None."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None  # too few brackets to be that deep: the common case costs two counts
    depth, line = 0, 1
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif token in "]}":
            depth -= 1
    return None


def loads(line: str | bytes) -> Any:
    """``json.loads(line)``, or TooDeep before parsing when it nests deeper than ``MAX_DEPTH``."""
    where = too_deep_at(line)
    if where is not None:
        raise TooDeep(where)
    return json.loads(line)


def guarded(events: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """ijson's ``basic_parse`` events, passed on; TooDeep once they nest deeper than ``MAX_DEPTH``."""
    depth = 0
    for event in events:
        if event[0] in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise TooDeep()
        elif event[0] in _CLOSE:
            depth -= 1
        yield event
