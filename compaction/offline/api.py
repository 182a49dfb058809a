"""The API's side of one request: settings, checks in the API's words, edits, the count, the answer.

``config`` reads a client's settings from its headers (``x-compaction-window``, ``-scenario``,
``-seed``, ``-max-tokens-check`` and ``-cache-scope``: one server serves clients with different
windows). ``request.checked`` reads and checks the body; ``create`` then applies
``context_management`` (``context_edits``, ``server_compaction``), counts what is left, and
reports it in ``usage`` with the prompt cache's split (``usage``, ``caching``). ``TokenCounts``
gives both endpoints the same figure as ``estimate_tokens(messages, "tiktoken", system=, tools=)``,
counting each distinct message once.

The ``max_tokens`` check ("input length and `max_tokens` exceed context limit: N + M > W", the
API's wording in https://github.com/docker/docker-agent/issues/569) runs only for a client that
asks for it (``x-compaction-max-tokens-check: on``): the course scales windows down to a few
thousand tokens while its agents keep asking for 4,096 output tokens.
Deliberately left out: streaming, batches, images' real token cost, extended thinking.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from compaction.core.messages import blocks
from compaction.core.tokens import count_text, estimate_tokens
from compaction.offline import scenario, server_compaction
from compaction.offline.caching import PromptCache, canonical
from compaction.offline.context_config import ClearToolUses, Compact
from compaction.offline.context_edits import clear_thinking, clear_tool_uses
from compaction.offline.errors import RequestError
from compaction.offline.request import Request, checked
from compaction.offline.usage import cached_usage, zero_usage

DEFAULT_WINDOW = 200_000
HEADER_WINDOW = "x-compaction-window"
HEADER_SCENARIO = "x-compaction-scenario"
HEADER_SEED = "x-compaction-seed"
HEADER_MAX_TOKENS_CHECK = "x-compaction-max-tokens-check"
HEADER_CACHE_SCOPE = "x-compaction-cache-scope"  # stands for the API's per-organization caches


def _key(value: Any) -> bytes:
    """A short digest of a JSON-decoded value; equal digests mean equal values."""
    return hashlib.blake2b(canonical(value), digest_size=16).digest()


class TokenCounts:
    """Token counts of requests, each distinct message (and tools list) counted only once."""

    def __init__(self, limit: int = 50_000):
        self._counts: dict[bytes, int] = {}  # digest of a message or of (system, tools) -> tokens
        self._limit = limit
        self._lock = threading.Lock()

    def _cached(self, key: bytes, compute) -> int:
        hit = self._counts.get(key)
        if hit is None:
            hit = compute()
            with self._lock:
                if len(self._counts) >= self._limit:
                    self._counts.clear()
                self._counts[key] = hit
        return hit

    def head(self, system: str | None = None, tools: list | None = None) -> int:
        """The tokens of the system prompt and tools alone."""
        if not (system or tools):
            return 0
        return self._cached(
            _key((system, tools)), lambda: estimate_tokens([], "tiktoken", system=system, tools=tools)
        )

    def message(self, message: dict) -> int:
        """The tokens of one message."""
        return self._cached(_key(message), lambda: estimate_tokens([message], "tiktoken"))

    def count(self, messages: list, system: str | None = None, tools: list | None = None) -> int:
        """The same figure as ``estimate_tokens(messages, "tiktoken", system=, tools=)``."""
        return self.head(system, tools) + sum(self.message(m) for m in messages)


def config(headers: Any) -> tuple[int, str, int]:
    """(context window, scenario name, seed) from a request's headers."""
    try:
        window = int(headers.get(HEADER_WINDOW) or DEFAULT_WINDOW)
        seed = int(headers.get(HEADER_SEED) or 0)
    except ValueError as error:
        raise RequestError(f"{HEADER_WINDOW} and {HEADER_SEED} must be integers") from error
    name = headers.get(HEADER_SCENARIO) or scenario.DEFAULT_SCENARIO
    if name not in scenario.SCENARIOS:
        choices = ", ".join(scenario.SCENARIOS)
        raise RequestError(f"unknown offline scenario {name!r}; choose one of: {choices}")
    return window, name, seed


