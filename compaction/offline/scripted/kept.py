"""What the offline summarizer keeps whatever its budget: the files changed, and a share for the request.

Two rules ``summarizer.fit`` applies before it fills the sections by priority:

- **Files created and edited are always listed.** The Files section lists a path as ``- path:``
  and its changes under it; ``changed_files`` is each changed file's path and first change, kept
  at any budget. When those alone would take more than a third of the budget (a session that wrote
  sixty scratch scripts), ``compact_files`` lists the paths on one line per kind of change
  (``- created: a.py, b.py``), which the next summary reads back (``parse_files``). Only the room the
  answer has bounds them: when even that line does not fit, it lists the paths that do and how many
  more (``listed_within``), for the window wins over any rule of the summary.
- **A long request is cut to its share.** The user's first message may take a quarter of the
  budget (``REQUEST_FLOOR`` tokens at least), its lines in order: what the task is comes first. Its
  instructions are not lost with the rest: the state ledger lists them, and carries them from one
  summary to the next, whenever the summary does not quote their message whole
  (``compaction.layers.ledger``).
Deliberately left out: telling a scratch script from a deliverable (both are files created).
"""

from __future__ import annotations

import re
from collections.abc import Callable

REQUEST_FLOOR = 200  # tokens the request may always take; beyond it at most a quarter of the budget
KINDS = ("created", "edited", "appended", "reverted", "deleted", "moved")
_COMPACT = re.compile(r"^- (" + "|".join(KINDS) + r"): (.+?)(?: \(and \d+ more\))?$")


def changed_files(lines: list[str]) -> list[str]:
    """The Files section's lines that must stay: each created or edited file's path and its first change."""
    out = []
    for k, line in enumerate(lines):
        first = lines[k + 1] if k + 1 < len(lines) and lines[k + 1].startswith("  - ") else ""
        if line.startswith("- ") and line.endswith(":") and first and first != "  - read":
            out += [line, first]
    return out


def kind_of(change: str) -> str:
    """The kind of a file change: ``created``, ``edited``, ... (``read`` when none)."""
    return next((k for k in KINDS if change.startswith(k)), "read")


def compact_files(lines: list[str]) -> list[str]:
    """The changed files on one line per kind of change: ``- created: a.py, b.py``."""
    by_kind: dict[str, list[str]] = {}
    path = None
    for line in lines:
        if line.startswith("- ") and line.endswith(":"):
            path = line[2:-1]
        elif line.startswith("  - ") and path is not None and kind_of(line[4:]) != "read":
            by_kind.setdefault(kind_of(line[4:]), [])
            if path not in by_kind[kind_of(line[4:])]:
                by_kind[kind_of(line[4:])].append(path)
        elif _COMPACT.match(line):
            found = _COMPACT.match(line)
            by_kind.setdefault(found[1], []).extend(p for p in found[2].split(", ") if p)
    return [f"- {kind}: {', '.join(dict.fromkeys(by_kind[kind]))}" for kind in KINDS if by_kind.get(kind)]


def listed_within(lines: list[str], budget: int, cost: Callable[[str], int]) -> list[str]:
    """Compact lines cut to ``budget`` tokens: the paths that fit, then how many more (the window wins)."""
    out: list[str] = []
    for line in lines:
        found = _COMPACT.match(line)
        if found is None:
            continue
        paths = found[2].split(", ")
        while paths and cost(_listed(found[1], paths, len(found[2].split(", ")))) > budget:
            paths.pop()
        if paths:
            out.append(_listed(found[1], paths, len(found[2].split(", "))))
            budget -= cost(out[-1])
    return out


def _listed(kind: str, paths: list[str], total: int) -> str:
    more = f" (and {total - len(paths)} more)" if len(paths) < total else ""
    return f"- {kind}: {', '.join(paths)}{more}"


def parse_files(lines: list[str]) -> dict[str, list[str]]:
    """A summary's Files section read back: path -> what was done to it (both forms)."""
    merged: dict[str, list[str]] = {}
    path = None
    for line in lines:
        found = _COMPACT.match(line)
        if found and not line.endswith(":"):
            for p in found[2].split(", "):
                merged.setdefault(p, []).append(found[1])
            path = None
        elif line.startswith("- ") and line.endswith(":"):
            path = line[2:-1]
            merged.setdefault(path, [])
        elif line.startswith("  - ") and path is not None:
            merged[path].append(line[4:])
    return merged
