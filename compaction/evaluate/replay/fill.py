"""What fills a request, by kind: user text, assistant text, tool calls, results, placeholders, summary.

The kinds and their colours are the palette's (``palette.KINDS``). A tool result that a layer
replaced (a cleared placeholder or a persisted-output marker), and a snip placeholder, count as
placeholders; the message that carries a summary counts as summary. Block text is counted with
the same counter as the replay, so the parts add up to the request's estimate give or take the
per-message framing. Deliberately left out: the system prompt and tools (not replayed).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from compaction.core.messages import blocks, text_of
from compaction.core.placeholders import SNIP_HEAD, is_cleared, is_persisted_marker, transcript_named
from compaction.presentation.palette import KINDS


def fill_by_kind(messages: list[dict], count: Callable[[str], int]) -> dict[str, int]:
    """Kind -> tokens of ``messages`` (``count`` turns a string into tokens), every kind named."""
    fill = dict.fromkeys(KINDS, 0)
    for message in messages:
        said = text_of(message["content"])
        if message["role"] == "user" and transcript_named(said):  # a summary's continuation message
            fill["summary"] += count(said)
            continue
        for block in blocks(message):
            fill[_kind(message["role"], block)] += count(_text(block))
    return fill


def _kind(role: str, block: dict) -> str:
    kind = block.get("type")
    if kind == "tool_use":
        return "tool_calls"
    if kind == "tool_result":
        content = block.get("content", "")
        return "placeholders" if is_cleared(content) or is_persisted_marker(content) else "tool_results"
    if kind == "text" and str(block.get("text", "")).startswith(SNIP_HEAD):
        return "placeholders"
    return "user_text" if role == "user" else "assistant_text"


def _text(block: dict) -> str:
    kind = block.get("type")
    if kind == "tool_use":
        return f"{block.get('name', '')} {json.dumps(block.get('input', {}), ensure_ascii=False)}"
    if kind == "tool_result":
        content = block.get("content", "")
        return content if isinstance(content, str) else text_of(content)
    return str(block.get("text", block.get("thinking", "")))