def edited(counts: TokenCounts, request: Request) -> tuple[list, list[dict], Compact | None]:
    """(the messages the model sees, the applied_edits entries, the compaction edit if any)."""
    view = server_compaction.from_last_compaction(request.messages)
    applied, compact = [], None

    def count(messages: list) -> int:
        return counts.count(messages, request.system, request.tools)

    for edit in request.edits:
        if isinstance(edit, Compact):
            compact = edit
            continue
        if isinstance(edit, ClearToolUses):
            view, entry = clear_tool_uses(view, edit, count)
        else:
            view, entry = clear_thinking(view, edit, count)
        if entry:
            applied.append(entry)
    return view, applied, compact


def count_tokens(counts: TokenCounts, body: Any, headers: Any) -> dict:
    """The body of a count_tokens answer; with context_management, also the count before it."""
    config(headers)
    request = checked(body, headers, create=False)
    view, _, _ = edited(counts, request)
    answer: dict = {"input_tokens": counts.count(view, request.system, request.tools)}
    if "context_management" in body and body["context_management"] is not None:
        original = counts.count(request.messages, request.system, request.tools)
        answer["context_management"] = {"original_input_tokens": original}
    return answer


def create(counts: TokenCounts, cache: PromptCache, body: Any, headers: Any) -> dict:
    """The body of a messages answer: the scenario's turn, or a RequestError in the API's words."""
    window, name, seed = config(headers)
    request = checked(body, headers, create=True)
    view, applied, compact = edited(counts, request)
    used = counts.count(view, request.system, request.tools)
    if used > window:
        raise RequestError(f"prompt is too long: {used} tokens > {window} maximum")
    if str(headers.get(HEADER_MAX_TOKENS_CHECK, "")).lower() == "on" and used + request.max_tokens > window:
        raise RequestError(
            f"input length and `max_tokens` exceed context limit: {used} + {request.max_tokens} > {window}, "
            "decrease input length or `max_tokens` and try again"
        )
    model = str(body["model"])
    taken = {b["id"] for m in request.messages for b in blocks(m) if b.get("type") == "tool_use"}
    content: list[dict] = []
    iterations: list[dict] = []
    stop_reason = None
    if compact is not None and used > compact.trigger:
        summary_request = server_compaction.summary_request(view, compact.instructions)
        block = server_compaction.compaction_block(summary_request)
        iterations.append(  # uncached: the server's own choice (see server_compaction)
            {
                "type": "compaction",
                "input_tokens": counts.count(summary_request, request.system, request.tools),
                "output_tokens": count_text(block["content"], "tiktoken"),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            }
        )
        content.append(block)
        view = [{"role": "assistant", "content": [block]}]
        if compact.pause_after_compaction:
            stop_reason = "compaction"
    usage = zero_usage()
    if stop_reason is None:
        turn, stop_reason = scenario.respond(
            name, server_compaction.for_the_model(view), tools=request.tools, seed=seed, taken=taken
        )
        content += turn
        scope = str(headers.get(HEADER_CACHE_SCOPE) or "")
        head = counts.head(request.system, request.tools)
        usage = cached_usage(cache, request, view, model, scope, head, counts.message)
        usage["output_tokens"] = sum(
            count_text(b["text"] if b["type"] == "text" else json.dumps(b), "tiktoken") for b in turn
        )
        if compact is not None:
            iterations.append(
                {"type": "message", **{k: v for k, v in usage.items() if k != "cache_creation"}}
            )
    answer = {
        "id": scenario.message_id(request.messages, seed),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }
    if iterations:
        usage["iterations"] = iterations
    if request.edits:
        answer["context_management"] = {"applied_edits": applied}
    return answer
