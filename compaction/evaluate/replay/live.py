"""The live run: the scripted offline agent under a strategy, so what a strategy removes changes what it does.

``replay_offline`` runs the offline agent for a number of turns in a small window with a strategy's
``Compactor``: a file cleared from its context is read again, a summary changes its next step. Every
request is recorded and priced, each pass scored against the probes, and the figures come out as a
``turns.Replay``, the same as a recorded session's. It is apart from ``turns`` because it needs the
agent loop and the SDK's client, which a recorded session's replay never does.
Deliberately left out: the real API (the live run is the offline model's).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW, SYSTEM_PROMPT, new_workspace, run_agent
from compaction.agent.memory import MemoryFolder
from compaction.agent.tools import TOOL_DEFINITIONS, tool_params
from compaction.core.failures import SummaryFailed
from compaction.core.tokens import estimate_tokens
from compaction.evaluate import notes
from compaction.evaluate.cost import Request
from compaction.evaluate.probes import Probe
from compaction.evaluate.recording import ProbeWatch, Recorder, RecordingClient
from compaction.evaluate.replay.turns import Ran, Replay, finish, over_the_window
from compaction.evaluate.strategies import build
from compaction.pipeline.compactor import Passes


def replay_offline(
    strategy: str,
    *,
    turns: int = 150,
    window: int = 8_000,
    probes: Sequence[Probe] = (),
    seed: int = 0,
    settings: dict[str, Any] | None = None,
    on_turn: Callable[[Any], None] | None = None,
) -> Replay:
    """Run the offline agent for ``turns`` calls in a ``window`` under ``strategy``; measure it all.

    ``none`` runs in a window too large to overflow, so its session is the uncompacted reference
    and its cost the baseline; its outcome says from which turn it would not have fitted ``window``.
    """
    label = f"offline {turns} turns"
    base, remembers = notes.split(strategy)
    with tempfile.TemporaryDirectory(prefix="compaction-eval-") as tmp:
        workspace = new_workspace(Path(tmp) / "workspace")
        server_window = SAMPLE_WINDOW if strategy == "none" else window
        client = RecordingClient(connect("offline", context_window=server_window, seed=seed))
        memory = MemoryFolder(Path(tmp) / "memory") if remembers else None
        tools = [*TOOL_DEFINITIONS, memory] if memory is not None else TOOL_DEFINITIONS
        compactor = build(
            base,
            window=window,
            client=client,
            folder=tmp,
            workspace=workspace,
            settings=settings,
            agent={"system": SYSTEM_PROMPT, "tools": tool_params(tools)[0]},  # what run_agent sends
        )
        recorder, watch = Recorder(), ProbeWatch(probes)

        def watched(kind: str, passes: Passes) -> None:
            recorder.see(passes[0][1], passes[-1][1])
            watch(kind, passes)

        def counted(record: Any) -> None:
            watch.turn = record.index + 1
            if on_turn is not None:
                on_turn(record)

        compactor.on_passes = watched
        options = {"max_turns": turns, "on_turn": counted, "hooks": compactor.hooks(), "tools": tools}
        result = run_agent(client, workspace=workspace, **options)
        recorder.see(result.messages)
        final = result.messages
        asked = next((r for r in reversed(client.requests) if not r.summary), None)
        if memory is not None and asked is not None:  # it reads its notes before it answers, in the window
            room = window - asked.framing - estimate_tokens(final, "tiktoken")
            final = final + notes.read_notes(memory, room)
            if len(final) > len(result.messages):  # priced as one request more
                client.requests.append(Request(tuple(final), asked.framing, asked.key))
        answered = [t for t in result.turns if t.input_tokens is not None]
        if result.error is not None:
            outcome = f"refused at turn {len(result.turns)}: {_refusal(result.error)}"
        elif strategy == "none":
            over = next((t.index + 1 for t in answered if t.input_tokens > window), None)
            outcome = over_the_window(over) if over else f"{len(answered)} turns"
        else:
            outcome = f"{len(answered)} turns"
        ran = Ran(
            strategy,
            client.requests,
            compactor.counts(),
            compactor.events,
            outcome,
            len(answered),
            final,
        )
        replay = finish(
            ran,
            label=label,
            window=window,
            full=recorder.session,
            probes=probes,
            lost=watch.lost,
            workspace=workspace,
        )
        replay.memory = notes.usage(recorder.session, client.requests) if memory is not None else None
        return replay


def _refusal(error: BaseException) -> str:
    """Why the live run stopped, in one line: the failure's reason, or the API's refusal."""
    if isinstance(error, SummaryFailed):
        return error.reason
    body = getattr(error, "body", None)  # an API error: its own words, not "Error code: 400 - {...}"
    detail = body.get("error") if isinstance(body, dict) else None
    message = detail.get("message") if isinstance(detail, dict) else None
    return " ".join(str(message or error).split())[:200]
