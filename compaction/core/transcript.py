"""Transcripts: the whole message list on disk as JSONL, written before anything leaves the context.

``write_transcript`` puts one message per line (UTF-8, compact JSON), flushes and fsyncs the file,
and gives it mode 0600 in a directory created with mode 0700: a transcript can hold secrets the
agent saw. Names are ``transcript-0001.jsonl``, ``transcript-0002.jsonl``... the next free number,
claimed atomically, so two writers never share a file and a fresh directory always gives the same
names. ``read_transcript`` gives back the identical list. Deliberately left out: searching a
transcript, rotating old ones, and encryption; a transcript is a plain recoverable record.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from compaction.core.messages import to_json
from compaction.core.store import fsync_dir

PREFIX = "transcript-"
SUFFIX = ".jsonl"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")


class TranscriptError(OSError):
    """A transcript could not be written or read; the message names the path and the cause."""

    def __init__(self, path: Path | str, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"transcript {self.path}: {reason}")


class Lines:
    """Each message's JSONL line, encoded once per dict (messages are never mutated).

    A writer that saves a growing list again and again (the pipeline, before each layer that
    changes it) passes one ``Lines`` to ``write_transcript`` and encodes only what is new.
    """

    def __init__(self) -> None:
        self._seen: dict[int, tuple[dict, str]] = {}  # id(message) -> (message, its line)

    def __call__(self, message: dict[str, Any]) -> str:
        """The message as compact JSON, from the cache when this very dict was encoded before."""
        hit = self._seen.get(id(message))
        if hit is None or hit[0] is not message:
            hit = (message, to_json(message))
            self._seen[id(message)] = hit
        return hit[1]

    def forget_all_but(self, messages: Sequence[dict[str, Any]]) -> None:
        """Drop the lines of messages no longer in ``messages`` once the cache has grown large."""
        if len(self._seen) > 2 * len(messages) + 1024:
            keep = {id(m) for m in messages}
            self._seen = {k: v for k, v in self._seen.items() if k in keep}


def write_transcript(
    messages: Sequence[dict[str, Any]],
    directory: Path | str,
    *,
    name: str | None = None,
    lines: Lines | None = None,
) -> Path:
    """Write the whole list as JSONL (one message per line, fsynced, mode 0600); return its path."""
    directory = Path(directory)
    text = _encode(messages, directory, lines or to_json)  # before touching the disk: nothing half-written
    data = _utf8(text, directory)
    if lines is not None:
        lines.forget_all_but(messages)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise TranscriptError(directory, f"cannot create the directory ({exc.strerror})") from exc
    fd, path = _claim(directory, name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise TranscriptError(path, f"cannot write ({exc.strerror or exc})") from exc
    fsync_dir(directory)  # the new name itself survives a crash
    return path


def read_transcript(path: Path | str) -> list[dict[str, Any]]:
    """Read a transcript back: the identical list of messages."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TranscriptError(path, f"cannot read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise TranscriptError(path, f"not UTF-8 ({exc.reason})") from exc
    messages = []
    for number, line in enumerate(text.split("\n"), 1):  # not splitlines: JSON may hold U+2028
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TranscriptError(path, f"line {number} is not JSON ({exc.msg})") from exc
        if not isinstance(message, dict):
            raise TranscriptError(path, f"line {number} is not a message object")
        messages.append(message)
    return messages


def _encode(messages: Sequence[dict[str, Any]], directory: Path, line: Callable[[dict], str]) -> str:
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
    lines = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise TypeError(f"messages[{i}] must be a dict, not {type(message).__name__}")
        try:
            lines.append(line(message))
        except (TypeError, ValueError) as exc:
            raise TranscriptError(directory, f"messages[{i}] is not JSON-serialisable ({exc})") from exc
    return "\n".join(lines) + "\n" if lines else ""


def _utf8(text: str, directory: Path) -> bytes:
    """The transcript's bytes; a lone UTF-16 surrogate (half a character) names its message."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        index = text.count("\n", 0, exc.start)  # one line per message: JSON escapes its newlines
        char = f"U+{ord(text[exc.start]):04X}"
        raise TranscriptError(
            directory,
            f"messages[{index}] holds a lone UTF-16 surrogate ({char}, half of a character such as an "
            "emoji cut in two), which UTF-8 cannot encode",
        ) from exc


def _claim(directory: Path, name: str | None) -> tuple[int, Path]:
    """Create the file exclusively: the given name, or the next free numbered name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    if name is not None:
        if not _NAME.match(name) or name in (".", ".."):
            raise ValueError(f"name must be a plain file name (letters, digits, . _ -), not {name!r}")
        candidates = iter([directory / name])
    else:
        start = 1 + max((_number(p.name) for p in directory.glob(f"{PREFIX}*{SUFFIX}")), default=0)
        candidates = (directory / f"{PREFIX}{n:04d}{SUFFIX}" for n in range(start, start + 10_000))
    for path in candidates:
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            if name is not None:
                raise TranscriptError(path, "a transcript with this name already exists") from None
        except OSError as exc:
            raise TranscriptError(path, f"cannot create ({exc.strerror or exc})") from exc
    raise TranscriptError(directory, "no free transcript name")


def _number(filename: str) -> int:
    middle = filename[len(PREFIX) : -len(SUFFIX)]
    return int(middle) if middle.isdigit() else 0
