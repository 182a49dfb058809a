"""The API's side of one request: settings, checks in the API's words, edits, the count, the answer.

``config`` reads a client's settings from its headers (``x-compaction-window``, ``-scenario``,
``-seed``, ``-max-tokens-check`` and ``-cache-scope``: one server serves clients with different
windows). ``request.checked`` reads and checks the body; ``create`` then applies
``context_management`` (``context_edits``, ``server_compaction``), counts what is left, and
reports it in ``usage`` with the prompt cache's split (``usage``, ``caching``). ``TokenCounts``
gives both endpoints the same figure as ``estimate_tokens(messages, "tiktoken", system=, tools=)``,
counting each distinct message once.

Input plus ``max_tokens`` over the window is answered per model (``overflow``, from the table in
``compaction.core.models``): the default model answers and stops at the window with ``stop_reason``
"model_context_window_exceeded"; a model documented to refuse gets the 400. A client can ask for the
400 whatever the model (``x-compaction-max-tokens-check: on``). The server's own options, which the
real API does not have: ``x-compaction-course-scale: on`` lifts the 50,000-token minimum of the
compaction trigger (``context_config``), ``x-compaction-clear-in-rounds: on`` clears tool uses in
rounds (``context_edits``).
Streaming is the same answer sent as server-sent events (``streaming``); mid-conversation system messages,
tool changes and the binding of thinking blocks are ``system_messages``, ``tool_changes`` and ``thinking``.
Deliberately left out: batches, images' real token cost.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from compaction.core.messages import tool_use_blocks
from compaction.core.models import behaves_as
from compaction.core.tokens import count_text, estimate_tokens
from compaction.offline.scripted import scenario
from compaction.offline.server import (
    diagnostics,
    on_demand,
    overflow,
    server_compaction,
    system_messages,
    thinking,
    tool_changes,
)
from compaction.offline.server.caching import PromptCache, value_digest
from compaction.offline.server.context_config import HEADER_COURSE_SCALE, ClearToolUses, Compact, betas_of  # noqa: F401
from compaction.offline.server.context_edits import clear_thinking, clear_tool_uses
from compaction.offline.server.errors import RequestError
from compaction.offline.server.request import Request, checked
from compaction.offline.server.usage import cached_usage, zero_usage

DEFAULT_WINDOW = 200_000
HEADER_WINDOW = "x-compaction-window"
HEADER_SCENARIO = "x-compaction-scenario"
HEADER_SEED = "x-compaction-seed"
HEADER_MAX_TOKENS_CHECK = "x-compaction-max-tokens-check"
HEADER_CACHE_SCOPE = "x-compaction-cache-scope"  # stands for the API's per-organization caches
HEADER_CLEAR_IN_ROUNDS = "x-compaction-clear-in-rounds"  # the server's own: cache-friendly clearing


def is_on(headers: Any, name: str) -> bool:
    """True when the header ``name`` says ``on``."""
    return str(headers.get(name, "") or "").lower() == "on"


class TokenCounts:
    """Token counts of requests, each distinct message (and tools list) counted only once.

    Inside ``one_request()`` a message object's digest is computed once however often the request's
    checks count it (the objects are held until the request ends, so an id is never reused).
    """

    def __init__(self, limit: int = 50_000):
        self._counts: dict[bytes, int] = {}  # digest of a message or of (system, tools) -> tokens
        self._limit = limit
        self._lock = threading.Lock()
        self._request = threading.local()  # .seen: id(message) -> (message, digest), per server thread

    @contextlib.contextmanager
    def one_request(self) -> Iterator[None]:
        """Remember each message's digest by identity until the block ends (one request's work)."""
        self._request.seen = {}
        try:
            yield
        finally:
            self._request.seen = None

    def _message_key(self, message: dict) -> bytes:
        seen = getattr(self._request, "seen", None)
        if seen is None:
            return value_digest(message)
        hit = seen.get(id(message))
        if hit is None:
            hit = seen[id(message)] = (message, value_digest(message))
        return hit[1]

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
            value_digest((system, tools)), lambda: estimate_tokens([], "tiktoken", system=system, tools=tools)
        )

    def message(self, message: dict) -> int:
        """The tokens of one message."""
        return self._cached(self._message_key(message), lambda: estimate_tokens([message], "tiktoken"))

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


def edited(
    counts: TokenCounts, request: Request, rounds: bool = False
) -> tuple[list, list[dict], Compact | None]:
    """(the messages the model sees, the applied_edits entries, the compaction edit if any).

    The model sees the request from its last compaction block on, without the thinking blocks the binding
    check dropped and the turn-scoped system messages a later user message cleared, then edited.
    """
    kept = thinking.without(request.messages, request.binding.dropped)
    view = system_messages.rendered(server_compaction.from_last_compaction(kept))
    applied, compact = [], None

    def count(messages: list) -> int:
        return counts.count(messages, request.system, request.tools)

    for edit in request.edits:
        if isinstance(edit, Compact):
            compact = edit
            continue
        if isinstance(edit, ClearToolUses):
            view, entry = clear_tool_uses(view, edit, count, rounds=rounds)
        else:
            view, entry = clear_thinking(view, edit, count)
        if entry:
            applied.append(entry)
    return view, applied, compact


def count_tokens(counts: TokenCounts, body: Any, headers: Any) -> dict:
    """The body of a count_tokens answer; with context_management, also the count before it."""
    config(headers)
    request = checked(body, headers, create=False)
    view, _, _ = edited(counts, request, is_on(headers, HEADER_CLEAR_IN_ROUNDS))
    answer: dict = {"input_tokens": counts.count(view, request.system, request.tools)}
    if "context_management" in body and body["context_management"] is not None:
        original = counts.count(request.messages, request.system, request.tools)
        answer["context_management"] = {"original_input_tokens": original}
    return answer


_FINGERPRINTS = diagnostics.Fingerprints()  # for callers without a server of their own


def create(
    counts: TokenCounts,
    cache: PromptCache,
    body: Any,
    headers: Any,
    fingerprints: diagnostics.Fingerprints | None = None,
) -> dict:
    """The body of a messages answer: the scenario's turn, or a RequestError in the API's words.

    With ``compaction`` the answer is an on-demand compaction (``on_demand``); with ``diagnostics``
    it says why the prefix of the named earlier request could not be reused (``diagnostics``).
    """
    with counts.one_request():
        return _create(counts, cache, body, headers, fingerprints)


def _create(
    counts: TokenCounts,
    cache: PromptCache,
    body: Any,
    headers: Any,
    fingerprints: diagnostics.Fingerprints | None,
) -> dict:
    config(headers)
    request = checked(body, headers, create=True)
    wants, previous = diagnostics.previous_id(body)
    summarize = on_demand.parse(body, betas_of(headers))
    if summarize is None:
        answer = _turn(counts, cache, body, headers, request)
    else:
        answer = _compaction(counts, body, headers, request, summarize)
    if wants:
        store = _FINGERPRINTS if fingerprints is None else fingerprints
        scope = str(headers.get(HEADER_CACHE_SCOPE) or "")
        head = counts.head(request.system, request.tools)
        tools_only = counts.head(None, request.tools)
        now = diagnostics.fingerprint(body, request.messages, head, tools_only, counts.message)
        before = store.get(scope, previous) if previous is not None else None
        reason = diagnostics.cache_miss_reason(before, now) if previous is not None else None
        answer["diagnostics"] = {"cache_miss_reason": reason} if reason is not None else None
        store.put(scope, answer["id"], now)
    return answer


def _within_window(counts: TokenCounts, headers: Any, request: Request, view: list, model: str) -> int:
    """The tokens of what the model sees; a RequestError when they, or they with max_tokens, do not fit."""
    window = config(headers)[0]
    used = counts.count(view, request.system, request.tools)
    if used > window:
        raise RequestError(f"prompt is too long: {used} tokens > {window} maximum")
    forced = is_on(headers, HEADER_MAX_TOKENS_CHECK)
    overflow.check_room(model, used, request.max_tokens, window, force_refusal=forced)
    return used


def _compaction(
    counts: TokenCounts, body: dict, headers: Any, request: Request, summarize: on_demand.Summarize
) -> dict:
    """An on-demand compaction's answer: the signed block alone, usage as ``compact_20260112`` reports it.

    A summary call that cannot end normally answers 200 with empty content (``on_demand``): no room in
    the window for the summarization prompt ("model_context_window_exceeded"), or a summary longer than
    ``max_tokens`` ("max_tokens").
    """
    window, _, seed = config(headers)
    view = server_compaction.from_last_compaction(request.messages)
    _within_window(counts, headers, request, view, str(body["model"]))
    summary_request = server_compaction.summary_request(request.messages, summarize.instructions)
    asked = counts.count(summary_request, request.system, request.tools)
    content, stop_reason, written = [], "compaction", 0
    if asked > window:
        stop_reason = "model_context_window_exceeded"
    else:
        changes = _tool_changes_of(request, server_compaction.from_last_compaction(request.messages))
        block = on_demand.compaction_block(summary_request, summarize.instructions, changes)
        thinking.remember_summary(block["signature"], thinking.walk(request.messages)[1])
        written = count_text(block["content"], "tiktoken")
        if written > request.max_tokens:
            stop_reason, written = "max_tokens", request.max_tokens
        else:
            content = [block]
    usage = zero_usage()
    usage["iterations"] = [  # uncached, as for compact_20260112 (see server_compaction)
        {
            "type": "compaction",
            "input_tokens": 0 if asked > window else asked,
            "output_tokens": written,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
    ]
    answer = {
        "id": on_demand.message_id(request.messages, seed),
        "type": "message",
        "role": "assistant",
        "model": str(body["model"]),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }
    if request.thinking.report:
        answer["input_transformations"] = request.binding.transformations
    return answer


def _tool_changes_of(request: Request, compacted: list) -> list | None:
    """A compaction block's ``tool_changes`` (with ``inline-tools-2026-09-15``), else None: not computed."""
    if tool_changes.BETA_INLINE_TOOLS not in request.betas:
        return None
    return tool_changes.net_changes(request.declared, compacted)


