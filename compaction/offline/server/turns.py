"""Consecutive turns of the same role, merged the way the Messages API merges them.

The SDK's docstring of ``messages`` says: "Consecutive ``user`` or ``assistant`` turns in your
request will be combined into a single turn." The offline server does the same before it judges a
request, so two user turns in a row are accepted, and text merged in front of tool results is
refused as the API refuses it (the tool_use then has no results *immediately* after).
``origin`` maps each merged turn back to the first message of the request that formed it, so an
error can name the index the client sent (the server's choice: the API's own index is not
documented). Mid-conversation ``role: "system"`` messages are never merged: consecutive ones are "treated as a
single system section" for placement (https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages),
but each keeps its own ``clear_at``. Deliberately left out: merging anything else (adjacent text blocks).
"""

from __future__ import annotations

from compaction.core.messages import blocks


def merge_turns(messages: list) -> tuple[list, list[int]]:
    """(messages with consecutive same-role turns combined, index of each turn's first message)."""
    merged: list[dict] = []
    origin: list[int] = []  # merged index -> index in the request as sent
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return list(messages), list(range(len(messages)))  # validate() names the bad message
        same = merged and message.get("role") == merged[-1].get("role") and message.get("role") != "system"
        if same and _mergeable(message, merged[-1]):
            merged[-1] = {**merged[-1], "content": _as_blocks(merged[-1]) + _as_blocks(message)}
            continue
        merged.append(message)
        origin.append(i)
    return merged, origin


def _mergeable(*pair: dict) -> bool:
    """Only well-formed, non-empty turns merge; validate() names what is wrong with the rest."""
    for message in pair:
        content = message.get("content")
        if not ((isinstance(content, str) and content.strip()) or (isinstance(content, list) and content)):
            return False
    return True


def _as_blocks(message: dict) -> list:
    content = message["content"]
    return blocks(message) if isinstance(content, str) else list(content)


def block_paths(messages: list, origin: list[int]) -> dict[tuple[int, int], tuple[int, int]]:
    """Each merged (message, block) -> the (message, block) the client sent: paths in answers and errors."""
    paths: dict[tuple[int, int], tuple[int, int]] = {}
    for k, start in enumerate(origin):
        end = origin[k + 1] if k + 1 < len(origin) else len(messages)
        j = 0
        for i in range(start, end):
            content = messages[i].get("content") if isinstance(messages[i], dict) else None
            for sent in range(len(blocks(messages[i])) if isinstance(content, (str, list)) else 0):
                paths[(k, j)] = (i, sent)
                j += 1
    return paths
