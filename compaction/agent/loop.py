"""The agent loop: call the model, run its tool calls, append the results, repeat.

``run_agent`` keeps the conversation as a list of plain Messages API dicts and records every turn
(what was sent, its estimated tokens, the API's input tokens). Its ``hooks`` (``pipeline.hooks.Hooks``,
``Compactor.hooks()`` builds them) are where compaction plugs in: ``prepare`` runs before every model
call and its output is what is sent and kept; ``on_response`` sees each successful call;
``on_prompt_too_long`` gets one chance to shrink the list after the API refuses it as too big for the
window, or after an answer stopped at the window (``stop_reason`` "model_context_window_exceeded",
SDK ``StopReason``: the cut-off answer is dropped); ``on_compact`` answers the model's ``compact``
tool. An SDK error ends the session and is stored in ``SessionResult.error``, so a caller can show
it; so does an answer cut off at the window when no hook can shrink the list (``WindowExceeded``: a
cut-off answer is never kept).

Deliberately left out: streaming, parallel tool execution, retries of transient network errors,
and any compaction of its own: without hooks the list only grows.
"""

from __future__ import annotations

import importlib.resources
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import anthropic

from compaction.agent.backend import connect
from compaction.agent.backend_choice import SAMPLE_WINDOW
from compaction.agent.tools import TOOL_DEFINITIONS, Workspace, run_tool, tool_params
from compaction.core.api_errors import WINDOW_EXCEEDED as WINDOW
from compaction.core.api_errors import WindowExceeded, window_exceeded
from compaction.core.failures import SummaryFailed
from compaction.core.messages import Message, from_response, tool_result, tool_use_blocks
from compaction.core.models import DEFAULT_MODEL
from compaction.core.tokens import TokenCounter, estimate_tokens, usage_input_tokens
from compaction.layers.recovery import recover_once
from compaction.offline.scripted import scenario
from compaction.pipeline.hooks import Hooks

SYSTEM_PROMPT = (
    "You are a coding agent working in a small Python project. Use the tools to look at the "
    "files, run the tests with `python run_tests.py`, and fix what is broken. Paths are relative "
    "to the project folder. When the work is done, say so in one short message."
)


@dataclass
class TurnRecord:
    """One model call: what was sent, what it cost, and what the model asked for."""

    index: int  # 0-based turn; a refused call and its retry share it
    messages: list[Message]  # the list as sent (after prepare)
    estimated_tokens: int  # tiktoken estimate of the request, system and tools included
    input_tokens: int | None  # the API's count from usage; None when the call failed
    output_tokens: int | None
    tool_calls: list[str]  # tool names, in order
    stop_reason: str | None
    error: str | None = None  # "BadRequestError: ..." when this call was refused


@dataclass
class SessionResult:
    """The end of a run: the final list, one record per call, and the error that ended it, if any."""

    messages: list[Message]
    turns: list[TurnRecord] = field(default_factory=list)
    error: Exception | None = None
    workspace: Path | None = None


def default_task() -> str:
    """The offline scenario's task."""
    return scenario.TASK


def new_workspace(path: str | Path | None = None) -> Path:
    """Copy the bundled practice project into ``path`` (a fresh temp folder by default)."""
    source = importlib.resources.files("compaction") / "offline" / "project"
    if not source.is_dir():
        raise FileNotFoundError("the practice project compaction/offline/project is not installed")
    target = Path(tempfile.mkdtemp(prefix="compaction-ws-")) if path is None else Path(path)
    with importlib.resources.as_file(source) as folder:
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(folder, target, ignore=ignore, dirs_exist_ok=True)
    return target


