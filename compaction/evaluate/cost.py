"""What a session's requests cost with prompt caching, in units of base input tokens.

The multipliers are the Messages API's published prices for prompt caching at the default model,
read from its row of ``compaction.core.models.MODELS`` (where each price cites its page) through
``compaction.core.models.PRICE``: for Claude Sonnet 5.5 a 5-minute cache write costs 1.25
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
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compaction.core.messages import shared_prefix
from compaction.core.models import PRICE
from compaction.core.placeholders import clearing_frontier
from compaction.core.tokens import TokenCounter, estimate_tokens, message_tokens
from compaction.evaluate.probes import ContextTexts

CACHE_WRITE = PRICE["5m"]  # 5-minute cache write, times the base input price (one home: core.models)
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


@dataclass
class Counted:
    """What the replays of one session share: its messages' tokens, digests and texts, each made once."""

    tokens: Tokens = field(default_factory=Tokens)
    fingerprints: Fingerprints = field(default_factory=lambda: Fingerprints())
    texts: ContextTexts = field(default_factory=ContextTexts)  # for the probes


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

    def root(self, key: str) -> list:
        """The node every entry of framing ``key`` starts from (made on first use)."""
        return self._roots.setdefault(key, [{}, None])

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
    prints: list[bytes]  # the digest of each message
    sums: list[int]  # sums[k]: tokens of the first k messages
    path: list[list]  # path[k]: the node of ``Prefixes`` after the first k messages (path[0]: the root)
    marks: list[int]  # the depths along the path where an entry ends, ascending
    frontier: int = 0  # clearing_frontier of its messages


class Pricer:
    """Prices a session's requests one at a time, in order: the cost of each, and the totals in ``cost``.

    Each request is compared with the last one under its framing key: the messages they share are
    neither digested nor counted again, and the walk through the cache entries goes on from where
    they part, so the work for a request follows what changed since that one, not the session's
    length (the last request's lists are taken over, not copied). ``prices`` sets the multipliers
    and, with a lifetime, when entries expire (request i is sent at ``i * prices.pace`` seconds): a
    request reads the deepest entry on its path still alive, and the read refreshes it. ``price`` is
    a whole session at once.
    """

    def __init__(
        self,
        tokens: Tokens | None = None,
        fingerprint: Fingerprints | None = None,
        prices: Prices = DEFAULT_PRICES,
    ):
        self.tokens = tokens or Tokens()
        self.fingerprint = fingerprint or Fingerprints()  # share one to digest a message only once
        self.prices = prices
        self.entries = Prefixes(prices.lifetime)
        self.cost = Cost(prices=prices)
        self._framings: dict[str, float] = {}  # framing key -> when its entry was last used
        self._last: dict[str, _Last] = {}
        self._agent: tuple[_Last, int, Sequence[dict]] | None = None  # the last agent request: its
        # state as priced, its length, its messages
        self._sent = 0  # requests priced so far: the next one is sent at _sent * prices.pace

    def add(self, request: Request) -> float:
        """Price the next request of the session; its cost in base input tokens."""
        now, prices = self._sent * self.prices.pace, self.prices
        self._sent += 1
        before, messages = self._last.get(request.key), request.messages
        if before is None:
            root = self.entries.root(request.key)
            kept, state = 0, _Last((), [], [0], [root], [0] if root[1] is not None else [])
        else:
            kept, state = shared_prefix(before.messages, messages), before
        extends = before is not None and kept == len(before.messages)  # its entry is a prefix of this
        prints, sums, path, marks = state.prints, state.sums, state.path, state.marks
        fresh = [self.fingerprint(m) for m in messages[kept:]]
        same = kept  # equal digests go on past the shared messages (equal messages, other dicts)
        while same < len(prints) and same - kept < len(fresh) and fresh[same - kept] == prints[same]:
            same += 1
        broke = not request.summary and self._agent is not None and self._breaks(request, before, same)
        del prints[same:], sums[same + 1 :], path[same + 1 :]
        while marks and marks[-1] > same:
            marks.pop()
        node = path[same]
        for k, digest in enumerate(fresh[same - kept :], same):
            prints.append(digest)
            sums.append(sums[-1] + self.tokens(messages[k]))
            child = node[0].get(digest)
            if child is None:
                child = node[0][digest] = [{}, None]
            elif child[1] is not None:  # an earlier entry ends here: the request may read it
                marks.append(k + 1)
            path.append(child)
            node = child
        hit = next((m for m in reversed(marks) if self.entries.alive(path[m], now)), None)
        if hit is not None:
            path[hit][1] = now  # a read refreshes the entry's lifetime
        hit = hit or 0
        if extends and hit < kept:
            self.cost.expired += 1
        used = self._framings.get(request.key)
        framing_read = used is not None and (prices.lifetime is None or now - used <= prices.lifetime)
        read = (request.framing if framing_read else 0) + sums[hit]
        written = (0 if framing_read else request.framing) + sums[-1] - sums[hit]
        cost = self.cost
        cost.requests += 1
        cost.sent += request.framing + sums[-1]
        cost.read += read
        cost.written += written
        cost.per_request.append(prices.read * read + prices.write * written)
        if broke:
            cost.breaks += 1
            cost.rewritten += sums[-1] - sums[hit]
        self._framings[request.key] = now
        self._mark(path, marks, len(prints), now)  # this request's own entry
        if before is not None and (before.frontier == 0 or before.frontier < kept):
            # the shared messages were scanned for the request before: only the new ones are
            frontier = clearing_frontier(messages, kept, before.frontier)
            new = frontier != before.frontier
        else:
            frontier, new = clearing_frontier(messages), True
        if frontier and new:
            self._mark(path, marks, frontier, now)
        last = self._last[request.key] = _Last(messages, prints, sums, path, marks, frontier)
        if not request.summary:
            self._agent = (last, len(messages), messages)
        return cost.per_request[-1]

    def _breaks(self, request: Request, before: _Last | None, same: int) -> bool:
        """True when an agent request does not extend the agent request before it."""
        state, length, messages = self._agent  # type: ignore[misc]
        if state is before:  # nothing else was priced under this key since: the digests just compared
            return same < length
        if len(request.messages) < length:
            return True
        fingerprint = self.fingerprint
        pairs = zip(request.messages[:length], messages, strict=True)
        return any(fingerprint(a) != fingerprint(b) for a, b in pairs)

    @staticmethod
    def _mark(path: list[list], marks: list[int], depth: int, now: float) -> None:
        """An entry ends after the first ``depth`` messages of the path, written (or refreshed) ``now``."""
        path[depth][1] = now
        at = bisect_left(marks, depth)
        if at == len(marks) or marks[at] != depth:
            marks.insert(at, depth)


def price(requests: Sequence[Request], tokens: Tokens | None = None, prices: Prices = DEFAULT_PRICES) -> Cost:
    """Price a session's requests, in order, under the cache model of this module (see ``Pricer``)."""
    pricer = Pricer(tokens, prices=prices)
    for request in requests:
        pricer.add(request)
    return pricer.cost
