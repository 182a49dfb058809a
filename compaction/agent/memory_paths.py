"""Memory paths: a ``/memories/...`` path the model names, checked and mapped into one real folder.

The memory tool's paths are virtual: the model only knows ``/memories`` (SDK
``BetaMemoryTool20250818*Command``; the documentation: "For security, you should restrict all memory
operations to the /memories directory", https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool).
``segments`` refuses, naming the rule, a path that is not a string, holds a NUL or another control
character, a backslash, an empty, ``.`` or ``..`` segment, more than 20 segments or 1,024 bytes, is
not in Unicode NFC, or does not start with ``/memories`` (an absolute path elsewhere, a relative
path). The limits and character rules are those of the API's memory stores (SDK
``resources/beta/memory_stores/memories.py``, ``create``: "A path starts with `/` and has 1 to 20
segments ..."). ``locate`` maps the segments under the real folder and refuses a path through a
symbolic link anywhere below it, even one that points back inside: the memory folder holds only
files and folders, so a link someone planted there is never followed.
Deliberately left out: races with another process changing the folder between the check and the
use (the handler opens files with ``O_NOFOLLOW``, which closes the last step, not every step).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

ROOT = "/memories"
MAX_SEGMENTS = 20
MAX_PATH_BYTES = 1_024
_SEPARATORS = {"\u2028", "\u2029"}  # line and paragraph separators, refused like control characters


class UnsafeMemoryPath(ValueError):
    """A memory path refused before anything is touched; the message names the rule it breaks."""


def segments(path: Any) -> list[str]:
    """The segments of ``path`` under ``/memories`` (``[]`` for the root itself), or UnsafeMemoryPath."""
    if not isinstance(path, str):
        raise UnsafeMemoryPath(f"path must be a string starting with {ROOT}, not {type(path).__name__}")
    shown = path.encode("unicode_escape").decode("ascii")[:120]  # a NUL or a newline printed visibly
    if "\x00" in path:
        raise UnsafeMemoryPath(f"{shown}: a NUL character in a path is refused")
    odd = next((c for c in path if unicodedata.category(c) in ("Cc", "Cf") or c in _SEPARATORS), None)
    if odd is not None:
        raise UnsafeMemoryPath(f"{shown}: control or format character U+{ord(odd):04X} in a path is refused")
    if "\\" in path:
        raise UnsafeMemoryPath(f"{shown}: a backslash is refused; separate folders with /")
    if len(path.encode("utf-8")) > MAX_PATH_BYTES:
        raise UnsafeMemoryPath(f"{shown}...: longer than {MAX_PATH_BYTES:,} bytes")
    if unicodedata.normalize("NFC", path) != path:
        raise UnsafeMemoryPath(f"{shown}: not in Unicode normalization form C")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise UnsafeMemoryPath(f"{shown}: every memory path starts with {ROOT}/; anything else is refused")
    rest = path[len(ROOT) + 1 :]  # after "/memories/": "" for the root
    if len(rest) > 1 and rest.endswith("/"):  # one trailing / may name a folder: "/memories/notes/"
        rest = rest[:-1]
    parts = rest.split("/") if rest else []
    for part in parts:
        if part in ("", ".", ".."):
            what = "an empty segment (//)" if not part else f"a '{part}' segment"
            raise UnsafeMemoryPath(f"{shown}: {what} is refused; name files and folders under {ROOT}")
    if len(parts) > MAX_SEGMENTS:
        raise UnsafeMemoryPath(f"{shown}: more than {MAX_SEGMENTS} segments")
    return parts


def virtual(parts: list[str]) -> str:
    """The ``/memories/...`` path of some segments, as the model writes it."""
    return "/".join([ROOT, *parts])


def locate(root: Path, path: Any) -> Path:
    """The real path of ``path`` under ``root``; UnsafeMemoryPath when a part of it is a symbolic link."""
    parts = segments(path)
    target = root
    for k, part in enumerate(parts):
        target = target / part
        if target.is_symlink():
            raise UnsafeMemoryPath(
                f"{virtual(parts[: k + 1])} is a symbolic link; links in the memory folder are never followed"
            )
    if not target.resolve().is_relative_to(root.resolve()):  # cannot happen after the checks above
        raise UnsafeMemoryPath(f"{virtual(parts)} resolves outside the memory folder")
    return target
