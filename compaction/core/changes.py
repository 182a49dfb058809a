"""How a change to a file is told in one line: created with its first line, or an edit's changed lines.

``cut`` puts a value on one line within a bound; ``created`` and ``edited`` are the words every reader
of the calls uses (the ledger, the offline summarizer), so a file reads the same whoever wrote it.
Deliberately left out: diffs (only the lines an edit added, or removed when it added none, are shown).
"""

from __future__ import annotations

LINE_CHARS = 160  # a line of code shown in a change, at most
SHOWN_LINES = 3  # changed lines shown per edit


def cut(value: str, limit: int = LINE_CHARS) -> str:
    """``value`` on one line, cut to ``limit`` characters with '...' when longer."""
    value = " ".join(str(value).split())
    return value if len(value) <= limit else value[: limit - 3] + "..."


def created(content: str) -> str:
    """A file written whole: its length in lines and its first line."""
    first = next((ln.strip() for ln in content.splitlines() if ln.strip()), "")
    if not first:
        return "created (empty)"
    return f"created ({len(content.splitlines())} lines), starting `{cut(first)}`"


def edited(old: str, new: str) -> list[str]:
    """An edit's changed lines, whole: the lines it added, or the lines it removed when it added none."""
    gone = set(old.splitlines())
    added = [ln.strip() for ln in new.splitlines() if ln not in gone and ln.strip()]
    if not added:
        kept = set(new.splitlines())
        removed = [ln.strip() for ln in old.splitlines() if ln not in kept and ln.strip()]
        return [f"edited: - `{cut(ln)}`" for ln in removed[:SHOWN_LINES]] or ["edited"]
    shown = [f"edited: + `{cut(ln)}`" for ln in added[:SHOWN_LINES]]
    return shown + ([f"edited, {len(added) - SHOWN_LINES} more lines"] if len(added) > SHOWN_LINES else [])
