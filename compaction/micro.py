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

import json
from collections.abc import Iterable
from typing import Any

from compaction.budget import is_persisted_marker, result_chars
from compaction.messages import blocks, tool_inputs, tool_names

CLEARED_HEAD = "[Old tool result cleared: "
_MAX_SHOWN = 200  # characters of a command or input shown in a placeholder


def placeholder_for(name: str | None, tool_input: dict | None) -> str:
    """The one-line note that replaces an old result of tool ``name`` called with ``tool_input``."""
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
    return f"{CLEARED_HEAD}{what}. {again} if you need its output.]"


def is_cleared(content: Any) -> bool:
    """True when a tool_result content is a placeholder of this layer."""
    return isinstance(content, str) and content.startswith(CLEARED_HEAD) and "\n" not in content


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
    names, inputs = tool_names(messages), tool_inputs(messages)  # tool_use_id -> name / input
    out = list(messages)
    for i, j in old:
        block = messages[i]["content"][j]
        use_id, content = block.get("tool_use_id"), block.get("content", "")
        if (
            result_chars(block) < min_chars
            or names.get(use_id) in excluded
            or is_cleared(content)
            or is_persisted_marker(content)
        ):
            continue
        note = placeholder_for(names.get(use_id), inputs.get(use_id))
        if len(note) >= result_chars(block):
            continue  # the note would not be smaller
        if out[i] is messages[i]:
            out[i] = {**messages[i], "content": list(messages[i]["content"])}
        out[i]["content"][j] = {**block, "content": note}
    return out


def cleared_count(messages: list[dict]) -> int:
    """How many tool results in a list are placeholders of this layer."""
    return sum(
        1
        for m in messages
        if m.get("role") == "user"
        for b in blocks(m)
        if b.get("type") == "tool_result" and is_cleared(b.get("content"))
    )


def _one_line(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _check_params(messages: Any, keep_recent: Any, min_chars: Any, exclude_tools: Any) -> frozenset:
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise TypeError("messages must be a list of message dicts")
    for name, value in (("keep_recent", keep_recent), ("min_chars", min_chars)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if isinstance(exclude_tools, str) or not isinstance(exclude_tools, Iterable):
        raise ValueError(f"exclude_tools must be a collection of tool names, got {exclude_tools!r}")
    names = frozenset(exclude_tools)
    if not all(isinstance(n, str) for n in names):
        raise ValueError("exclude_tools must hold tool names (strings)")
    return names
