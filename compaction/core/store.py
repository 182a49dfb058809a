"""OutputStore: tool outputs persisted on disk before they leave the context, path-safe.

One file per ``tool_use_id`` under ``<root>/tool-results/``. The file name is the id reduced to
safe characters (at most 48 of them) plus a hash of the raw id, so hostile ids (``..``, ``/``,
``\\``, NUL, very long ids, names an OS reserves such as ``CON``) can neither leave the folder nor
land on another id's file. Writes are atomic (temp file, fsync, ``os.replace``). The store refuses
to work through a symlink: not when ``root`` itself is one, not when the results folder is one,
not when a link was planted at a file's name.

Content is stored as UTF-8 with ``surrogatepass``, so any Python string comes back byte for byte.
A list content (``[blocks]``) is stored as its text blocks joined by one newline, the same join as
``messages.text_of``; non-text blocks (images, documents) are NOT written: the caller keeps them in
the message. Deliberately left out: size quotas, expiry of old files, and locking between processes.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from compaction.core.messages import text_of

RESULTS_DIR = "tool-results"
ENCODING, ERRORS = "utf-8", "surrogatepass"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class StoreError(OSError):
    """The store cannot save or load a result; the message says which id or path and why."""


class UnsafePath(StoreError):
    """A path would leave the store's root (a symlink, or a path outside the results folder)."""


def safe_name(tool_use_id: str) -> str:
    """The file name for an id: safe characters of the id, then 16 hex digits of its SHA-256."""
    if not isinstance(tool_use_id, str):
        raise TypeError(f"tool_use_id must be a string, not {type(tool_use_id).__name__}")
    raw = tool_use_id.encode(ENCODING, ERRORS)
    digest = hashlib.sha256(raw).hexdigest()[:16]
    stem = _UNSAFE.sub("_", tool_use_id)[:48].strip("_") or "result"
    return f"{stem}-{digest}.txt"


class OutputStore:
    """Persisted tool outputs under ``root/tool-results``, one file per tool_use_id."""

    def __init__(self, root: str | os.PathLike, *, base: str | os.PathLike | None = None):
        self.root = Path(root).absolute()
        # markers show paths relative to base (default: root), e.g. a workspace the model reads from
        self.base = Path(base).absolute() if base is not None else self.root
        self.results = self.root / RESULTS_DIR

    def __repr__(self) -> str:
        return f"OutputStore({self.root.name!r})"

    def path_for(self, tool_use_id: str) -> Path:
        """Where the result of this id is (or would be) stored."""
        return self.results / safe_name(tool_use_id)

    def display(self, path: Path) -> str:
        """A stored file's path as a marker shows it: relative to ``base``, with forward slashes."""
        try:
            return Path(os.path.relpath(path, self.base)).as_posix()
        except ValueError:  # another drive on Windows
            return path.as_posix()

    def save(self, tool_use_id: str, content: str | list) -> Path:
        """Write a result atomically and return its path; same id, same file."""
        if not isinstance(content, (str, list)):
            raise TypeError(f"content must be a string or a list of blocks, not {type(content).__name__}")
        data = text_of(content).encode(ENCODING, ERRORS)
        target = self.path_for(tool_use_id)
        folder = self._results_dir(create=True)
        if target.is_symlink():
            raise UnsafePath(f"refusing to write {self.display(target)}: it is a symlink")
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        fsync_dir(folder)
        return target

    def load(self, path_or_id: str | os.PathLike) -> str:
        """The stored text for a path (``Path``, or as a marker shows it) or a tool_use_id."""
        target = self._resolve(path_or_id)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(target, flags)
        except FileNotFoundError:
            raise StoreError(f"no stored result for {path_or_id!r}") from None
        except OSError as exc:
            raise UnsafePath(f"cannot open {self.display(target)} safely: {exc.strerror}") from None
        with os.fdopen(fd, "rb") as f:
            return f.read().decode(ENCODING, ERRORS)

    def _resolve(self, path_or_id: str | os.PathLike) -> Path:
        folder = self._results_dir(create=False)
        if isinstance(path_or_id, str) and self.path_for(path_or_id).exists():
            candidate = self.path_for(path_or_id)  # an id that was saved
        else:
            raw = Path(path_or_id)
            candidate = raw if raw.is_absolute() else self.base / raw
        if candidate.is_symlink():
            raise UnsafePath(f"refusing to read {self.display(candidate)}: it is a symlink")
        if not candidate.exists():
            raise StoreError(f"no stored result for {str(path_or_id)!r}")
        if candidate.resolve().parent != folder.resolve():
            raise UnsafePath(f"{str(path_or_id)!r} is not a stored result of this store")
        return candidate

    def _results_dir(self, *, create: bool) -> Path:
        for folder in (self.root, self.results):
            if folder.is_symlink():
                raise UnsafePath(f"refusing to use {folder.name!r}: the store folder is a symlink")
        if create:
            self.results.mkdir(parents=True, exist_ok=True)
        if self.results.is_symlink() or (self.results.exists() and not self.results.is_dir()):
            raise UnsafePath(f"refusing to use {RESULTS_DIR!r}: it is not a plain folder")
        return self.results


def fsync_dir(folder: Path) -> None:
    """Make a new name in ``folder`` durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
