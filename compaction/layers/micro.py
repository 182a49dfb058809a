"""L2 micro_compact: replace old tool results with a one-line note of what to re-run.

All tool results but the newest ``keep_recent`` (counted over the whole conversation) have their
content replaced by a placeholder that names the tool and what to call again: the path for a file
read, the command for bash, the pattern for glob, the input for anything else. The block keeps its
``tool_use_id`` and ``is_error``, so pairing and error flags are intact. Skipped: results shorter
than ``min_chars``, results of ``exclude_tools``, results already replaced, and persisted-output
markers (already small, and they say where the full output is).

Sizes count the text of a result; non-text blocks (images) are dropped with it when it is replaced.
Every clearing changes a message that was already sent, so a prompt cache is written again from
that message on (the pipeline clears in batches for that reason). Deliberately left out: saving what
is cleared (the pipeline's transcript keeps it), clearing tool inputs, the API's server-side clearing
(``clear_tool_uses_20250919``, which also invalidates the cached prefix and costs cache writes, per
the context-editing docs), and Claude Code's cache-editing micro-compaction, which deletes results
without rewriting the cached prefix through an internal mechanism that is not a public API feature.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compaction.core.guards import message_list, whole
from compaction.core.messages import blocks, result_chars
from compaction.core.placeholders import CLEARED_HEAD, is_cleared, is_persisted_marker  # noqa: F401
from compaction.core.placeholders import cleared_placeholder as placeholder_for


def micro_compact(
    messages: list[dict],
    *,
    keep_recent: int = 3,
    min_chars: int = 120,
    exclude_tools: Iterable[str] = (),
) -> list[dict]:
    """Replace all but the newest ``keep_recent`` tool results with a placeholder naming the tool."""
    excluded = _check_params(messages, keep_recent, min_chars, exclude_tools)
    # (message index, block index) of every tool_result, oldest first
    found = [
        (i, j)
        for i, m in enumerate(messages)
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for j, b in enumerate(m["content"])
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    old = found[: max(0, len(found) - keep_recent)]
    calls = _Calls(messages)  # tool_use_id -> its tool_use block, looked up only when needed
    out = list(messages)
    for i, j in old:
        block = messages[i]["content"][j]
        content = block.get("content", "")
        if is_cleared(content) or is_persisted_marker(content) or result_chars(block) < min_chars:
            continue
        call = calls.find(block.get("tool_use_id"), i)
        name = call.get("name", "?") if call else None
        if name in excluded:
            continue
        note = placeholder_for(name, (call.get("input") or {}) if call else None)
        if len(note) >= result_chars(block):
            continue  # the note would not be smaller
        if out[i] is messages[i]:
            out[i] = {**messages[i], "content": list(messages[i]["content"])}
        out[i]["content"][j] = {**block, "content": note}
    return out


class _Calls:
    """Finds the tool_use behind a result: first in the messages just before it, then anywhere.

    Old results are mostly cleared already, so only a few lookups happen per pass; searching back
    from the result finds its call in the message before it, instead of mapping the whole list.
    """

    def __init__(self, messages: list[dict]):
        self.messages = messages
        self._all: dict[str, dict] | None = None

    def find(self, use_id: Any, index: int) -> dict:
        """The tool_use block with ``use_id``, searching back from message ``index``; {} if none."""
        for k in range(index - 1, max(index - 3, -1), -1):
            for b in _tool_uses(self.messages[k]):
                if b.get("id") == use_id:
                    return b
        if self._all is None:  # a call further back (or none): map every call once
            self._all = {b["id"]: b for m in self.messages for b in _tool_uses(m) if "id" in b}
        return self._all.get(use_id, {})


def _tool_uses(message: dict) -> list[dict]:
    content = message.get("content") if message.get("role") == "assistant" else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def cleared_count(messages: list[dict]) -> int:
    """How many tool results in a list are placeholders of this layer."""
    return sum(
        1
        for m in messages
        if m.get("role") == "user"
        for b in blocks(m)
        if b.get("type") == "tool_result" and is_cleared(b.get("content"))
    )


def _check_params(messages: Any, keep_recent: Any, min_chars: Any, exclude_tools: Any) -> frozenset:
    message_list(messages)
    whole("keep_recent", keep_recent)
    whole("min_chars", min_chars)
    if isinstance(exclude_tools, str) or not isinstance(exclude_tools, Iterable):
        raise ValueError(f"exclude_tools must be a collection of tool names, got {exclude_tools!r}")
    names = frozenset(exclude_tools)
    if not all(isinstance(n, str) for n in names):
        raise ValueError("exclude_tools must hold tool names (strings)")
    return names
