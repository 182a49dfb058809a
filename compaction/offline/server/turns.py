"""Consecutive turns of the same role, merged the way the Messages API merges them.

The SDK's docstring of ``messages`` says: "Consecutive ``user`` or ``assistant`` turns in your
request will be combined into a single turn." The offline server does the same before it judges a
request, so two user turns in a row are accepted, and text merged in front of tool results is
refused as the API refuses it (the tool_use then has no results *immediately* after).
``origin`` maps each merged turn back to the first message of the request that formed it, so an
error can name the index the client sent (the server's choice: the API's own index is not
documented). Deliberately left out: merging anything else (system prompts, adjacent text blocks).
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
        if merged and message.get("role") == merged[-1].get("role") and _mergeable(message, merged[-1]):
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
