"""The whole loop: a long offline session in a small window, with the pipeline or the other design.

``run_session`` runs the scripted agent through ``run_agent`` for ``turns`` model calls in a
``window``-token context, with a ``Compactor`` (``strategy="pipeline"``) or the Java port's
``RecentTurns`` (``strategy="recent_turns"``), and returns a ``SessionReport``: every turn,
every compaction event, the counts per layer, the peak and the errors that reached the user.
Persisted outputs (``.task_outputs/``) and transcripts (``.transcripts/``) stay inside the
workspace, so their paths are relative. ``run_compacted_demo`` is the command line's
``demo --compact``: a progress bar, a table per layer, and one closing line.

The demo's layers scale the pipeline to the small window (``demo_layers``); ``compact_at``
offers the model the ``compact`` tool and makes the user ask for a compaction before that call.
Deliberately left out: choosing settings for a real 200K window and running several sessions at
once. Of the ``Compactor``'s defaults, the window, the result budget, the buffer, the reserve and the
breaker follow Claude Code's figures as the course's design notes give them (the seed documents, a
reading of Claude Code, not Anthropic's docs); snip is off by default, as chapter 13's comparison
chose, and the micro settings follow the seed's teaching code. Claude Code's own docs say only that
it "clears older tool outputs first, then summarizes the conversation if needed"
(code.claude.com/docs, "How Claude Code works"); they give no figures for that clearing.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.agent.tools import COMPACT_TOOL, TOOL_DEFINITIONS
from compaction.core.events import CompactionEvent
from compaction.core.messages import from_response
from compaction.core.store import OutputStore
from compaction.layers.budget import Budget
from compaction.layers.layer import Layer
from compaction.layers.recent_turns import RecentTurns
from compaction.pipeline.compactor import Compactor, default_layers

REPORTED = ("budget", "snip", "micro", "summary", "reactive")  # the layers the closing line names
COMPACT_REQUEST = "Please compact the conversation now before you go on."


def demo_layers(window: int) -> list[Layer]:
    """The default list of layers for a small window: a budget of half the window in characters."""
    return [Budget(max_chars=max(1_000, window // 2)), *default_layers()[1:]]


@dataclass
class SessionReport:
    """One long session: its turns, the compaction events, and what the user saw."""

    strategy: str
    window: int
    turns: list  # TurnRecord per model call
    events: list[CompactionEvent] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    error: BaseException | None = None
    messages: list[dict] = field(default_factory=list)  # the final list
    workspace: Path | None = None
    replies: list[dict] = field(default_factory=list)  # every assistant reply, in order

    @property
    def errors(self) -> int:
        """Errors that reached the user: the one that ended the session, if any."""
        return 0 if self.error is None else 1

    @property
    def peak(self) -> int:
        """The largest request of the session, in the API's tokens where it answered."""
        sizes = [t.input_tokens if t.input_tokens is not None else t.estimated_tokens for t in self.turns]
        return max(sizes, default=0)

    def line(self) -> str:
        """The closing line: turns, errors, peak against the window, and how often each layer fired."""
        fired = " ".join(f"{layer}={self.counts.get(layer, 0)}" for layer in REPORTED)
        return (
            f"session: {len(self.turns)} turns, {self.errors} errors, peak {self.peak:,} of "
            f"{self.window:,} tokens, layers fired: {fired}"
        )


def ask_to_compact(prepare: Callable[[list], list], at: int | None) -> Callable[[list], list]:
    """Wrap ``prepare`` so that before model call ``at`` the user asks for a compaction."""
    calls = {"n": -1}

    def wrapped(messages: list) -> list:
        calls["n"] += 1
        out = prepare(messages)
        last = out[-1]
        if calls["n"] != at or last.get("role") != "user" or not isinstance(last.get("content"), list):
            return out
        asked = {**last, "content": [*last["content"], {"type": "text", "text": COMPACT_REQUEST}]}
        return [*out[:-1], asked]

    return wrapped


