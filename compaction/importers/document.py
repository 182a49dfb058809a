"""A session stored as one JSON document, read as a stream: the parsed objects, never the whole text.

``json.load`` holds the file's whole text and everything parsed from it at once, about twice the
file. ``read_document`` parses with ijson (its C backend) from the open file in chunks, so the text
is never held whole, and keeps only the top-level keys an importer reads (``KEPT``). Every other
key's value is skipped without being built and stands as ``None``, so a format is still told from
the keys: a SWE-agent ``trajectory``, which repeats ``history`` step by step, costs no memory. A
document that is not valid JSON is parsed again by ``json`` only to name the line where it breaks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ijson

from compaction.importers.nesting import MAX_DEPTH, TooDeep, guarded, too_deep_at
from compaction.importers.problems import NotASession, json_error

KEPT = frozenset({"history", "messages", "system", "trajectory_format", "info"})
_OPEN, _CLOSE = ("start_map", "start_array"), ("end_map", "end_array")


def read_document(path: Path) -> Any:
    """The JSON document in ``path``, top-level keys outside ``KEPT`` as None; NotASession if not JSON."""
    data = streamed_document(path)
    return _broken(path) if data is None else data


def streamed_document(path: Path) -> Any:
    """The document as ``read_document`` gives it, or None where the stream breaks (fast on JSON Lines)."""
    try:
        with open(path, "rb") as f:
            first = _first_byte(f)
            events = guarded(ijson.basic_parse(f, use_float=True))  # no prefixes: linear in the depth
            if first == b"[":
                return _top_list(events)
            if first == b"{":
                return _top_object(events)
    except (ijson.JSONError, UnicodeDecodeError, TooDeep):
        pass
    return None


def _first_byte(f) -> bytes:
    """The first byte that is not whitespace or a byte-order mark; the file is rewound."""
    head = f.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    f.seek(0)
    return head[:1]


def _top_list(events) -> list:
    """The top-level list from ijson's basic events, each item built whole."""
    out: list[Any] = []
    depth, builder = 0, None
    for event, value in events:
        if event in _OPEN:
            depth += 1
            if depth == 1:
                continue  # the document's own brackets
        elif event in _CLOSE:
            depth -= 1
            if depth == 0:
                continue
        builder = builder or ijson.ObjectBuilder()
        builder.event(event, value)
        if depth == 1:  # a scalar, or a container that has just closed: the item is whole
            out.append(builder.value)
            builder = None
    return out


def _top_object(events) -> dict:
    """The top-level object from ijson's basic events, building only the values of ``KEPT`` keys."""
    out: dict[str, Any] = {}
    depth, key, builder = 0, None, None
    for event, value in events:
        if event in _OPEN:
            depth += 1
            if depth == 1:
                continue  # the document's own braces
        elif event in _CLOSE:
            depth -= 1
            if depth == 0:
                continue
        elif depth == 1 and event == "map_key":
            key, builder = value, (ijson.ObjectBuilder() if value in KEPT else None)
            out[key] = None
            continue
        if builder is not None:
            builder.event(event, value)
            if depth == 1:  # a scalar, or a container that has just closed: the value is whole
                out[key], builder = builder.value, None
    return out


def _broken(path: Path) -> Any:
    """Parse with ``json`` to name the line where the document breaks (or read it, if it does not)."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
        deep = too_deep_at(text)
        if deep is not None:
            why = f"not JSON or JSON Lines: nested deeper than {MAX_DEPTH} at line {deep}"
            raise NotASession(path.name, why)
        return json.loads(text)
    except UnicodeDecodeError:
        raise NotASession(path.name, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        if exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated"):
            raise NotASession(path.name, f"the JSON ends early, cut off? ({json_error(exc)})") from None
        raise NotASession(path.name, f"not JSON or JSON Lines: {json_error(exc)}") from None
