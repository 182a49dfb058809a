"""Replay a recorded session turn by turn through one strategy, as if it had run with it.

Before each recorded model call, what arrived since the last one (the assistant's reply and the
user's next message) is appended to whatever the strategy left of the list, and the strategy
prepares it again. Each request is counted (tiktoken, anchored the way the pipeline anchors on
``usage``), priced with the prompt cache (``cost``), and checked against the window. The recorded
replies are replayed as they were: a compacted context does not change what the agent did next,
which is what a live run (chapter 13) measures. Deliberately left out: the system prompt and tools.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compaction.importers import ImportedSession
from compaction.pipeline import CompactionEvent
from compaction.prompt_cache import common_prefix
from compaction.replay.cost import request_cost
from compaction.replay.strategies import build
from compaction.tokens import TokenCounter


@dataclass(frozen=True)
class TurnRecord:
    """One replayed request: its turn, messages and tokens, what the cache held, what it cost."""

    turn: int
    messages: int
    tokens: int
    cached: int
    cost: float


@dataclass
class StrategyRun:
    """A strategy over a whole session: a row per request, its events, the final context."""

    strategy: str
    window: int
    workdir: Path
    turns: list[TurnRecord] = field(default_factory=list)
    events: list[CompactionEvent] = field(default_factory=list)
    final: list[dict] = field(default_factory=list)
    peak_context: list[dict] = field(default_factory=list)  # the largest request, for the gauge
    breaker_open: bool = False

    @property
    def peak(self) -> int:
        """The largest request, in tokens."""
        return max((t.tokens for t in self.turns), default=0)

    @property
    def peak_turn(self) -> int:
        """The turn of the largest request (the first, if several tie)."""
        return max(self.turns, key=lambda t: t.tokens).turn if self.turns else 0

    @property
    def final_tokens(self) -> int:
        """Tokens of the last request."""
        return self.turns[-1].tokens if self.turns else 0

    @property
    def sent(self) -> int:
        """Input tokens over all requests (cached reads included)."""
        return sum(t.tokens for t in self.turns)

    @property
    def cost(self) -> float:
        """Dollars over all requests, with the prompt cache."""
        return sum(t.cost for t in self.turns)

    @property
    def over_window(self) -> int | None:
        """The first turn whose request did not fit the window (the API would refuse it), or None."""
        return next((t.turn for t in self.turns if t.tokens > self.window), None)

    def fired(self) -> dict[str, int]:
        """Layer -> how many times it fired, for the layers that did."""
        counts: dict[str, int] = {}
        for event in self.events:
            counts[event.layer] = counts.get(event.layer, 0) + 1
        return counts


@dataclass
class SessionReplay:
    """One imported session and its replay through each strategy."""

    session: ImportedSession
    runs: list[StrategyRun]
    turn_of_message: list[int]  # message index -> the turn it arrived in

    def turn_of(self, index: int) -> int:
        """The turn in which message ``index`` arrived (the last turn for an index past the end)."""
        if not self.turn_of_message:
            return 0
        return self.turn_of_message[min(index, len(self.turn_of_message) - 1)]


def turn_index(session: list[dict]) -> list[int]:
    """Message index -> the turn (model call) before which it arrived."""
    out = []
    for turn, (start, end) in enumerate(turns_of(session)):
        out.extend([turn] * (end - start))
    last = len(turns_of(session)) - 1
    return out + [max(last, 0)] * (len(session) - len(out))


def turns_of(session: list[dict]) -> list[tuple[int, int]]:
    """Slices of the session that end with a user message: what arrives before each model call."""
    bounds, start = [], 0
    for i, m in enumerate(session):
        if m["role"] == "user":
            bounds.append((start, i + 1))
            start = i + 1
    return bounds


def replay(
    session: list[dict],
    strategy: str,
    *,
    window: int,
    workdir: Path,
    client: Any = None,
    on_turn: Callable[[int, int], None] | None = None,
) -> StrategyRun:
    """Replay ``session`` through ``strategy``; ``on_turn(done, total)`` after each request."""
    prepare, compactor = build(strategy, window=window, workdir=Path(workdir), client=client)
    run = StrategyRun(strategy, window, Path(workdir))
    counter = compactor.counter if compactor is not None else TokenCounter("tiktoken")
    slices = turns_of(session)
    context: list[dict] = []
    previous: list[dict] = []
    for turn, (start, end) in enumerate(slices):
        context = prepare(context + session[start:end])
        tokens = counter.count(context)
        kept = common_prefix(previous, context)
        cached = sum(counter.message_tokens(m) for m in context[:kept])
        reply = session[end] if end < len(session) else None
        output = counter.message_tokens(reply) if reply is not None else 0
        if tokens > run.peak or not run.turns:
            run.peak_context = context  # the list itself: its messages are shared, nothing is copied
        run.turns.append(
            TurnRecord(turn, len(context), tokens, cached, request_cost(cached, tokens - cached, output))
        )
        if compactor is not None:
            compactor.observe(context, {"input_tokens": tokens})
        previous = context
        if on_turn is not None:
            on_turn(turn + 1, len(slices))
    run.final = context
    if compactor is not None:
        run.events = list(compactor.events)
        run.breaker_open = compactor.breaker_open
    return run