def run_session(
    *,
    turns: int = 150,
    window: int = 8_000,
    workdir: str | Path | None = None,
    backend: str | None = None,
    seed: int = 0,
    strategy: str = "pipeline",
    compact_at: int | None = None,
    on_turn: Callable[[Any], None] | None = None,
    **settings: Any,
) -> SessionReport:
    """Run the offline scenario for ``turns`` calls in a ``window``-token context; a report of it."""

    if strategy not in ("pipeline", "recent_turns"):
        raise ValueError(f"strategy must be 'pipeline' or 'recent_turns', not {strategy!r}")
    client = connect(None if backend == "offline" else backend, context_window=window, seed=seed)
    temporary = Path(tempfile.mkdtemp(prefix="compaction-session-")) if workdir is None else None
    folder = new_workspace(temporary / "workspace" if temporary else workdir)
    transcripts = folder / ".transcripts"
    if strategy == "pipeline":
        store = OutputStore(folder / ".task_outputs", base=folder)
        options = {"layers": demo_layers(window), **settings}
        compactor = Compactor(
            store=store,
            client=client,
            transcript_dir=transcripts,
            context_window=window,
            workspace=folder,
            **options,
        )
    else:
        compactor = Compactor([RecentTurns(**settings)], client=client, transcript_dir=transcripts)
    hooks = compactor.hooks()
    replies: list[dict] = []
    observe = hooks.on_response

    def on_response(messages: list, response: Any) -> None:
        replies.append(from_response(response))
        if observe is not None:
            observe(messages, response)

    hooks = replace(hooks, prepare=ask_to_compact(hooks.prepare, compact_at), on_response=on_response)
    try:
        result = run_agent(
            client,
            workspace=folder,
            max_turns=turns,
            tools=[*TOOL_DEFINITIONS, COMPACT_TOOL] if compact_at is not None else TOOL_DEFINITIONS,
            on_turn=on_turn,
            hooks=hooks,
        )
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    return SessionReport(
        strategy,
        window,
        result.turns,
        list(compactor.events),
        compactor.counts(),
        result.error,
        result.messages,
        None if temporary is not None else folder,
        replies,
    )


def layer_table(report: SessionReport):
    """A rich table: per layer, how often it fired and the tokens it freed in all."""

    table = Table(title=f"Compaction in a window of {report.window:,} tokens")
    for name, justify in (("layer", "left"), ("fired", "right"), ("tokens freed", "right")):
        table.add_column(name, justify=justify)
    for layer, count in report.counts.items():
        freed = sum(e.tokens_before - e.tokens_after for e in report.events if e.kind == layer)
        table.add_row(layer, str(count), f"{freed:,}")
    return table


def run_compacted_demo(
    turns: int = 150,
    window: int = 8_000,
    workdir: str | Path | None = None,
    backend: str | None = None,
    console: Any = None,
) -> int:
    """The ``demo --compact`` command: run the session, print a table and one line; 0 if no error."""

    console = console or Console(highlight=False)
    console.print(
        f"Agent running with the compaction pipeline, a window of {window:,} tokens, {turns} turns."
    )
    columns = (TextColumn("turn"), MofNCompleteColumn(), BarColumn(), TextColumn("{task.description}"))
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("", total=turns)

        def on_turn(record: Any) -> None:
            progress.update(
                bar, completed=record.index + 1, description=f"{record.estimated_tokens:,} tokens"
            )

        report = run_session(turns=turns, window=window, workdir=workdir, backend=backend, on_turn=on_turn)
    console.print(layer_table(report))
    if report.error is not None:
        console.print(f"error: {type(report.error).__name__}: {report.error}", style="bold red")
    if workdir is not None:
        console.print(f"Workspace, persisted outputs and transcripts kept in {workdir}")
    console.print(report.line(), soft_wrap=True, markup=False, highlight=False)
    return 0 if report.errors == 0 else 1
