"""What a session's requests cost with prompt caching, in units of base input tokens.

The multipliers are the Messages API's published prices for prompt caching at the default model,
read from its row of ``compaction.core.models.MODELS`` (where each price cites its page) through
``compaction.agent.server_side.PRICE``: for Claude Sonnet 5.5 a 5-minute cache write costs 1.25
times the base input price, a cache read 0.05 times. ``price`` assumes caching as a harness that
clears old results would mark it: the system prompt and tools are one cache entry (written once,
then read); every request writes an entry at its end and one at its *clearing frontier*, the end of
its last cleared result (``compaction.core.placeholders.clearing_frontier``), which the next
clearing leaves as it is; a request reads the longest earlier entry it starts with, and everything
after that is written. Three breakpoints per request (after the system prompt and tools, at the
clearing frontier, at the end), within the API's four ("A maximum of 4 blocks
with cache_control may be provided", as ``compaction.offline.server.caching`` cites). A request
that changes an already-sent message (a snip, a placeholder, a summary) is a *cache break*: it pays
the write price again for everything after the last entry before the change. The course's own API
wrapper (``compaction.agent.server_side``) marks only the end (the top-level ``cache_control``).

Deliberately left out: the cache's lifetime (every entry lives for the whole session), the lookback
limit on how far before a breakpoint the API searches for an entry, the minimum cacheable length,
1-hour writes, and output tokens (a summary's own output is not counted).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compaction.agent.server_side import PRICE
from compaction.core.messages import shared_prefix
from compaction.core.placeholders import clearing_frontier
from compaction.core.tokens import TokenCounter, estimate_tokens, message_tokens

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
        """The priced total in base input tokens: reads at ``CACHE_READ``, writes at ``CACHE_WRITE``."""
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


class SharedCounter(TokenCounter):
    """A ``TokenCounter`` (estimates that pay only for what changed) counting in a ``Tokens`` cache."""

    def __init__(self, tokens: Tokens):
        super().__init__("tiktoken")
        self.tokens = tokens

    def message_tokens(self, message: dict) -> int:
        """Tokens of one message, from the shared cache."""
        return self.tokens(message)


def framing_tokens(system: Any = None, tools: Any = None) -> int:
    """Tokens of a request's system prompt and tools."""
    return estimate_tokens([], "tiktoken", system=system, tools=tools) if system or tools else 0


class Fingerprints:
    """A digest per message dict, computed once: equal messages share it (messages are never mutated)."""

    def __init__(self):
        self._seen: dict[int, tuple[Mapping, bytes]] = {}  # id(message) -> (message, digest)

    def __call__(self, message: Mapping[str, Any]) -> bytes:
        hit = self._seen.get(id(message))
        if hit is None or hit[0] is not message:
            canonical = json.dumps(message, sort_keys=True, separators=(",", ":"), default=str)
            hit = (message, hashlib.blake2b(canonical.encode(), digest_size=16).digest())
            self._seen[id(message)] = hit
        return hit[1]


class Prefixes:
    """The cache entries written so far, as a trie of message digests per framing key.

    Finding the longest entry a request starts with walks the request once, instead of comparing
    it with every earlier entry; a request that extends an entry walks on from that entry's end.
    """

    def __init__(self):
        self._roots: dict[str, list] = {}  # framing key -> [children by digest, an entry ends here]

    def longest(self, key: str, prints: Sequence[bytes], start: tuple[int, list] | None = None) -> int:
        """How many leading messages of a request the longest matching entry covers.

        ``start`` is ``(depth, node)``: an entry known to end at ``node``, the request's first
        ``depth`` messages, so the walk begins there.
        """
        depth, node = start if start is not None else (0, self._roots.get(key))
        best = depth
        for digest in prints[depth:]:
            if node is None:
                break
            depth += 1
            node = node[0].get(digest)
            if node is not None and node[1]:
                best = depth
        return best

    def add(self, key: str, prints: Sequence[bytes], start: tuple[int, list] | None = None) -> list:
        """Record an entry: the request's messages, in order; the node where it ends.

        ``start`` is ``(depth, node)``: a node already holding the first ``depth`` messages.
        """
        depth, node = start if start is not None else (0, self._roots.setdefault(key, [{}, False]))
        for digest in prints[depth:]:
            node = node[0].setdefault(digest, [{}, False])
        node[1] = True
        return node


@dataclass
class _Last:
    """The last request priced under one framing key: what the next one most likely extends."""

    messages: Sequence[dict]
    prints: list[bytes]
    sums: list[int]  # sums[k]: tokens of the first k messages
    end: list  # the trie node its entry ends at
    frontier: int = 0  # clearing_frontier of its messages


def price(requests: Sequence[Request], tokens: Tokens | None = None) -> Cost:
    """Price a session's requests, in order, under the cache model of this module.

    Each request is compared with the last one under its framing key: the messages they share are
    neither digested nor counted again, and the trie walk starts where that request's entry ends.
    """
    tokens = tokens or Tokens()
    fingerprint, entries = Fingerprints(), Prefixes()
    cost = Cost()
    framings: set[str] = set()
    last: dict[str, _Last] = {}
    previous_agent: list[bytes] | None = None
    for request in requests:
        before = last.get(request.key)
        kept = shared_prefix(before.messages, request.messages) if before is not None else 0
        prints = before.prints[:kept] if before is not None else []
        sums = before.sums[: kept + 1] if before is not None else [0]
        for m in request.messages[kept:]:
            prints.append(fingerprint(m))
            sums.append(sums[-1] + tokens(m))
        extends = before is not None and kept == len(before.messages)  # its entry is a prefix of this
        hit = entries.longest(request.key, prints, (kept, before.end) if extends else None)
        framing_read = request.key in framings
        read = (request.framing if framing_read else 0) + sums[hit]
        written = (0 if framing_read else request.framing) + sums[-1] - sums[hit]
        cost.requests += 1
        cost.sent += request.framing + sums[-1]
        cost.read += read
        cost.written += written
        cost.per_request.append(CACHE_READ * read + CACHE_WRITE * written)
        if not request.summary:
            if previous_agent is not None and prints[: len(previous_agent)] != previous_agent:
                cost.breaks += 1
                cost.rewritten += sums[-1] - sums[hit]
            previous_agent = prints
        framings.add(request.key)
        end = entries.add(request.key, prints, (kept, before.end) if extends else None)
        if before is not None and (before.frontier == 0 or before.frontier < kept):
            # the shared messages were scanned for the request before: only the new ones are
            frontier = clearing_frontier(request.messages, kept, before.frontier)
            new = frontier != before.frontier
        else:
            frontier, new = clearing_frontier(request.messages), True
        if frontier and new:
            entries.add(request.key, prints[:frontier])
        last[request.key] = _Last(request.messages, prints, sums, end, frontier)
    return cost
