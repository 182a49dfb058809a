"""The API's side of one request: settings, checks in the API's words, edits, the count, the answer.

``config`` reads a client's settings from its headers (``x-compaction-window``, ``-scenario``,
``-seed``, ``-max-tokens-check`` and ``-cache-scope``: one server serves clients with different
windows).
``checked`` merges consecutive same-role turns as the API does (``turns``), then refuses what the
API refuses, with its wording; the rules of the list itself come from
``compaction.messages.validate`` only. ``create`` then applies ``context_management``
(``context_edits``, ``server_compaction``), counts what is left, and reports it in ``usage`` with
the prompt cache's split (``caching``). ``TokenCounts`` gives both endpoints the same figure as
``estimate_tokens(messages, "tiktoken", system=, tools=)``, counting each distinct message once.

The ``max_tokens`` check ("input length and `max_tokens` exceed context limit: N + M > W", the
API's wording in https://github.com/docker/docker-agent/issues/569) runs only for a client that
asks for it (``x-compaction-max-tokens-check: on``): the course scales windows down to a few
thousand tokens while its agents keep asking for 4,096 output tokens.
Deliberately left out: streaming, batches, images' real token cost, extended thinking.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from compaction.messages import InvalidConversation, blocks, validate
from compaction.offline import scenario, server_compaction
from compaction.offline.caching import Prefix, PromptCache
from compaction.offline.context_config import ClearToolUses, Compact, Edit, betas_of, parse
from compaction.offline.context_edits import clear_thinking, clear_tool_uses
from compaction.offline.errors import RequestError
from compaction.offline.turns import merge_turns
from compaction.tokens import count_text, estimate_tokens, message_tokens

DEFAULT_WINDOW = 200_000
HEADER_WINDOW = "x-compaction-window"
HEADER_SCENARIO = "x-compaction-scenario"
HEADER_SEED = "x-compaction-seed"
HEADER_MAX_TOKENS_CHECK = "x-compaction-max-tokens-check"
HEADER_CACHE_SCOPE = "x-compaction-cache-scope"  # stands for the API's per-organization caches
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")  # the API's pattern, as its 400 quotes it


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


@dataclass
class Request:
    """One checked request: what was sent, merged as the API merges it, and its settings."""

    messages: list  # merged turns
    origin: list[int]  # merged index -> index as sent
    system: str | None
    system_blocks: list
    tools: list
    edits: list[Edit] = field(default_factory=list)
    max_tokens: int = 0
    auto_cache: dict | None = None  # the top-level cache_control, if any


def _system(system: Any) -> tuple[str | None, list]:
    """The system prompt as one string (a list of text blocks is joined) and as blocks."""
    if system is None or isinstance(system, str):
        return system, ([{"type": "text", "text": system}] if system else [])
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict)), system
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


def checked(body: Any, headers: Any, *, create: bool) -> Request:
    """The request, turns merged, or a RequestError in the API's wording naming the field."""
    if not isinstance(body, dict):
        raise RequestError("body: Input should be a valid dictionary")
    for name in ("model", "messages") + (("max_tokens",) if create else ()):
        if name not in body:
            raise RequestError(f"{name}: Field required")
    if create and body.get("stream"):
        raise RequestError("stream: streaming is not supported by the offline model")
    max_tokens = body.get("max_tokens", 0)
    if create and (not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1):
        raise RequestError("max_tokens: Input should be a valid integer greater than or equal to 1")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise RequestError("tools: Input should be a valid list")
    auto = body.get("cache_control")
    if auto is not None and not (isinstance(auto, dict) and auto.get("type") == "ephemeral"):
        raise RequestError("cache_control.type: Input should be 'ephemeral'")
    merged, origin = merge_turns(body["messages"] if isinstance(body["messages"], list) else [])
    try:
        validate(merged if isinstance(body["messages"], list) else body["messages"])
    except InvalidConversation as error:
        if error.index is not None and error.index < len(origin):
            error.index = origin[error.index]
        raise RequestError(error.api_message) from error
    _check_tool_use_ids(body["messages"])
    system, system_blocks = _system(body.get("system"))
    edits = parse(body.get("context_management"), betas_of(headers))
    return Request(merged, origin, system, system_blocks, tools or [], edits, max_tokens or 0, auto)


def _check_tool_use_ids(messages: list) -> None:
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message)):
            if block.get("type") == "tool_use" and not TOOL_USE_ID.match(block["id"]):
                raise RequestError(
                    f"messages.{i}.content.{j}.tool_use.id: "
                    f"String should match pattern '{TOOL_USE_ID.pattern}'"
                )


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
        iterations.append(
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
    usage = _zero_usage()
    if stop_reason is None:
        turn, stop_reason = scenario.respond(
            name, server_compaction.for_the_model(view), tools=request.tools, seed=seed, taken=taken
        )
        content += turn
        scope = str(headers.get(HEADER_CACHE_SCOPE) or "")
        usage = _cached_usage(counts, cache, request, view, model, scope)
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


def _zero_usage() -> dict:
    return {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }


def _cached_usage(
    counts: TokenCounts, cache: PromptCache, request: Request, view: list, model: str, scope: str
) -> dict:
    """``usage`` for the request the model saw, split into cache reads, writes and the rest."""
    if request.auto_cache and view:  # the top-level cache_control marks the last block
        last = blocks(view[-1])
        if last:
            marked = {**last[-1], "cache_control": request.auto_cache}
            view = view[:-1] + [{**view[-1], "content": last[:-1] + [marked]}]
    shown = [{**m, "content": blocks(m)} for m in view]
    prefix = Prefix(model, request.tools, request.system_blocks, shown, scope)
    head = counts.head(request.system, request.tools)
    starts = [head]  # tokens before each message
    for message in shown:
        starts.append(starts[-1] + counts.message(message))
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

    return cache.account(prefix, tokens_to, total)
