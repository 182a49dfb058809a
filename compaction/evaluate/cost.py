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

Two settings test how much a conclusion rests on these assumptions: ``Prices(read=0.1)`` prices
reads at the 0.1x most models have, and ``Prices(lifetime=300, pace=...)`` lets an entry expire when
no request read or wrote it for 300 seconds, the 5-minute cache's lifetime, with requests ``pace``
seconds apart ("The cache is refreshed for no additional cost each time the cached content is
used", the prompt-caching page). By default every entry lives for the whole session.
Deliberately left out: the lookback
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
class Prices:
    """The cache model's multipliers and lifetime: the default model's, or a sensitivity's."""

    read: float = CACHE_READ  # a cache read, times the base input price
    write: float = CACHE_WRITE  # a cache write, times the base input price
    lifetime: float | None = None  # seconds an entry lives unused; None: the whole session
    pace: float = 0.0  # seconds between one request and the next

    def __post_init__(self):
        if (
            self.read < 0
            or self.write < 0
            or self.pace < 0
            or (self.lifetime is not None and self.lifetime <= 0)
        ):
            raise ValueError(f"prices must be non-negative and a lifetime positive: {self}")


DEFAULT_PRICES = Prices()


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
    prices: Prices = DEFAULT_PRICES
    expired: int = 0  # requests whose longest matching entry had expired (they wrote it again)

    @property
    def units(self) -> float:
        """The priced total in base input tokens: reads and writes at ``prices`` (the default model's)."""
        return self.prices.read * self.read + self.prices.write * self.written


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

    def __init__(self, lifetime: float | None = None):
        self._roots: dict[
            str, list
        ] = {}  # framing key -> [children by digest, when an entry here was last used]
        self.lifetime = lifetime  # seconds an entry lives unused; None: forever

    def alive(self, node: list | None, now: float) -> bool:
        """Whether an entry ends at ``node`` and was used within the lifetime."""
        used = None if node is None else node[1]
        return used is not None and (self.lifetime is None or now - used <= self.lifetime)

    def longest(
        self, key: str, prints: Sequence[bytes], start: tuple[int, list] | None = None, now: float = 0.0
    ) -> tuple[int, list | None]:
        """How many leading messages of a request the longest live entry covers, and that entry's node.

        ``start`` is ``(depth, node)``: an entry known to end at ``node``, the request's first
        ``depth`` messages, so the walk begins there (from the root when that entry has expired).
        """
        if start is not None and not self.alive(start[1], now):
            start = None
        depth, node = start if start is not None else (0, self._roots.get(key))
        best, found = depth, node if start is not None else None
        for digest in prints[depth:]:
            if node is None:
                break
            depth += 1
            node = node[0].get(digest)
            if self.alive(node, now):
                best, found = depth, node
        return best, found

    def add(
        self, key: str, prints: Sequence[bytes], start: tuple[int, list] | None = None, now: float = 0.0
    ) -> list:
        """Record an entry (or refresh it): the request's messages, in order; the node where it ends.

        ``start`` is ``(depth, node)``: a node already holding the first ``depth`` messages.
        """
        depth, node = start if start is not None else (0, self._roots.setdefault(key, [{}, None]))
        for digest in prints[depth:]:
            node = node[0].setdefault(digest, [{}, None])
        node[1] = now
        return node


@dataclass
class _Last:
    """The last request priced under one framing key: what the next one most likely extends."""

    messages: Sequence[dict]
    prints: list[bytes]
    sums: list[int]  # sums[k]: tokens of the first k messages
    end: list  # the trie node its entry ends at
    frontier: int = 0  # clearing_frontier of its messages


def price(requests: Sequence[Request], tokens: Tokens | None = None, prices: Prices = DEFAULT_PRICES) -> Cost:
    """Price a session's requests, in order, under the cache model of this module.

    Each request is compared with the last one under its framing key: the messages they share are
    neither digested nor counted again, and the trie walk starts where that request's entry ends.
    ``prices`` sets the multipliers and, with a lifetime, when entries expire (request i is sent at
    ``i * prices.pace`` seconds).
    """
    tokens = tokens or Tokens()
    fingerprint, entries = Fingerprints(), Prefixes(prices.lifetime)
    cost = Cost(prices=prices)
    framings: dict[str, float] = {}  # framing key -> when its entry was last used
    last: dict[str, _Last] = {}
    previous_agent: list[bytes] | None = None
    for index, request in enumerate(requests):
        now = index * prices.pace
        before = last.get(request.key)
        kept = shared_prefix(before.messages, request.messages) if before is not None else 0
        prints = before.prints[:kept] if before is not None else []
        sums = before.sums[: kept + 1] if before is not None else [0]
        for m in request.messages[kept:]:
            prints.append(fingerprint(m))
            sums.append(sums[-1] + tokens(m))
        extends = before is not None and kept == len(before.messages)  # its entry is a prefix of this
        hit, entry = entries.longest(request.key, prints, (kept, before.end) if extends else None, now)
        if entry is not None:
            entry[1] = now  # a read refreshes the entry's lifetime
        if extends and hit < kept:
            cost.expired += 1
        framing_read = request.key in framings and (
            prices.lifetime is None or now - framings[request.key] <= prices.lifetime
        )
        read = (request.framing if framing_read else 0) + sums[hit]
        written = (0 if framing_read else request.framing) + sums[-1] - sums[hit]
        cost.requests += 1
        cost.sent += request.framing + sums[-1]
        cost.read += read
        cost.written += written
        cost.per_request.append(prices.read * read + prices.write * written)
        if not request.summary:
            if previous_agent is not None and prints[: len(previous_agent)] != previous_agent:
                cost.breaks += 1
                cost.rewritten += sums[-1] - sums[hit]
            previous_agent = prints
        framings[request.key] = now
        end = entries.add(request.key, prints, (kept, before.end) if extends else None, now)
        if before is not None and (before.frontier == 0 or before.frontier < kept):
            # the shared messages were scanned for the request before: only the new ones are
            frontier = clearing_frontier(request.messages, kept, before.frontier)
            new = frontier != before.frontier
        else:
            frontier, new = clearing_frontier(request.messages), True
        if frontier and new:
            entries.add(request.key, prints[:frontier], now=now)
        last[request.key] = _Last(request.messages, prints, sums, end, frontier)
    return cost
