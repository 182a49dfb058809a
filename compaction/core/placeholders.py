"""The texts that stand in the list for what left it: one home for every placeholder and marker format.

Each layer writes its own kind, and other code (the next layer, the widgets, the summary request,
the offline model) must recognise it, so each format is defined once here with its recogniser:

- budget: a ``<persisted-output>`` marker with the stored path and a preview;
- snip: ``[snip] N earlier messages were removed ...``, quoting the user's request if it went;
- micro: ``[Old tool result cleared: read_file of app.py. Read the file again ...]``, then
  the lines of the result the agent used later, when the layer keeps them (``compaction.core.used``);
- summary: the continuation note that opens a compacted list and names the transcript;
- restoration: ``[Restored after compaction: path, N lines, ...]`` heading a restored file.

Deliberately left out: when a layer writes them (the layers decide) and the API's own clearing
placeholders (the server writes those).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compaction.core.messages import text_of

# ------------------------------------------------------------ budget: persisted-output markers

MARKER_OPEN, MARKER_CLOSE = "<persisted-output>", "</persisted-output>"
MARKER_OVERHEAD = 400  # a marker is at most the preview plus this many characters


def persisted_marker(display_path: str, chars: int, preview: str) -> str:
    """The text that replaces a persisted result: where it went, how big it was, how it starts."""
    return (
        f"{MARKER_OPEN}\n"
        f"Output too large ({chars:,} characters). Full output saved to: {display_path}\n"
        f"Read that file to see all of it. Preview (first {len(preview):,} characters):\n"
        f"{preview}\n"
        f"{MARKER_CLOSE}"
    )


def is_persisted_marker(content: Any, preview_chars: int = 2_000) -> bool:
    """True when a content looks like a marker of ours and is marker-sized (never trusted as a path)."""
    text = text_of(content) if isinstance(content, (str, list)) else ""
    return (
        text.startswith(MARKER_OPEN)
        and text.endswith(MARKER_CLOSE)
        and len(text) <= preview_chars + MARKER_OVERHEAD
    )


# ------------------------------------------------------------ snip: the note for a dropped middle

SNIP_HEAD = "[snip] "
REQUEST_LINE = "The user's current request, from the removed part, was:\n"
_SNIP_COUNT = re.compile(r"\A\[snip\] (\d+) earlier messages? (?:was|were) removed from the middle")


def snip_placeholder(count: int, request: str | None = None) -> str:
    """The snip note: how many messages went, and the user's request if it went too."""
    noun = "message was" if count == 1 else "messages were"
    note = f"{SNIP_HEAD}{count} earlier {noun} removed from the middle of this conversation."
    return f"{note}\n{REQUEST_LINE}{request}" if request else note


def snipped_count(text: Any) -> int | None:
    """How many messages a snip note accounts for, or None when the text is not one."""
    found = _SNIP_COUNT.match(text) if isinstance(text, str) else None
    return int(found.group(1)) if found else None


# ------------------------------------------------------------ micro: cleared tool results

CLEARED_HEAD = "[Old tool result cleared: "
_MAX_SHOWN = 200  # characters of a command or input shown in a placeholder


KEPT_HEAD = "Lines of it the agent used later:"


def cleared_placeholder(name: str | None, tool_input: dict | None, kept: Sequence[str] = ()) -> str:
    """The note that replaces an old result of tool ``name``: one line, then any ``kept`` lines."""
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if name == "read_file" and "path" in tool_input:
        what, again = f"read_file of {_one_line(tool_input['path'])}", "Read the file again"
    elif name == "bash" and "command" in tool_input:
        what, again = f"bash `{_one_line(tool_input['command'])}`", "Run the command again"
    elif name == "glob" and "pattern" in tool_input:
        what, again = f"glob {_one_line(tool_input['pattern'])}", "Run the glob again"
    else:
        shown = _one_line(json.dumps(tool_input, ensure_ascii=False, sort_keys=True))
        what, again = f"{_one_line(name or 'unknown tool')} {shown}", "Call the tool again"
    note = f"{CLEARED_HEAD}{what}. {again} if you need its output.]"
    if not kept:
        return note
    return "\n".join([f"{CLEARED_HEAD}{what}. {again} for the rest of its output.]", KEPT_HEAD, *kept])


