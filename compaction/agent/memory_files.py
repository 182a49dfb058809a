"""The memory folder's files on disk: listed without following links, read and written within limits.

``read_text`` opens with ``O_NOFOLLOW`` and ``O_NONBLOCK`` (a link or a FIFO planted in the folder is
refused, never followed or waited on), checks the size before reading and decodes UTF-8 strictly.
``write_text`` refuses a file over its limit and a folder over its own, writes a temporary file
(mode 0600, ``fsync``) and then puts it in place in one step: ``os.replace`` for an edit, a hard link
for a new file, which fails rather than overwrite a file made meanwhile. ``make_folders`` creates
missing folders with mode 0700 whatever the umask. Sizes, names and errors use the ``/memories``
path the model gave (``shown``); the real path never leaves this module in a message.
Deliberately left out: file locking, quotas per folder, and platforms without ``os.link``.
"""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path

from anthropic.lib.tools import ToolError

FILE_MODE, FOLDER_MODE = 0o600, 0o700  # as the SDK's BetaLocalFilesystemMemoryTool creates them
VIEW_DEPTH = 2
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def size_text(n: int) -> str:
    """A size as a listing shows it: 312B, 4.1K, 1.2M."""
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}"
    return f"{n}B"


def listing(folder: Path, shown: str, depth: int = 1) -> tuple[list[str], int]:
    """``size<TAB>path`` rows, ``VIEW_DEPTH`` levels deep, hidden names left out; and the links skipped."""
    rows, links = [], 0
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            links += 1
            continue
        path = f"{shown}/{entry.name}"
        if entry.is_dir():
            rows.append(f"{'-':>6}\t{path}/")
            if depth < VIEW_DEPTH:
                inner, more = listing(entry, path, depth + 1)
                rows, links = rows + inner, links + more
        elif entry.is_file():
            rows.append(f"{size_text(entry.stat().st_size):>6}\t{path}")
    return rows, links


def read_text(target: Path, shown: str, max_bytes: int) -> str:
    """A file's text: a regular file, not a link, at most ``max_bytes``, UTF-8; ToolError otherwise."""
    try:
        fd = os.open(target, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except FileNotFoundError:
        raise ToolError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ToolError(f"{shown} is a folder, not a file") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(f"{shown} is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"{shown} is not a regular file; refused")
        if info.st_size > max_bytes:
            raise ToolError(f"{shown} is {info.st_size:,} bytes, over the limit of {max_bytes:,}; not read")
        data = handle.read(max_bytes + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not UTF-8 text; not read") from None


def total_bytes(root: Path) -> int:
    """The bytes of every regular file under ``root`` (links not followed)."""
    return sum(p.lstat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def make_folders(root: Path, folder: Path) -> None:
    """Make the missing folders from ``root`` down to ``folder``, each with mode 0700."""
    missing = []
    while folder != root and not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(mode=FOLDER_MODE)
        os.chmod(each, FOLDER_MODE)  # mkdir's mode is masked by the umask; chmod is not


def write_text(
    root: Path, target: Path, shown: str, text: str, *, new: bool, limits: tuple[int, int]
) -> None:
    """Put ``text`` at ``target`` in one step; refused over (bytes per file, bytes in the folder)."""
    per_file, whole = limits
    data = text.encode("utf-8")
    if len(data) > per_file:
        raise ToolError(
            f"{shown} would be {len(data):,} bytes, over the limit of {per_file:,} per memory file; "
            "nothing was written (keep notes short, or split them into files)"
        )
    total = total_bytes(root) - (0 if new else target.lstat().st_size) + len(data)
    if total > whole:
        raise ToolError(
            f"{shown}: the memory folder would hold {total:,} bytes, over its limit of {whole:,}; "
            "nothing was written (delete notes you no longer need)"
        )
    make_folders(root, target.parent)
    temporary = target.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if new:
            try:
                os.link(temporary, target)  # create never overwrites, even a file made meanwhile
            except FileExistsError:
                raise ToolError(f"{shown} already exists; nothing was written") from None
        else:
            os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
