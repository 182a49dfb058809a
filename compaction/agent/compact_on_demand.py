"""On-demand compaction from the client's side: the SDK's tool runner, a trigger, and cache diagnostics.

The SDK's tool runner (``client.beta.messages.tool_runner``, ``anthropic/lib/tools/_beta_runner.py``)
runs ``@beta_tool`` functions until the model stops asking; it compacts only when told:
``runner.compact_before_next_turn()`` "schedules" a compaction after the current turn, the runner
sends it on a fork without ``context_management``, ``stop_sequences`` or a forced ``tool_choice``,
yields the compaction message (``stop_reason`` "compaction") and carries on from the block. When to
call it is the client's decision: ``should_compact`` is the course's trigger for it, from the reply's
``usage`` (all three input fields, as ``tokens.usage_input_tokens`` counts them) plus what the next
request adds (the reply and the tool results the runner will send, ``generate_tool_call_response``,
whose answer the SDK caches so the tools run once).

``run_runner`` plays the offline scripted agent through the SDK's runner with the workspace's tools
and a trigger; ``run_diagnosed`` plays it through the course's pipeline with ``diagnostics`` on
every request (SDK ``DiagnosticsParam`` of the non-beta ``client.messages.create``,
``anthropic/types/diagnostics_param.py``) and keeps, per request, what the API said about the
cache next to what ``prompt_cache.cache_breaks`` counts and which layers ran before it.
Deliberately left out: the async and streaming runners.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
from anthropic import beta_tool
from anthropic.lib.tools import ToolError

from compaction.agent.backend import DEFAULT_MODEL, backend_name, connect
from compaction.agent.loop import SYSTEM_PROMPT, SessionResult, default_task, new_workspace, run_agent
from compaction.agent.server_side import ServerManaged, UsageLog, folder_compactor
from compaction.agent.tools import Workspace
from compaction.core.messages import from_response, text_of
from compaction.core.tokens import estimate_tokens, usage_input_tokens
from compaction.offline.server.api import HEADER_CACHE_SCOPE
from compaction.pipeline.compactor import Compactor

BETA = "compact-2026-09-04"  # on-demand compaction (SDK BetaCompactionConfigParam)
Trigger = Callable[[Any, Any, int], bool]  # (usage, pending tool results, threshold) -> compact?


def next_request_tokens(usage: Any, pending: dict | None) -> int:
    """The next request's size: this one's input (cached or not), the reply, and the pending results."""
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
    results = estimate_tokens([pending], "tiktoken") if pending else 0
    return usage_input_tokens(usage) + (get("output_tokens") or 0) + results


def should_compact(usage: Any, pending: dict | None, threshold: int) -> bool:
    """Compact before the next turn when the next request would be over ``threshold`` tokens."""
    return next_request_tokens(usage, pending) > threshold


def workspace_tools(workspace: Workspace) -> list:
    """The agent's five tools as ``@beta_tool`` functions on ``workspace``; a failed call raises ToolError."""

    def run(name: str, **arguments: Any) -> str:
        use = {"type": "tool_use", "id": "toolu_runner", "name": name, "input": arguments}
        result = workspace.run(use)
        body = text_of(result.get("content"))
        if result.get("is_error"):
            raise ToolError(body)  # the runner sends it back with is_error: true
        return body

    @beta_tool
    def bash(command: str) -> str:
        """Run a shell command in the workspace folder."""
        return run("bash", command=command)

    @beta_tool
    def read_file(path: str) -> str:
        """Read a text file with numbered lines."""
        return run("read_file", path=path)

    @beta_tool
    def write_file(path: str, content: str) -> str:
        """Create or overwrite a file."""
        return run("write_file", path=path, content=content)

    @beta_tool
    def edit_file(path: str, old_text: str, new_text: str) -> str:
        """Replace old_text, which must occur exactly once in the file, with new_text."""
        return run("edit_file", path=path, old_text=old_text, new_text=new_text)

    @beta_tool
    def glob(pattern: str) -> str:
        """List the files matching a glob pattern, as sorted relative paths."""
        return run("glob", pattern=pattern)

    return [bash, read_file, write_file, edit_file, glob]


