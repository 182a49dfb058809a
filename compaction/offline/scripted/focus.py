"""How the offline summarizer follows compaction ``instructions``: it keeps the focus they name.

The offline summarizer is extractive (``summarizer``): it cannot read free text the way a model
does. It honours instructions in one checkable way: the file paths and the `backquoted` terms the
instructions name are the focus, and the sections that list work (concepts, files, errors,
problem solving) keep only the entries that mention one of them; the user's words, the pending
tasks and the current work stay whole, so the agent can still resume. The summary then opens with
the instructions it followed. Instructions that name no path and no backquoted term change nothing
but that first line. Deliberately left out: any other reading of the instructions.
"""

from __future__ import annotations

import re

from compaction.core.summary_prompt import SECTIONS
from compaction.offline.scripted.summarizer import previous_sections

FOCUSED = ("Key Technical Concepts", "Files and Code Sections", "Errors and Fixes", "Problem Solving")
PATH_RE = re.compile(r"(?<![\w/.-])(?:[\w-]+/)*[\w-]+\.[A-Za-z]\w*")  # textstats/counts.py, NOTES.md
TICKED_RE = re.compile(r"`([^`\n]+)`")
NOTHING_KEPT = "- nothing here concerns the focus"


def focus_terms(instructions: str) -> list[str]:
    """The paths and backquoted terms an instruction names, in order, each once."""
    found = TICKED_RE.findall(instructions) + PATH_RE.findall(TICKED_RE.sub(" ", instructions))
    return list(dict.fromkeys(t.strip() for t in found if t.strip()))


def _entries(lines: list[str]) -> list[list[str]]:
    """A section's lines grouped into entries: a ``- `` line and the indented lines under it."""
    entries: list[list[str]] = []
    for line in lines:
        if line.startswith(" ") and entries:
            entries[-1].append(line)
        else:
            entries.append([line])
    return entries


def focused(summary: str, instructions: str) -> str:
    """The summary with its work sections cut to the instructions' focus, opened by the instructions."""
    terms = [t.lower() for t in focus_terms(instructions)]
    sections = previous_sections(summary)
    parts = []
    for i, name in enumerate(SECTIONS, 1):
        lines = sections.get(name, [])
        if terms and name in FOCUSED:
            kept = [e for e in _entries(lines) if any(t in "\n".join(e).lower() for t in terms)]
            lines = [line for e in kept for line in e] or [NOTHING_KEPT]
        parts.append(f"{i}. {name}:\n" + "\n".join(lines))
    head = "Summarized following the instructions: " + " ".join(instructions.split())
    return head + "\n\n" + "\n\n".join(parts)
