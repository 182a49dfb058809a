"""Letting the Messages API manage the context: a client that asks the server to edit and cache.

``ServerManaged(client, edits=[...])`` behaves like ``client`` for ``run_agent`` (it has
``messages.create``), but sends each request to the beta endpoint with ``context_management``
(the edits: ``clear_tool_uses_20250919``, ``clear_thinking_20251015``, ``compact_20260112``), the
beta headers those edits need, and a top-level ``cache_control`` so the server caches the prefix
up to the last block. ``UsageLog`` keeps what each response reported: usage (sent, read from cache,
written to cache), the edits applied, compactions, and the files the agent read again.
``run_managed_session`` plays the same agent session under one strategy (server-side edits, or the course's
own ``Compactor``) and returns its usage log, so strategies can be compared call for call.
The client keeps its full history: server-side edits never change what the client holds
(https://platform.claude.com/docs/en/build-with-claude/context-editing).
Deliberately left out: streaming and the async client.
"""

from __future__ import annotations

import re
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from compaction.agent.backend import backend_name, connect
from compaction.agent.loop import SessionResult, new_workspace, run_agent
from compaction.core.models import PRICE
from compaction.core.store import OutputStore
from compaction.offline.server.api import HEADER_CACHE_SCOPE
from compaction.pipeline.compactor import Compactor
from compaction.pipeline.hooks import Hooks, Prepare

BETAS = {  # edit type -> the beta header it needs
    "clear_tool_uses_20250919": "context-management-2025-06-27",
    "clear_thinking_20251015": "context-management-2025-06-27",
    "compact_20260112": "compact-2026-01-12",
}
STEP_RE = re.compile(r"\[step (\d+)")  # the scripted agent's progress marker


class ServerManaged:
    """A client for ``run_agent`` whose requests carry ``context_management`` and a cache breakpoint."""

    def __init__(
        self,
        client: Any,
        *,
        edits: Sequence[dict] = (),
        cache: bool = True,
        record: Any = None,
        betas: Sequence[str] = (),
    ):
        unknown = [e.get("type") for e in edits if e.get("type") not in BETAS]
        if unknown:
            raise ValueError(f"unknown edit type(s) {unknown}; choose from {list(BETAS)}")
        self.client, self.edits, self.cache = client, [dict(e) for e in edits], cache
        self.record = record  # called with each response, e.g. UsageLog.on_side_call
        self.betas = list(betas)  # beta headers beyond the edits' (a turn-scoped system message's, ...)
        self.messages = self  # run_agent calls client.messages.create

    def options(self) -> dict:
        """The extra parameters every request carries."""
        extra: dict = {}
        if self.edits:
            extra["context_management"] = {"edits": self.edits}
        if self.edits or self.betas:
            extra["betas"] = sorted({BETAS[e["type"]] for e in self.edits} | set(self.betas))
        if self.cache:
            extra["cache_control"] = {"type": "ephemeral"}
        return extra

    def create(self, **request: Any) -> Any:
        """``client.beta.messages.create`` with the edits, their betas and the cache breakpoint."""
        response = self.client.beta.messages.create(**request, **self.options())
        if self.record is not None:
            self.record(response)
        return response

    def count_tokens(self, **request: Any) -> Any:
        """``client.beta.messages.count_tokens`` with the same extra parameters."""
        return self.client.beta.messages.count_tokens(**request, **self.options())


def input_cost(usage: Any) -> float:
    """Input cost of one response in base-price tokens, each kind of token at its ``PRICE`` multiple."""
    get = (lambda k: usage.get(k)) if isinstance(usage, dict) else (lambda k: getattr(usage, k, None))
    creation = get("cache_creation")
    one_hour = (
        creation.get("ephemeral_1h_input_tokens")
        if isinstance(creation, dict)
        else getattr(creation, "ephemeral_1h_input_tokens", 0)
    ) or 0
    written = get("cache_creation_input_tokens") or 0
    return (
        PRICE["input"] * (get("input_tokens") or 0)
        + PRICE["5m"] * (written - one_hour)
        + PRICE["1h"] * one_hour
        + PRICE["read"] * (get("cache_read_input_tokens") or 0)
    )


