"""Where a command will write, checked before a long run: a wrong path is said at once, not at the end.

``replay`` and ``evaluate`` run every strategy before they write a report or the final contexts;
a path that cannot take them (its folder missing, a folder where a file goes, a file where a folder
goes) would otherwise fail after all that work, with a traceback.
"""

from __future__ import annotations

from pathlib import Path


def output_problem(path: Path | None, option: str, *, folder: bool) -> str | None:
    """Why ``path`` cannot be written as the output of ``option`` (a folder or a file), or None."""
    if path is None:
        return None
    path = Path(path)
    if folder:
        if path.exists() and not path.is_dir():
            return f"{option} {path}: a file is there, and it must be a folder"
        return None
    if path.is_dir():
        return f"{option} {path}: a folder is there, and it must be a file"
    if not path.parent.is_dir():
        return f"{option} {path}: the folder {path.parent} does not exist"
    return None
