"""Context editing on the server: ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``.

What the documentation says (https://platform.claude.com/docs/en/build-with-claude/context-editing):
once the prompt exceeds the trigger, "the API automatically clears the oldest tool results in
chronological order, replacing them with placeholder text"; ``clear_tool_inputs`` also clears the
tool calls' parameters; ``clear_at_least`` means the context "will only be modified if at least
this many tokens can be removed" (SDK docstring); the edit happens server-side, so the client keeps
its full history; and clearing "invalidates cached prompt prefixes" from the cleared content on
(``caching`` sees that by itself: the edited prefix hashes differently). ``clear_thinking_20251015``
removes thinking blocks from all but the last ``keep`` assistant turns.

The server's own choices, where the docs are silent: the placeholder's wording; ``keep`` counts
the newest tool uses of every tool, and an excluded tool's older uses are skipped, not counted; a
turn made only of thinking keeps it (an empty turn would be refused). Each edit reports the tokens
it removed, counted as the rest of the server counts.
"""

from __future__ import annotations

from collections.abc import Callable

from compaction.messages import blocks
from compaction.offline.context_config import ClearThinking, ClearToolUses

PLACEHOLDER = "[tool result cleared by context management]"  # the offline server's wording
THINKING = ("thinking", "redacted_thinking")

Count = Callable[[list], int]  # messages -> input tokens of the request holding them


def tool_uses(messages: list) -> list[tuple[int, int, dict]]:
    """Every tool_use of the conversation as (message index, block index, block), oldest first."""
    found = []
    for i, message in enumerate(messages):
        if message.get("role") == "assistant":
            found += [(i, j, b) for j, b in enumerate(blocks(message)) if b.get("type") == "tool_use"]
    return found


def clear_tool_uses(messages: list, edit: ClearToolUses, count: Count) -> tuple[list, dict | None]:
    """(messages after the edit, its applied_edits entry or None when it did not apply)."""
    uses = tool_uses(messages)
    kind, threshold = edit.trigger
    before = count(messages)
    if (before if kind == "input_tokens" else len(uses)) <= threshold:
        return messages, None
    older = uses[: max(0, len(uses) - edit.keep)]
    targets = {b["id"]: b.get("name") for _, _, b in older if b.get("name") not in edit.exclude_tools}
    if not targets:
        return messages, None
    clear_input = edit.clear_tool_inputs
    edited, cleared = [], set()
    for message in messages:
        content = blocks(message)
        new = [_cleared(b, targets, clear_input, cleared) for b in content]
        edited.append({**message, "content": new} if new != content else message)
    after = count(edited)
    if not cleared or before - after < edit.clear_at_least:
        return messages, None
    entry = {"type": edit.type, "cleared_tool_uses": len(cleared), "cleared_input_tokens": before - after}
    return edited, entry


def _cleared(block: dict, targets: dict, clear_input: bool | tuple, cleared: set) -> dict:
    kind = block.get("type")
    if kind == "tool_result" and block.get("tool_use_id") in targets:
        if block.get("content") != PLACEHOLDER:
            cleared.add(block["tool_use_id"])
        return {**block, "content": PLACEHOLDER}
    if kind == "tool_use" and block.get("id") in targets:
        name = targets[block["id"]]
        if clear_input is True or (isinstance(clear_input, tuple) and name in clear_input):
            if block.get("input"):
                cleared.add(block["id"])
            return {**block, "input": {}}
    return block


def clear_thinking(messages: list, edit: ClearThinking, count: Count) -> tuple[list, dict | None]:
    """(messages with thinking removed from older assistant turns, its applied_edits entry or None)."""
    if edit.keep is None:
        return messages, None
    turns = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    older = set(turns[: max(0, len(turns) - edit.keep)])
    edited, turns_cleared = [], 0
    for i, message in enumerate(messages):
        content = blocks(message)
        kept = [b for b in content if b.get("type") not in THINKING]
        if i in older and kept and len(kept) < len(content):
            edited.append({**message, "content": kept})
            turns_cleared += 1
        else:
            edited.append(message)
    if not turns_cleared:
        return messages, None
    entry = {"type": edit.type, "cleared_thinking_turns": turns_cleared}
    entry["cleared_input_tokens"] = count(messages) - count(edited)
    return edited, entry