@dataclass
class UsageLog:
    """What a session's responses reported, one entry per model call."""

    sent: list[int] = field(default_factory=list)  # all input tokens of each call
    read: list[int] = field(default_factory=list)  # cache_read_input_tokens
    written: list[int] = field(default_factory=list)  # cache_creation_input_tokens
    cost: list[float] = field(default_factory=list)  # input_cost
    cleared: list[int] = field(default_factory=list)  # tool uses the server cleared
    compactions: int = 0
    summaries: int = 0  # calls that only summarize: server compactions, or the pipeline's summary calls
    summary_sent: int = 0  # their input tokens
    summary_cost: float = 0.0  # their input cost
    reads: list[str] = field(default_factory=list)  # paths of every read_file call, in order
    step: int = 0  # the furthest [step N] the offline agent announced

    def on_response(self, messages: list, response: Any) -> None:
        """The ``run_agent`` hook: record one response."""
        usage = response.usage
        read, written = usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0
        self.sent.append(usage.input_tokens + read + written)
        self.read.append(read)
        self.written.append(written)
        self.cost.append(input_cost(usage))
        applied = getattr(getattr(response, "context_management", None), "applied_edits", None) or []
        self.cleared.append(sum(getattr(e, "cleared_tool_uses", 0) for e in applied))
        for iteration in getattr(usage, "iterations", None) or []:
            if iteration.type == "compaction":  # not in the top-level usage (SDK BetaUsage.iterations)
                self.on_side_call(iteration)
        for block in response.content:
            if block.type == "compaction":
                self.compactions += 1
            if block.type == "tool_use" and block.name == "read_file":
                self.reads.append(str((block.input or {}).get("path")))
            if block.type == "text":
                self.step = max([self.step] + [int(n) for n in STEP_RE.findall(block.text)])

    def on_side_call(self, response_or_usage: Any) -> None:
        """Record a call made only to summarize (its response, or a compaction iteration's usage)."""
        usage = getattr(response_or_usage, "usage", response_or_usage)
        read, written = usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0
        self.summaries += 1
        self.summary_sent += usage.input_tokens + read + written
        self.summary_cost += input_cost(usage)

    def breaks(self) -> list[int]:
        """The calls whose prefix was broken (see ``cache_breaks_from_usage``)."""
        return cache_breaks_from_usage(self.read, self.written)

    def rereads(self) -> int:
        """read_file calls of a path the session had already read."""
        return len(self.reads) - len(set(self.reads))

    def totals(self) -> dict:
        """The session's sums: calls, tokens sent, cache reads and writes, cost, re-reads, summaries.

        ``sent`` and ``cost`` include the summary calls; ``cache read`` and ``written`` are the agent's.
        """
        return {
            "calls": len(self.sent),
            "sent": sum(self.sent) + self.summary_sent,
            "cache read": sum(self.read),
            "cache written": sum(self.written),
            "cost": round(sum(self.cost) + self.summary_cost),
            "files read again": self.rereads(),
            "cache breaks": len(self.breaks()),
            "summaries": self.summaries,
            "last step": self.step,
        }


def cache_breaks_from_usage(read: Sequence[int], written: Sequence[int]) -> list[int]:
    """Indexes of the calls that read back less than the call before them left in the cache.

    A call leaves in the cache what it read from it plus what it wrote (``cache_read_input_tokens``
    + ``cache_creation_input_tokens``); a call that only appends reads all of that back. Reading
    less means an earlier part of the prefix changed (or expired), and everything after it was
    written again. A call under the cache minimum leaves nothing, so the call after it breaks nothing.
    """
    return [i for i in range(1, len(read)) if read[i] < read[i - 1] + written[i - 1]]


def folder_compactor(root: Path, client: Any, window: int, **settings: Any) -> Compactor:
    """A ``Compactor`` whose store, transcripts and workspace lie in one folder, ``root``."""
    return Compactor(
        store=OutputStore(root / "store"),
        client=client,
        transcript_dir=root / "transcripts",
        context_window=window,
        workspace=root / "workspace",
        **settings,
    )


def run_managed_session(
    edits: Sequence[dict] = (),
    *,
    window: int,
    turns: int,
    pipeline: bool = False,
    cache: bool = True,
    folder: str | Path | None = None,
    server_options: dict | None = None,
    prepare: Prepare | None = None,
    betas: Sequence[str] = (),
    task: str | None = None,
) -> tuple[UsageLog, SessionResult]:
    """Play the agent for ``turns`` calls with server-side ``edits`` (or the course's pipeline).

    ``server_options`` are the offline server's own (``course_scale``, ``clear_in_rounds``: see
    ``connect``); the real API has none of them. ``prepare`` changes the list before each call and
    keeps what it returns (a system message appended after each tool result, say), ``betas`` are
    the beta headers it needs; the course's pipeline has a ``prepare`` of its own. ``task``: the user's
    first message (the scripted task by default).
    """
    if pipeline and prepare is not None:
        raise ValueError("prepare: the course's pipeline prepares the list itself; pass one or the other")
    base = connect(context_window=window, **(server_options or {}))
    if backend_name() == "offline":  # each session its own cache scope: a cold start, even side by side
        base = base.with_options(default_headers={HEADER_CACHE_SCOPE: uuid.uuid4().hex})
    root = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="compaction-server-side-"))
    log = UsageLog()
    hooks = Hooks(prepare=prepare, on_response=log.on_response)
    if pipeline:
        summarizer = ServerManaged(connect(context_window=window), cache=False, record=log.on_side_call)
        hooks = folder_compactor(root, summarizer, window).hooks()
        observe = hooks.on_response

        def both(messages: list, response: Any) -> None:
            observe(messages, response)
            log.on_response(messages, response)

        hooks = replace(hooks, on_response=both)
    client = ServerManaged(base, edits=edits, cache=cache, betas=betas)
    workspace = new_workspace(root / "workspace")
    result = run_agent(client, workspace=workspace, task=task, max_turns=turns, hooks=hooks)
    return log, result


EDITING_TOOLS = ("edit_file", "write_file")


def client_keeps(messages: list) -> dict[str, list[str]]:
    """What a client must still hold itself before the server compacts: the user's words, files changed.

    A server-side summary is written by the model and may paraphrase or drop the user's constraints;
    only the client can restore them verbatim afterwards, and re-read the files it changed.
    """
    words, files = [], []
    for message in messages:
        content = message["content"]
        if message["role"] == "user":
            if isinstance(content, str):
                words.append(content)
            else:
                words += [b["text"] for b in content if b.get("type") == "text"]
            continue
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") in EDITING_TOOLS:
                path = (block.get("input") or {}).get("path")
                if path and path not in files:
                    files.append(path)
    return {"user_words": words, "files_changed": files}
