"""The API's side of one request: settings, checks in the API's words, the count, the answer.

``config`` reads a client's settings from its headers (``x-compaction-window``, ``-scenario``,
``-seed``: one server serves clients with different windows). ``checked`` refuses a body the
real API refuses, with its wording; the rules of the list itself come from
``compaction.messages.validate`` only. ``TokenCounts`` gives both endpoints the same figure as
``estimate_tokens(messages, "tiktoken", system=, tools=)``, counting each distinct message once.
Deliberately left out: streaming, batches, images' real token cost, and the ``max_tokens`` +
input check of some models.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import threading
from typing import Any

from compaction.messages import InvalidConversation, validate
from compaction.offline import scenario
from compaction.tokens import count_text, estimate_tokens

DEFAULT_WINDOW = 200_000
HEADER_WINDOW = "x-compaction-window"
HEADER_SCENARIO = "x-compaction-scenario"
HEADER_SEED = "x-compaction-seed"


class RequestError(Exception):
    """A request the API would refuse with HTTP 400 ``invalid_request_error``."""


def _key(value: Any) -> bytes:
    """A short digest of a JSON-decoded value; equal digests mean equal values."""
    return hashlib.blake2b(marshal.dumps(value), digest_size=16).digest()


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

    def count(self, messages: list, system: str | None = None, tools: list | None = None) -> int:
        """The same figure as ``estimate_tokens(messages, "tiktoken", system=, tools=)``."""
        total = 0
        if system or tools:
            total += self._cached(
                _key((system, tools)), lambda: estimate_tokens([], "tiktoken", system=system, tools=tools)
            )
        for message in messages:
            total += self._cached(_key(message), lambda m=message: estimate_tokens([m], "tiktoken"))
        return total


def _system_text(system: Any) -> str | None:
    """The system prompt as one string (a list of text blocks is joined)."""
    if system is None or isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    raise RequestError(f"system: Input should be a valid string or list, not {type(system).__name__}")


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


def checked(body: Any, *, create: bool) -> tuple[list, str | None, list | None]:
    """The messages, system text and tools of a request body, or a RequestError in API wording."""
    if not isinstance(body, dict):
        raise RequestError("body: Input should be a valid dictionary")
    for name in ("model", "messages") + (("max_tokens",) if create else ()):
        if name not in body:
            raise RequestError(f"{name}: Field required")
    if create and body.get("stream"):
        raise RequestError("stream: streaming is not supported by the offline model")
    messages, tools = body["messages"], body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise RequestError("tools: Input should be a valid list")
    try:
        validate(messages)
    except InvalidConversation as error:
        raise RequestError(error.api_message) from error
    return messages, _system_text(body.get("system")), tools


def count_tokens(counts: TokenCounts, body: Any, headers: Any) -> dict:
    """The body of a count_tokens answer."""
    config(headers)
    messages, system, tools = checked(body, create=False)
    return {"input_tokens": counts.count(messages, system, tools)}


def create(counts: TokenCounts, body: Any, headers: Any) -> dict:
    """The body of a messages answer: the scenario's turn, or a RequestError in the API's words."""
    window, name, seed = config(headers)
    messages, system, tools = checked(body, create=True)
    used = counts.count(messages, system, tools)
    if used > window:
        raise RequestError(f"prompt is too long: {used} tokens > {window} maximum")
    content, stop_reason = scenario.respond(name, messages, tools=tools or [], seed=seed)
    output = sum(count_text(b["text"] if b["type"] == "text" else json.dumps(b), "tiktoken") for b in content)
    return {
        "id": scenario.message_id(messages, seed),
        "type": "message",
        "role": "assistant",
        "model": str(body["model"]),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": used,
            "output_tokens": output,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }
