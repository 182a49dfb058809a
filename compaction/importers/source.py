"""What a reader is handed: a session file or folder, its shape, and the first records a format is told by.

``open_source(path)`` reads no more than it must to know the shape: a folder; JSON Lines (a first
line that parses, with more lines after it, or a first line that does not parse in a file that is
no JSON document); or one JSON document (a first line that does not parse, or the only line).
For JSON Lines ``head`` holds the first ``HEAD`` records that parse, so a format is told from the
first records that can tell (a Claude Code file may open with a ``file-history-snapshot``), not
from line 1 alone. A document is streamed once (``document.streamed_document``) and kept for the
reader. Deliberately left out: telling a format from the file name (only content is trusted).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compaction.importers.document import read_document, streamed_document
from compaction.importers.nesting import loads
from compaction.importers.problems import NotASession

HEAD = 50  # JSON Lines records read to tell the format
LONG_LINE = 1 << 18  # bytes: a first line this long, alone in its file, is a document
_UNREAD = object()


@dataclass
class Source:
    """A session file or folder as the readers see it: its path, shape and first records."""

    path: Path
    shape: str  # "lines", "document" or "folder"
    head: list = field(default_factory=list)  # the first lines of a JSON Lines file that parse as objects
    _document: Any = _UNREAD

    @property
    def name(self) -> str:
        """The file or folder name, as problems and errors name it."""
        return self.path.name

    def as_document(self) -> Any:
        """The file as one JSON document, for telling its format; None for JSON Lines of several records."""
        if self.shape == "document" or self._document is not _UNREAD:
            return self.document()
        return None

    def document(self) -> Any:
        """The parsed JSON document (top-level keys no importer reads stand as None); NotASession if none."""
        if self._document is _UNREAD:
            self._document = read_document(self.path)
        return self._document


def open_source(path: str | os.PathLike) -> Source:
    """``path`` as a ``Source``: its shape and, for JSON Lines, its first records."""
    path = Path(path)
    if path.is_dir():
        return Source(path, "folder")
    if not path.is_file():
        raise NotASession(path.name, "no such file" if not path.exists() else "not a file")
    first, more = _first_line(path)
    if first is _UNREAD:  # one long line: a document
        return Source(path, "document")
    if first is not None and more:
        return Source(path, "lines", _head(path))
    if first is not None:  # the only line: a document, or JSON Lines of one record
        return Source(path, "lines", [first], first)
    data = streamed_document(path)
    head = _head(path) if data is None and more else []
    if not head:  # a document, or one that breaks (``document()`` names where)
        return Source(path, "document", _document=_UNREAD if data is None else data)
    return Source(path, "lines", head)  # JSON Lines whose first line is broken


def _first_line(path: Path) -> tuple[Any, bool]:
    """The first non-empty line parsed (None: not JSON, _UNREAD: too long), and whether more follow."""
    with open(path, "rb") as f:
        while line := f.readline(LONG_LINE):
            if not line.strip():
                continue
            if len(line) == LONG_LINE and not line.endswith(b"\n"):
                while (part := f.readline(1 << 16)) and not part.endswith(b"\n"):
                    pass  # to the end of the long line, holding a part at a time
                if not any(rest.strip() for rest in f):
                    return _UNREAD, False
                f.seek(0)
                line = next(line for line in f if line.strip())
            return _parsed(line), any(rest.strip() for rest in f)
    raise NotASession(path.name, "the file is empty")


def _head(path: Path) -> list:
    """The first ``HEAD`` non-empty lines that parse as JSON objects (records), in order."""
    records = []
    with open(path, "rb") as f:
        for line in f:
            if line.strip() and isinstance(record := _parsed(line), dict):
                records.append(record)
                if len(records) == HEAD:
                    break
    return records


def _parsed(line: bytes) -> Any:
    try:
        return loads(line.decode("utf-8-sig", errors="replace"))  # -sig: a byte-order mark is no record
    except ValueError:  # not JSON, or nested too deep to parse: no record to tell the format by
        return None