def _turn(counts: TokenCounts, cache: PromptCache, body: dict, headers: Any, request: Request) -> dict:
    """The answer to an ordinary request: context edits, the scenario's turn, cached usage."""
    window, name, seed = config(headers)
    model = str(body["model"])
    view, applied, compact = edited(counts, request, is_on(headers, HEADER_CLEAR_IN_ROUNDS))
    used = _within_window(counts, headers, request, view, model)
    taken = {b["id"] for m in request.messages for b in tool_use_blocks(m)}
    content: list[dict] = []
    iterations: list[dict] = []
    stop_reason = None
    if compact is not None and used > compact.trigger:
        summary_request = server_compaction.summary_request(view, compact.instructions)
        block = server_compaction.compaction_block(summary_request, compact.instructions)
        changes = _tool_changes_of(request, view)
        if changes is not None:
            block["tool_changes"] = changes
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
        shown, room = server_compaction.for_the_model(view), window - used
        offered = tool_changes.offered(request.declared, view)
        options = {"tools": offered, "seed": seed, "taken": taken, "room": room}
        options["max_tokens"] = request.max_tokens
        turn, stop_reason = scenario.respond(name, shown, **options)
        if request.thinking.on:
            said = thinking.plan_text(turn) if request.thinking.display == "summarized" else ""
            sent = request.messages
            turn = [thinking.produce(said, request.system_blocks, request.tools, sent, list(content)), *turn]
        turn, stop_reason, output = overflow.fit(turn, stop_reason, room)
        content += turn
        scope = str(headers.get(HEADER_CACHE_SCOPE) or "")
        head = counts.head(request.system, request.tools)
        minimum = behaves_as(model).cache_minimum  # None: the cache's own default
        usage = cached_usage(cache, request, view, model, scope, head, counts.message, minimum)
        usage["output_tokens"] = output
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
    if request.thinking.report:
        answer["input_transformations"] = request.binding.transformations
    return answer
