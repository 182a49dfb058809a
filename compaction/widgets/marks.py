"""What a block is, as a learner sees it: a placeholder or marker (and its words), a summary, or content.

The layers own their formats (``snip.is_snip_placeholder``, ``micro.is_cleared``,
``budget.is_persisted_marker``, ``summarize.transcript_of``); this module only asks them, plus two
generic openings a learner's own layer may write (``[snipped``, ``[Earlier tool result``). It also
sorts every block into the kinds the window gauge stacks. Deliberately left out: judging whether a
placeholder is a good one.
"""

from __future__ import annotations

from typing import Any

from compaction.budget import MARKER_OPEN, is_persisted_marker
from compaction.messages import blocks, text_of
from compaction.micro import is_cleared
from compaction.snip import is_snip_placeholder
from compaction.summarize import transcript_of

GENERIC_HEADS = ("[snipped", "[Earlier tool result")  # placeholders of a learner's own layer


def _content_text(content: Any) -> str:
    return text_of(content) if isinstance(content, (str, list)) else ""


def is_summary(message: dict) -> bool:
    """True for the message a summary pass writes (it names the transcript of what it replaced)."""
    return message.get("role") == "user" and transcript_of(message) is not None


def block_words(block: dict) -> str | None:
    """A placeholder's or marker's own words (a marker: where the output went), else None."""
    kind = block.get("type")
    if kind == "text":
        value = str(block.get("text", ""))
        return value if is_snip_placeholder(block) or value.startswith(GENERIC_HEADS) else None
    if kind != "tool_result":
        return None
    content = block.get("content", "")
    value = _content_text(content)
    if is_cleared(content) or value.startswith(GENERIC_HEADS):
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