def run_agent(
    client: Any,
    *,
    workspace: str | Path,
    task: str | None = None,
    max_turns: int = 20,
    hooks: Hooks | None = None,
    on_turn: Callable[[TurnRecord], None] | None = None,
    model: str = DEFAULT_MODEL,
    system: str = SYSTEM_PROMPT,
    tools: list = TOOL_DEFINITIONS,
    max_tokens: int = 4096,
    raise_errors: bool = False,
) -> SessionResult:
    """Run the agent on ``task`` in ``workspace`` for at most ``max_turns`` model calls, with ``hooks``.

    ``tools`` are definitions the workspace runs, or runnable tools as the SDK's tool runner takes
    them (``to_dict()`` and ``call(input)``, e.g. ``compaction.agent.memory.MemoryFolder``).
    """
    if not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a positive integer, not {max_turns!r}")
    if hooks is not None and not isinstance(hooks, Hooks):
        raise TypeError(f"hooks must be a Hooks (Compactor.hooks(), or Hooks(prepare=...)), not {hooks!r}")
    hooks = hooks or Hooks()
    prepare, on_response = hooks.prepare, hooks.on_response
    on_prompt_too_long, on_compact = hooks.on_prompt_too_long, hooks.on_compact
    sandbox = Workspace(workspace)
    messages: list[Message] = [{"role": "user", "content": task or default_task()}]
    result = SessionResult(messages, workspace=sandbox.root)
    definitions, runnable = tool_params(list(tools))
    request = {"model": model, "system": system, "tools": definitions, "max_tokens": max_tokens}

    counter = TokenCounter("tiktoken")  # each message is tokenized once, however many turns it is sent
    framing = estimate_tokens([], "tiktoken", system=system, tools=definitions)  # system prompt and tools

    def note_failed(failed: TurnRecord) -> None:
        result.turns.append(failed)
        if on_turn:
            on_turn(failed)

    def call(turn: int, sent: list) -> Any:
        estimated = counter.estimate(sent) + framing
        try:
            response = client.messages.create(messages=sent, **request)
        except anthropic.APIError as exc:
            note_failed(TurnRecord(turn, sent, estimated, None, None, [], None, _describe(exc)))
            raise
        if window_exceeded(response):  # half an answer is never kept: the call counts as failed
            cut = WindowExceeded(response)
            usage = response.usage
            input_tokens = usage_input_tokens(usage)
            note_failed(
                TurnRecord(
                    turn, sent, estimated, input_tokens, usage.output_tokens, [], WINDOW, _describe(cut)
                )
            )
            raise cut
        return response, estimated

    try:
        for turn in range(max_turns):
            messages = result.messages = prepare(messages) if prepare else messages
            if on_prompt_too_long is None:
                response, estimated = call(turn, messages)
            else:
                (response, estimated), messages = recover_once(
                    lambda sent, turn=turn: call(turn, sent), messages, on_prompt_too_long
                )
                result.messages = messages
            if on_response:
                on_response(messages, response)
            reply = from_response(response)
            uses = tool_use_blocks(reply)
            usage = getattr(response, "usage", None)
            record = TurnRecord(
                turn,
                messages,
                estimated,
                usage_input_tokens(usage) if usage is not None else None,
                getattr(usage, "output_tokens", None),
                [u["name"] for u in uses],
                getattr(response, "stop_reason", None),
            )
            messages = messages + [reply]
            result.messages = messages
            result.turns.append(record)
            if on_turn:
                on_turn(record)
            if not uses:
                break
            messages = _run_tools(messages, uses, sandbox, on_compact, runnable)
            result.messages = messages
    except (anthropic.APIError, SummaryFailed, WindowExceeded) as exc:
        result.error = exc
        if raise_errors:
            raise
    return result


def _run_tools(
    messages: list, uses: list, sandbox: Workspace, on_compact: Callable | None, runnable: dict[str, Any]
) -> list:
    """Append one user message with every result in order; then run a requested compaction."""
    results, focus, compact_id = [], None, None
    for use in uses:
        if use["name"] in runnable:
            results.append(run_tool(runnable[use["name"]], use))
            continue
        if use["name"] != "compact":
            results.append(sandbox.run(use))
            continue
        compact_id, focus = use["id"], (use.get("input") or {}).get("focus")
        if on_compact is None:
            results.append(tool_result(use["id"], "Error: compaction is not available here", is_error=True))
        else:
            results.append(tool_result(use["id"], "Compacting the conversation before the next turn."))
    messages = messages + [{"role": "user", "content": results}]
    if compact_id is None or on_compact is None:
        return messages
    before = len(messages)
    compacted = on_compact(messages, focus)
    note = f"Compacted the conversation: {before} messages -> {len(compacted)} messages."
    return _replace_result(compacted, compact_id, note)


def _replace_result(messages: list, tool_use_id: str, content: str) -> list:
    """A new list where the tool_result for ``tool_use_id`` (if still there) holds ``content``."""
    out = []
    for message in messages:
        blocks = message.get("content")
        if message.get("role") == "user" and isinstance(blocks, list):
            if any(b.get("tool_use_id") == tool_use_id for b in blocks if isinstance(b, dict)):
                blocks = [
                    {**b, "content": content}
                    if isinstance(b, dict) and b.get("tool_use_id") == tool_use_id
                    else b
                    for b in blocks
                ]
                message = {**message, "content": blocks}
        out.append(message)
    return out


def _describe(error: BaseException) -> str:
    """An error as the SDK shows it: class name and message."""
    return f"{type(error).__name__}: {error}"


def sample_session(turns: int = 30, seed: int = 0) -> list[dict]:
    """A deterministic session of the offline agent (temp workspace, big window), as a fresh copy."""
    return json.loads(_sample_json(turns, seed))


@lru_cache(maxsize=8)
def _sample_json(turns: int, seed: int) -> str:
    client = connect(
        "offline", context_window=SAMPLE_WINDOW, seed=seed
    )  # deterministic whatever the shell says
    folder = new_workspace()
    try:
        result = run_agent(client, workspace=folder, max_turns=turns, raise_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return json.dumps(result.messages, ensure_ascii=False)
