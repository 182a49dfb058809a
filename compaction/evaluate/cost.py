"""What a session's requests cost with prompt caching, in units of base input tokens.

The multipliers are the Messages API's published prices for prompt caching
(https://platform.claude.com/docs/en/build-with-claude/prompt-caching, section "Pricing", and
https://platform.claude.com/docs/en/about-claude/pricing): a 5-minute cache write costs 1.25 times
the base input price, a cache read 0.1 times. ``price`` assumes automatic caching as a harness uses
it: the system prompt and tools are one cache entry (written once, then read), every request writes
an entry at its end, and a request reads the longest earlier entry it starts with; everything after
that is written. A request that changes an already-sent message (a snip, a placeholder, a summary)
is a *cache break*: it pays the write price again for everything after the change.

Deliberately left out: the cache's lifetime (every entry lives for the whole session), the lookback
limit on how far before a breakpoint the API searches for an entry, the minimum cacheable length,
1-hour writes, and output tokens (a summary's own output is not counted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compaction.server_side import PRICE
from compaction.tokens import estimate_tokens, message_tokens

CACHE_WRITE = PRICE["5m"]  # 5-minute cache write, times the base input price (one home: server_side)
CACHE_READ = PRICE["read"]  # cache hit, times the base input price


@dataclass(frozen=True)
class Request:
    """One call to the model as the API would price it: its framing key and messages."""

    messages: tuple  # the message dicts sent, in order
    framing: int  # tokens of the system prompt and tools
    key: str  # identifies system prompt + tools: requests with the same key share that cache entry
    summary: bool = False  # a summary request (not one of the agent's turns)


@dataclass
class Cost:
    """Totals for a session: tokens sent, read from and written to the cache, and the priced sum."""

    requests: int = 0
    sent: int = 0  # every input token of every request, summary requests included
    read: int = 0
    written: int = 0
    breaks: int = 0  # agent requests that did not extend the agent request before them
    rewritten: int = 0  # tokens written again after those breaks
    per_request: list[float] = field(default_factory=list)  # priced cost of each request

    @property
    def units(self) -> float:
        """The priced total in base input tokens: reads at 0.1, writes at 1.25."""
        return CACHE_READ * self.read + CACHE_WRITE * self.written


class Tokens:
    """Tokens per message dict, counted once (messages are never mutated)."""

    def __init__(self, method: str = "tiktoken"):
        self.method = method
        self._seen: dict[int, tuple[Mapping, int]] = {}  # id(message) -> (message, tokens)

    def __call__(self, message: Mapping[str, Any]) -> int:
        hit = self._seen.get(id(message))
        if hit is None or hit[0] is not message:
            hit = (message, message_tokens(message, self.method))
            self._seen[id(message)] = hit
        return hit[1]


def framing_tokens(system: Any = None, tools: Any = None) -> int:
    """Tokens of a request's system prompt and tools."""
    return estimate_tokens([], "tiktoken", system=system, tools=tools) if system or tools else 0


def _starts_with(request: tuple, entry: tuple) -> bool:
    if len(entry) > len(request):
        return False
    return all(a is b or a == b for a, b in zip(entry, request, strict=False))


def price(requests: Sequence[Request], tokens: Tokens | None = None) -> Cost:
    """Price a session's requests, in order, under the cache model of this module."""
    tokens = tokens or Tokens()
    cost = Cost()
    entries: list[tuple[str, tuple]] = []  # (framing key, messages) written so far, newest last
    framings: set[str] = set()
    previous_agent: tuple | None = None
    for request in requests:
        sizes = [tokens(m) for m in request.messages]
        hit = max(
            (
                len(msgs)
                for key, msgs in entries
                if key == request.key and _starts_with(request.messages, msgs)
            ),
            default=0,
        )
        framing_read = request.key in framings
        read = (request.framing if framing_read else 0) + sum(sizes[:hit])
        written = (0 if framing_read else request.framing) + sum(sizes[hit:])
        cost.requests += 1
        cost.sent += request.framing + sum(sizes)
        cost.read += read
        cost.written += written
        cost.per_request.append(CACHE_READ * read + CACHE_WRITE * written)
        if not request.summary:
            if previous_agent is not None and not _starts_with(request.messages, previous_agent):
                cost.breaks += 1
                cost.rewritten += sum(sizes[hit:])
            previous_agent = request.messages
        framings.add(request.key)
        entries.append((request.key, request.messages))
    return cost