def is_cleared(text: Any) -> bool:
    """True when a tool_result content is a micro placeholder (with or without kept lines)."""
    if not isinstance(text, str) or not text.startswith(CLEARED_HEAD):
        return False
    first, _, rest = text.partition("\n")
    return not rest or (first.endswith("]") and rest.startswith(KEPT_HEAD))


def kept_lines(text: Any) -> list[str]:
    """The lines a micro placeholder kept of its result (none for a bare placeholder or other text)."""
    if not is_cleared(text):
        return []
    return text.partition("\n")[2].splitlines()[1:]


def clearing_frontier(messages: Sequence[dict], start: int = 0, known: int = 0) -> int:
    """How many leading messages the next clearing leaves as they are: through the last cleared result.

    Micro clears oldest first, so a later clearing changes only results after its last placeholder
    (a message that still holds a whole result beside a placeholder is where the next change can
    start). 0 when nothing is cleared. ``start`` and ``known``: the first ``start`` messages were
    scanned before and gave ``known``, so only the rest is scanned.
    """
    frontier = known
    for i in range(start, len(messages)):
        message = messages[i]
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        states = [
            is_cleared(block.get("content"))
            for block in content
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        if any(states):
            frontier = i + 1 if all(states) else i
    return frontier


def _one_line(value: Any) -> str:
    flat = " ".join(str(value).split())
    return flat if len(flat) <= _MAX_SHOWN else flat[: _MAX_SHOWN - 3] + "..."


# ------------------------------------------------------------ summary: the continuation note

CONTINUATION_HEAD = "[Compacted "
_TRANSCRIPT_NAMED = re.compile(r"messages\) is in the transcript (\S+);")


def continuation_text(
    summary: str, transcript: str, *, messages: int, dropped: int = 0, manual: bool = False, parts: int = 1
) -> str:
    """The opening of a compacted list: the session continues from a summary; where the rest is.

    ``parts`` > 1: the summary was written in that many requests (the summary so far plus the next
    part); ``dropped`` > 0: that many messages were left out of the request, only the transcript has them.
    """
    how = "at the agent's request" if manual else "because the context was nearly full"
    lines = [
        f"{CONTINUATION_HEAD}{how}] This session continues from a summary of the earlier conversation.",
        f"The full history ({messages} messages) is in the transcript {transcript}; read it if a "
        "detail is missing from the summary.",
    ]
    if parts > 1:
        lines.append(
            f"The history did not fit one summary request, so the summary was written in {parts} parts, "
            "each adding the next messages to the summary so far; it covers all of them."
        )
    if dropped:
        lines.append(
            f"{dropped} earlier messages were only in the transcript: they did not fit in the "
            "summary request, so this summary does not cover them."
        )
    return "\n".join([*lines, "", summary])


def transcript_named(text: Any) -> Path | None:
    """The transcript a continuation note points to, or None when the text is not one."""
    found = _TRANSCRIPT_NAMED.search(text) if isinstance(text, str) else None
    return Path(found.group(1)) if found else None


# ------------------------------------------------------------ restoration: files put back

RESTORED = "[Restored after compaction:"  # how a restored file block starts


_RESTORED_PATH = re.compile(r"\[Restored after compaction: ([^,\]]+),")


def restored_head(path: str, lines: int) -> str:
    """The first line of a restored file block."""
    return f"{RESTORED} {path}, {lines} lines, unchanged since the agent read it]"


def restored_path(text: Any) -> str | None:
    """The path a restored file block holds, or None when the text is not one."""
    found = _RESTORED_PATH.match(text) if isinstance(text, str) else None
    return found.group(1) if found else None


# ------------------------------------------------------------ other agents'

# ours, then the forms other agents' sessions use for what they removed ([snipped ...], [Earlier ...])
FOREIGN_HEADS = ("[snipped", "[Earlier tool result")
HEADS = (MARKER_OPEN, SNIP_HEAD, CLEARED_HEAD, CONTINUATION_HEAD, RESTORED, *FOREIGN_HEADS)


def is_placeholder(text: Any) -> bool:
    """True when a text starts like any placeholder or marker the layers (or other agents) write."""
    return isinstance(text, str) and text.startswith(HEADS)