def _client(window: int) -> anthropic.Anthropic:
    """A client for a session of its own: offline, its own cache scope (a cold start)."""
    client = connect(context_window=window)
    if backend_name() == "offline":
        client = client.with_options(default_headers={HEADER_CACHE_SCOPE: uuid.uuid4().hex})
    return client


@dataclass
class RunnerRun:
    """A tool runner session: every yielded message, its usage log, the context it ended with, any error."""

    messages: list = field(default_factory=list)
    log: UsageLog = field(default_factory=UsageLog)
    context: list[dict] = field(default_factory=list)  # what the next request would send
    error: Exception | None = None

    @property
    def compactions(self) -> int:
        """Compaction messages the runner yielded."""
        return sum(m.stop_reason == "compaction" for m in self.messages)


def run_runner(
    *,
    window: int,
    turns: int,
    trigger: Trigger | None = None,
    threshold: int = 0,
    folder: str | Path | None = None,
) -> RunnerRun:
    """The offline agent through the SDK's tool runner; ``trigger`` decides when to compact."""
    root = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="compaction-runner-"))
    workspace = Workspace(new_workspace(root / "workspace"))
    task = {"role": "user", "content": default_task()}
    runner = _client(window).beta.messages.tool_runner(
        model=DEFAULT_MODEL,
        max_tokens=4096,
        system=SYSTEM_PROMPT,
        tools=workspace_tools(workspace),
        messages=[task],
        betas=[BETA],
        cache_control={"type": "ephemeral"},
        max_iterations=turns,
    )
    run = RunnerRun(context=[task])
    try:
        for message in runner:
            run.messages.append(message)
            if message.stop_reason == "compaction":  # a call only to summarize, priced apart
                for iteration in message.usage.iterations or []:
                    run.log.on_side_call(iteration)
                run.log.compactions += 1
                run.context = [from_response(message)]
                continue
            run.log.on_response(run.context, message)
            run.context = run.context + [from_response(message)]
            if message.stop_reason != "tool_use":
                continue
            pending = runner.generate_tool_call_response()  # cached: the runner sends these same results
            if pending is not None:
                run.context = run.context + [pending]
            if trigger is not None and trigger(message.usage, pending, threshold):
                runner.compact_before_next_turn()
    except anthropic.APIError as error:
        run.error = error
    return run


@dataclass(frozen=True)
class Diagnosed:
    """One request of a diagnosed session: what was sent, what the API said, the layers before it."""

    messages: list[dict]
    reason: dict | None  # diagnostics.cache_miss_reason as a dict, None when nothing diverged
    layers: tuple[str, ...]  # the layers that changed the list in the preparation before this request


class _Diagnosing:
    """A client for ``run_agent`` that names the previous response in ``diagnostics`` on every request."""

    def __init__(self, client: Any, compactor: Compactor):
        self.client, self.compactor = client, compactor
        self.calls: list[Diagnosed] = []
        self.messages = self
        self._previous: str | None = None
        self._events = 0

    def create(self, **request: Any) -> Any:
        """``client.messages.create`` with ``diagnostics``; records the answer's cache_miss_reason."""
        response = self.client.messages.create(**request, diagnostics={"previous_message_id": self._previous})
        self._previous = response.id
        events = self.compactor.events[self._events :]
        self._events = len(self.compactor.events)
        layers = tuple(dict.fromkeys(e.kind for e in events if e.tokens_before != e.tokens_after))
        found = getattr(response, "diagnostics", None)
        reason = found.cache_miss_reason.to_dict() if found and found.cache_miss_reason else None
        self.calls.append(Diagnosed(list(request["messages"]), reason, layers))
        return response


def run_diagnosed(
    *, window: int, turns: int, folder: str | Path | None = None, **settings: Any
) -> tuple[list[Diagnosed], SessionResult]:
    """The offline agent under the course's pipeline (``settings`` for the Compactor), diagnosed."""
    root = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="compaction-diagnosed-"))
    summarizer = ServerManaged(connect(context_window=window), cache=False)
    compactor = folder_compactor(root, summarizer, window, **settings)
    client = _Diagnosing(_client(window), compactor)
    result = run_agent(
        client, workspace=new_workspace(root / "workspace"), max_turns=turns, hooks=compactor.hooks()
    )
    return client.calls, result
