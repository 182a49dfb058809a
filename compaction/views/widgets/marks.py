"""What a block is, as a learner sees it: a placeholder or marker (and its words), a summary, or content.

Every format has one home, ``compaction.core.placeholders`` (snip notes, micro placeholders,
persisted-output markers, the summary's continuation note, and the openings other agents use for
what they removed); this module only asks it. It also sorts every block into the kinds the window
gauge stacks. Deliberately left out: judging whether a placeholder is a good one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compaction.core.messages import blocks, text_of
from compaction.core.placeholders import (
    FOREIGN_HEADS,
    MARKER_OPEN,
    is_cleared,
    is_persisted_marker,
    snipped_count,
    transcript_named,
)


def _content_text(content: Any) -> str:
    return text_of(content) if isinstance(content, (str, list)) else ""


def transcript_of(message: dict) -> Path | None:
    """The transcript a summary's continuation note names, if the message opens with one."""
    first = next((b for b in blocks(message) if b.get("type") == "text"), None)
    return transcript_named(str(first.get("text", ""))) if first is not None else None


def is_summary(message: dict) -> bool:
    """True for the message a summary pass writes (it names the transcript of what it replaced)."""
    return message.get("role") == "user" and transcript_of(message) is not None


def block_words(block: dict) -> str | None:
    """A placeholder's or marker's own words (a marker: where the output went), else None."""
    kind = block.get("type")
    if kind == "text":
        value = str(block.get("text", ""))
        return value if snipped_count(value) is not None or value.startswith(FOREIGN_HEADS) else None
    if kind != "tool_result":
        return None
    content = block.get("content", "")
    value = _content_text(content)
    if is_cleared(content) or value.startswith(FOREIGN_HEADS):
        return value
    if is_persisted_marker(content) or value.startswith(MARKER_OPEN):
        lines = [ln for ln in value.splitlines()[1:3] if ln.strip()]  # size and path, then how to read it
        return " ".join(lines) or value
    return None


def placeholder_words(message: dict) -> list[str]:
    """The words of every placeholder and marker in a message, in order."""
    return [w for w in (block_words(b) for b in blocks(message)) if w is not None]


def fill_kind(message: dict, block: dict) -> str:
    """Which gauge kind a block fills: user_text, assistant_text, tool_calls, tool_results, placeholders."""
    kind = block.get("type")
    if kind == "tool_use":
        return "tool_calls"
    if block_words(block) is not None:
        return "placeholders"
    if kind == "tool_result":
        return "tool_results"
    return "assistant_text" if message.get("role") == "assistant" else "user_text"
