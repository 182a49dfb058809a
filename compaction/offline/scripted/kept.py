"""What the offline summarizer keeps whatever its budget: the files changed, and a share for the request.

Two rules ``summarizer.fit`` applies before it fills the sections by priority:

- **Files created and edited are always listed.** The Files section lists a path as ``- path:``
  and its changes under it; ``changed_files`` is each changed file's path and first change, kept
  at any budget. When those alone would take more than a third of the budget (a session that wrote
  sixty scratch scripts), ``compact_files`` lists the paths on one line per kind of change
  (``- created: a.py, b.py``), which the next summary reads back (``parse_files``).
- **A long request is cut to its share.** The user's first message may take a quarter of the
  budget (``REQUEST_FLOOR`` tokens at least); ``request_lines`` keeps its opening lines (what the task
  is), then the lines that instruct (``must``, ``do not``, ``only``, ``exact`` ...) with the lines
  they introduce, then the rest in order, and shows them in the message's order.
Deliberately left out: telling a scratch script from a deliverable (both are files created).
"""

from __future__ import annotations

import re
from collections.abc import Callable

REQUEST_FLOOR = 200  # tokens the request may always take; beyond it at most a quarter of the budget
OPENING = 0.4  # share of the request's room for its opening lines
KINDS = ("created", "edited", "appended", "reverted", "deleted", "moved")
_INSTRUCTS = re.compile(
    r"\b(must|never|do not|don't|only|always|exact\w*|required?|important|critical|should|avoid)\b", re.I
)
_COMPACT = re.compile(r"^- (" + "|".join(KINDS) + r"): (.+)$")


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


def request_lines(lines: list[str], room: int, cost: Callable[[str], int]) -> list[str]:
    """The request's lines that fit ``room`` tokens: opening lines, then instructions, then the rest."""
    chosen: set[int] = set()
    left = room
    opening = int(room * OPENING)
    for k, line in enumerate(lines):  # the opening: what the task is
        if cost(line) > opening:
            break
        chosen.add(k)
        opening -= cost(line)
        left -= cost(line)
    instructing = [k for k, ln in enumerate(lines) if _INSTRUCTS.search(ln)]
    # a line ending in ":" introduces what follows it (a command in a code block, a list): 4 lines of it
    follows = [j for k in instructing if lines[k].rstrip().endswith(":") for j in range(k + 1, k + 5)]
    follows = [j for j in follows if j < len(lines)]
    for k in [*sorted(set(instructing) | set(follows)), *range(len(lines))]:
        if k not in chosen and cost(lines[k]) <= left:
            chosen.add(k)
            left -= cost(lines[k])
    return [lines[k] for k in sorted(chosen)]
