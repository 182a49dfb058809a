"""Prompt-cache breaks: which requests of a session change messages that were already sent.

The API caches the prefix of a request; the next request reads it back cheaply as long as it
starts with the same messages. Appending keeps the cache; changing an earlier message (a snip,
a placeholder, a summary) breaks it from that message on, and everything after it is sent and
cached again. ``cache_breaks`` finds those points in the list of requests a session sent, and
``resent_tokens`` adds up what they cost.

Deliberately left out: cache breakpoints (``cache_control``), the cache's lifetime, the minimum
cacheable length, and the system prompt and tools, which this course never changes mid-session.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compaction.core.tokens import message_tokens

Request = Sequence[Mapping[str, Any]]  # the messages of one model call


def common_prefix(before: Request, after: Request) -> int:
    """How many leading messages two requests share."""
    n = 0
    for a, b in zip(before, after, strict=False):
        if a is not b and a != b:
            break
        n += 1
    return n


def cache_breaks(requests: Sequence[Request]) -> list[tuple[int, int]]:
    """``(request index, message index)`` for every request that changed an already-sent message."""
    # each pair: the request that broke the cache, and the first message it changed
    breaks = []
    for i in range(1, len(requests)):
        previous = requests[i - 1]
        kept = common_prefix(previous, requests[i])
        if kept < len(previous):
            breaks.append((i, kept))
    return breaks


def resent_tokens(requests: Sequence[Request], method: str = "chars") -> int:
    """Tokens sent again uncached because of the breaks: each broken request's tail after the break."""
    total = 0
    for i, at in cache_breaks(requests):
        total += sum(message_tokens(m, method) for m in requests[i][at:])
    return total
