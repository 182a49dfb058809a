"""Prompt caching on the offline server: breakpoints, exact-prefix reads, writes, lifetimes, usage.

What the documentation says (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
a prefix is the request's ``tools``, ``system`` and ``messages``, in that order, up to and
including a block marked ``cache_control``; the system checks whether that prefix "is already
cached from a recent query" and reads it, otherwise it processes the prompt and caches the prefix;
an earlier change anywhere in the prefix is a miss; the lookback checks about 20 block boundaries
before each breakpoint for an earlier hit; a 5-minute lifetime by default, ``ttl: "1h"`` for an
hour, refreshed each time the entry is read; a minimum cacheable length per model (512 tokens for
Claude Sonnet 5.5, 1,024 for Sonnet 5 and Sonnet 4.5, 4,096 for Claude Opus 4.5/4.6 and Haiku 4.5:
https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations; each model's
figure is ``compaction.core.models.MODELS``; a prefix shorter than it is neither written nor read).
(The prices, per model in the same table, are the client's business:
``compaction.agent.server_side.input_cost``.) At most four
breakpoints ("A maximum of 4 blocks with
cache_control may be provided. Found 5.", the API's wording as reported in
https://github.com/tghamm/Anthropic.SDK/issues/50). ``usage`` splits the input into
``cache_read_input_tokens``, ``cache_creation_input_tokens`` (with its ``cache_creation`` 5m/1h
breakdown, SDK ``BetaCacheCreation``) and ``input_tokens``, the rest after the last breakpoint.

The clock is a parameter, so a test moves time instead of waiting. The server's own choice: a
model without a minimum in the table gets ``MIN_CACHEABLE_TOKENS``, 1,024.
Deliberately left out: the rule that 1-hour entries must precede 5-minute ones.
The API keeps caches apart between organizations; here a client's ``x-compaction-cache-scope``
header plays that part (no header: one shared scope), so sessions played side by side never read
each other's entries.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import threading
import time
from collections.abc import Callable
from typing import Any

from compaction.offline.server.errors import RequestError

MIN_CACHEABLE_TOKENS = 1024
MAX_BREAKPOINTS = 4
LOOKBACK = 20  # block boundaries checked before each breakpoint
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


class ManualClock:
    """A clock that only moves when told: ``advance(seconds)``; for tests and demonstrations."""

    def __init__(self, start: float = 0.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        self.now += seconds


class Prefix:
    """One request seen as a run of blocks: tools, then system blocks, then message blocks."""

    def __init__(self, model: str, tools: list, system: list, messages: list, scope: str = ""):
        self.places: list[tuple[str, int, int]] = []  # ("tools"|"system"|"messages", i, j) per block
        self.digests: list[bytes] = []  # digest of the prefix ending with each block
        self.ttls: list[str | None] = []  # the block's cache_control ttl, None without one
        digest = hashlib.blake2b(f"{scope}\n{model}".encode(), digest_size=16).digest()
        parts = [("tools", i, -1, t) for i, t in enumerate(tools)]
        parts += [("system", i, -1, b) for i, b in enumerate(system)]
        for i, message in enumerate(messages):
            parts += [("messages", i, j, b) for j, b in enumerate(message["content"])]
        for where, i, j, block in parts:
            if where == "messages" and j == 0:
                digest = _chain(digest, messages[i]["role"])  # a message boundary is part of the prefix
            ttl = None
            if isinstance(block, dict) and isinstance(block.get("cache_control"), dict):
                ttl = block["cache_control"].get("ttl") or "5m"
                if ttl not in TTL_SECONDS:
                    raise RequestError(
                        f"{_field(where, i, j)}.cache_control.ttl: Input should be '5m' or '1h'"
                    )
            plain = (
                {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
            )
            digest = _chain(digest, plain)
            self.places.append((where, i, j))
            self.digests.append(digest)
            self.ttls.append(ttl)

    def breakpoints(self) -> list[int]:
        """Positions of the blocks marked ``cache_control``, refused beyond four."""
        found = [k for k, ttl in enumerate(self.ttls) if ttl]
        if len(found) > MAX_BREAKPOINTS:
            raise RequestError(
                f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                f"Found {len(found)}."
            )
        return found


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # ASCII escapes: its fastest path


def canonical(value: object) -> bytes:
    """The bytes of a JSON value that depend only on what it equals: sorted keys, no spaces, ASCII.

    (``marshal.dumps`` is no such form: its bytes follow how objects are shared and referenced, so
    two equal requests, one a deep copy of the other, could hash apart and miss the cache.)
    """
    return _CANONICAL.encode(value).encode("ascii")


def without_cache_control(value: Any) -> Any:
    """A JSON value with every ``cache_control`` key left out: a breakpoint marks a prefix, not part of it."""
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


_DIGESTS: dict[bytes, bytes] = {}  # digest of a value's marshal bytes -> digest of its canonical form
_DIGESTS_LIMIT = 100_000  # entries kept before the memo starts again


def value_digest(value: object) -> bytes:
    """The digest of ``canonical(value)``, computed once per value the server has seen.

    A client sends the same blocks again with every request; they are recognised by their
    ``marshal`` bytes (format 2: no shared references, so the bytes follow the value alone), which
    take a third of the time of the canonical form. A value marshal cannot write is digested directly.
    """
    try:
        quick = hashlib.blake2b(marshal.dumps(value, 2), digest_size=16).digest()
    except ValueError:
        return hashlib.blake2b(canonical(value), digest_size=16).digest()
    found = _DIGESTS.get(quick)
    if found is None:
        found = hashlib.blake2b(canonical(value), digest_size=16).digest()
        if len(_DIGESTS) >= _DIGESTS_LIMIT:
            _DIGESTS.clear()
        _DIGESTS[quick] = found
    return found


def _chain(digest: bytes, value: object) -> bytes:
    return hashlib.blake2b(digest + value_digest(value), digest_size=16).digest()


def _field(where: str, i: int, j: int) -> str:
    return f"{where}.{i}" + (f".content.{j}" if j >= 0 else "")


class PromptCache:
    """Cached prefixes by digest, each with an expiry on the given clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, min_tokens: int = MIN_CACHEABLE_TOKENS):
        self.clock = clock
        self.min_tokens = min_tokens
        self._entries: dict[bytes, tuple[float, str]] = {}  # prefix digest -> (expiry, ttl)
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every cached prefix."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def account(
        self, prefix: Prefix, tokens_to: Callable[[int], int], total: int, min_tokens: int | None = None
    ) -> dict:
        """The request's usage split (read, written by lifetime, uncached); records what it writes.

        ``tokens_to(k)`` is the input tokens of the request's prefix ending with block ``k``;
        ``min_tokens`` the model's minimum cacheable length (None: this cache's own).
        """
        minimum = self.min_tokens if min_tokens is None else min_tokens
        marks = prefix.breakpoints()
        usage = {"input_tokens": total, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        usage["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
        if not marks:
            return usage
        now = self.clock()
        with self._lock:
            self._entries = {d: e for d, e in self._entries.items() if e[0] > now}
            hit = max(
                (
                    k
                    for b in marks
                    for k in range(b, max(-1, b - LOOKBACK - 1), -1)
                    if prefix.digests[k] in self._entries
                ),
                default=-1,
            )
            read = tokens_to(hit) if hit >= 0 else 0
            if hit >= 0:
                ttl = self._entries[prefix.digests[hit]][1]
                self._entries[prefix.digests[hit]] = (now + TTL_SECONDS[ttl], ttl)  # a read refreshes
            written, start = 0, read
            for b in marks:
                end = tokens_to(b)
                if b <= hit or end < minimum:
                    continue
                ttl = prefix.ttls[b]
                self._entries[prefix.digests[b]] = (now + TTL_SECONDS[ttl], ttl)
                usage["cache_creation"][f"ephemeral_{ttl}_input_tokens"] += end - start
                written += end - start
                start = end
        usage["cache_read_input_tokens"] = read
        usage["cache_creation_input_tokens"] = written
        usage["input_tokens"] = total - read - written
        return usage
