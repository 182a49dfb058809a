"""Context editing on the server: ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``.

What the documentation says (https://platform.claude.com/docs/en/build-with-claude/context-editing):
once the prompt exceeds the trigger, "the API automatically clears the oldest tool results in
chronological order, replacing them with placeholder text"; ``clear_tool_inputs`` also clears the
tool calls' parameters; ``clear_at_least`` means the context "will only be modified if at least
this many tokens can be removed" (SDK docstring); the edit happens server-side, so the client keeps
its full history; and clearing "invalidates cached prompt prefixes" from the cleared content on
(``caching`` sees that by itself: the edited prefix hashes differently). ``clear_thinking_20251015``
removes thinking blocks from all but the last ``keep`` assistant turns.

``keep`` means what the SDK says, the "Number of tool uses to retain in the conversation" (the
docstring of ``keep`` in ``BetaClearToolUses20250919EditParam``; ``BetaToolUsesKeepParam`` is only
its shape, ``{"type": "tool_uses", "value": n}``): once the request is over the trigger, every tool
use but the newest ``keep`` is cleared (24 tool uses, ``keep`` 3: 21 cleared, 3 keep their results).

The server's own choices, where the docs are silent: the placeholder's wording; ``keep`` counts
the newest tool uses of every tool, excluded tools included (an excluded use among the newest
``keep`` takes one of the kept places); the uses of an excluded tool are never cleared ("Tool
names whose uses are preserved from clearing", SDK ``exclude_tools``), and they count toward a
``tool_uses`` trigger; a clearing that would remove no tokens does not happen; a turn made only of
thinking keeps it (an empty turn would be refused). Each edit reports the tool uses cleared in the
request and the tokens that removed, counted as the rest of the server counts.

An option invented by the offline server, which the real API does not have, off by default
(``x-compaction-clear-in-rounds: on``, ``rounds=True``): clearing in *rounds*. How the API decides
when to clear again is not documented; the docs say that after a clear "subsequent requests can
reuse the newly cached prefix". With rounds the conversation is replayed turn by turn, and a new
round clears only when the context *as already cleared* exceeds the trigger again (and gains
``clear_at_least``), so the cleared prefix stays the same between rounds and is read from the
cache; a round can leave more than ``keep`` results in place.
"""

from __future__ import annotations

from collections.abc import Callable

from compaction.core.messages import blocks, tool_result_blocks, tool_use_blocks
from compaction.offline.server.context_config import ClearThinking, ClearToolUses

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


def clear_tool_uses(
    messages: list, edit: ClearToolUses, count: Count, *, rounds: bool = False
) -> tuple[list, dict | None]:
    """(messages after the edit, its applied_edits entry or None when it did not apply).

    Without ``rounds``: over the trigger, all but the newest ``keep`` tool uses (and those of
    excluded tools) are cleared, provided that removes more than 0 and at least ``clear_at_least``
    tokens. With ``rounds`` (the server's own option), clearing happens in rounds, replayed from
    the start of the conversation: after each user turn,
    if the context as already cleared exceeds the trigger (``input_tokens``: its tokens;
    ``tool_uses``: the tool uses sent and not cleared), every tool use but the newest ``keep`` and
    those of excluded tools is cleared, provided that removes more than 0 and at least
    ``clear_at_least`` more tokens. Between rounds the
    cleared prefix stays the same, so later requests read it from the cache.
    """
    uses = tool_uses(messages)
    names = {b["id"]: b.get("name") for _, _, b in uses}
    if not rounds:
        return _clear_once(messages, [b["id"] for _, _, b in uses], names, edit, count)
    head = count([])
    ids = [_ids(m) for m in messages]  # message index -> tool_use ids its blocks mention
    cleared: set[str] = set()  # tool_use ids cleared by the rounds so far
    now: list[int] = []  # message index -> its tokens with the current rounds applied
    running = head  # tokens of the prefix so far, as cleared

    def tokens(k: int, gone: set[str]) -> int:
        message = messages[k]
        if ids[k] & gone:
            message = _apply([message], gone, names, edit)[0]
        return count([message]) - head

    sent: list[str] = []  # tool uses sent by this point, oldest first
    for t, message in enumerate(messages):
        now.append(tokens(t, cleared))
        running += now[t]
        if message.get("role") == "assistant":
            sent += [b["id"] for b in tool_use_blocks(message)]
            continue
        kind, threshold = edit.trigger
        if (running if kind == "input_tokens" else len(set(sent) - cleared)) <= threshold:
            continue
        older = sent[: max(0, len(sent) - edit.keep)]
        targets = cleared | {u for u in older if names[u] not in edit.exclude_tools}
        if targets == cleared:
            continue
        touched = {k: tokens(k, targets) for k in range(t + 1) if ids[k] & (targets - cleared)}
        gain = sum(now[k] - after for k, after in touched.items())
        if gain > 0 and gain >= edit.clear_at_least:
            cleared = targets
            for k, after in touched.items():
                now[k] = after
            running -= gain
    if not cleared:
        return messages, None
    edited = _apply(messages, cleared, names, edit)
    entry = {
        "type": edit.type,
        "cleared_tool_uses": len(cleared),
        "cleared_input_tokens": count(messages) - count(edited),
    }
    return edited, entry


def _clear_once(messages: list, sent: list[str], names: dict, edit: ClearToolUses, count: Count):
    """The documented edit: over the trigger, clear every tool use but the newest ``keep``."""
    kind, threshold = edit.trigger
    before = count(messages)
    if (before if kind == "input_tokens" else len(sent)) <= threshold:
        return messages, None
    older = sent[: max(0, len(sent) - edit.keep)]
    cleared = {u for u in older if names[u] not in edit.exclude_tools}
    edited = _apply(messages, cleared, names, edit)
    gain = before - count(edited)
    if not cleared or gain <= 0 or gain < edit.clear_at_least:
        return messages, None
    return edited, {"type": edit.type, "cleared_tool_uses": len(cleared), "cleared_input_tokens": gain}


def _ids(message: dict) -> set[str]:
    """The tool_use ids a message's blocks mention: its calls' and its results'."""
    return {b.get("id") for b in tool_use_blocks(message)} | {
        b.get("tool_use_id") for b in tool_result_blocks(message)
    }


def _apply(messages: list, cleared: set[str], names: dict, edit: ClearToolUses) -> list:
    """The messages with the results (and, as configured, the inputs) of ``cleared`` replaced."""
    if not cleared:
        return messages
    targets = {u: names[u] for u in cleared}
    out = []
    for message in messages:
        content = blocks(message)
        new = [_cleared(b, targets, edit.clear_tool_inputs) for b in content]
        out.append({**message, "content": new} if new != content else message)
    return out


def _cleared(block: dict, targets: dict, clear_input: bool | tuple) -> dict:
    kind = block.get("type")
    if kind == "tool_result" and block.get("tool_use_id") in targets:
        return {**block, "content": PLACEHOLDER}
    if kind == "tool_use" and block.get("id") in targets:
        name = targets[block["id"]]
        if clear_input is True or (isinstance(clear_input, tuple) and name in clear_input):
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
