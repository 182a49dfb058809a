"""Path confinement: a relative name resolved inside a root folder, or refused.

The tools, file restoration and anything else that opens a file the model named use this one rule:
the name is relative, and once symlinks and ``..`` are resolved it still lies inside the root.
Deliberately left out: the store's stricter rules for files it writes (``compaction.core.store``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class PathRefused(ValueError):
    """A name that is not a relative path inside the root."""


def inside(root: Path, name: Any) -> Path:
    """The absolute path for a relative ``name`` under ``root`` (resolved), refused when it leaves it."""
    if not isinstance(name, str) or not name.strip():
        raise PathRefused("path must be a non-empty string relative to the workspace")
    if os.path.isabs(name) or name.startswith("~"):
        raise PathRefused(f"{name}: absolute paths are refused; use a path relative to the workspace")
    target = (root / name).resolve()
    if not target.is_relative_to(root):
        raise PathRefused(f"{name}: resolves outside the workspace; refused")
    return target
