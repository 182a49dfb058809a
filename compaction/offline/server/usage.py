"""The ``usage`` of an answer: the input split by the prompt cache, with or without a model turn.

``cached_usage`` marks the top-level ``cache_control`` on the last block (the SDK's "automatic"
caching; a turn-scoped system message is skipped, as "The top-level automatic caching field skips
turn-scoped messages when it picks a breakpoint":
https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages), counts each
prefix the way the rest of the server counts, and lets ``caching`` split the
input into cache reads, cache writes and the rest. ``zero_usage`` is the top-level usage of an
answer that stopped after a compaction: the compaction's own tokens are reported only in
``usage.iterations`` (SDK ``BetaUsage.iterations``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from compaction.core.messages import blocks
from compaction.core.tokens import count_text, estimate_tokens, message_tokens
from compaction.offline.server.caching import Prefix, PromptCache
from compaction.offline.server.request import Request
from compaction.offline.server.system_messages import is_turn_scoped


def zero_usage() -> dict:
    """A usage block with every count at zero."""
    return {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }


def _as_blocks(message: dict) -> bool:
    """Whether a message's content is already its list of blocks (it can then be used as it is)."""
    content = message.get("content")
    return isinstance(content, list) and all(isinstance(b, dict) for b in content)


def cached_usage(
    cache: PromptCache,
    request: Request,
    view: list,
    model: str,
    scope: str,
    head: int,
    tokens_of: Callable[[dict], int],
    min_tokens: int | None = None,
) -> dict:
    """``usage`` for the request the model saw, split into cache reads, writes and the rest."""
    # the top-level cache_control marks the last block, skipping turn-scoped system messages
    marks = [k for k, m in enumerate(view) if not is_turn_scoped(m)]
    if request.auto_cache and marks:
        k = marks[-1]
        last = blocks(view[k])
        if last:
            marked = {**last[-1], "cache_control": request.auto_cache}
            view = view[:k] + [{**view[k], "content": last[:-1] + [marked]}] + view[k + 1 :]
    shown = [m if _as_blocks(m) else {**m, "content": blocks(m)} for m in view]
    prefix = Prefix(model, request.tools, request.system_blocks, shown, scope)
    starts = [head]  # tokens before each message
    for message in shown:
        starts.append(starts[-1] + tokens_of(message))
    total = starts[-1]

    def tokens_to(k: int) -> int:
        where, i, j = prefix.places[k]
        if where == "tools":
            return min(head, count_text(json.dumps(request.tools[: i + 1], ensure_ascii=False), "tiktoken"))
        if where == "system":
            tools_only = estimate_tokens([], "tiktoken", tools=request.tools) if request.tools else 0
            joined = "\n".join(str(b.get("text", "")) for b in request.system_blocks[: i + 1])
            return min(head, tools_only + count_text(joined, "tiktoken"))
        content = shown[i]["content"]
        if j == len(content) - 1:
            return starts[i + 1]
        partial = message_tokens({**shown[i], "content": content[: j + 1]}, "tiktoken")
        return min(starts[i + 1], starts[i] + partial)

    return cache.account(prefix, tokens_to, total, min_tokens)
