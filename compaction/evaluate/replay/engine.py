"""Replay a recorded session turn by turn through one strategy, keeping a row per request.

The strategies, the cache pricing and the probes are the evaluation's (``compaction.evaluate``):
before each recorded model call, what arrived since (the assistant's reply and the user's next
message) is appended to what the strategy left, and the strategy prepares the list again; a
request over the window gets the strategy's reactive hook once and, if still over, is refused as
the API would refuse it, which ends the replay (``none`` goes on, to show how far over it gets).
What this adds to ``evaluate.replay.replay_messages``: a row per request for the timeline, the
peak request for the gauge, the events of strategies without a Compactor (from their passes), a
work folder that is kept (so what left can be opened), and any client (``--backend``).
Recorded replies are replayed as they were: a compacted context does not change what the agent
did next, which only a live run measures (``evaluate.replay.replay_offline``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compaction.core.events import CompactionEvent
from compaction.evaluate.cost import Cost, SharedCounter, Tokens, price
from compaction.evaluate.probes import Probe, ProbeScore, score
from compaction.evaluate.replay.turns import ProbeWatch, RecordingClient, replayed_requests, turn_slices
from compaction.evaluate.strategies import Passes, build
from compaction.importers import ImportedSession

DEFAULT = ("none", "masking 10", "summary only", "pipeline")
WITH_COMPACTOR = ("summary only", "pipeline", "hybrid")  # strategies that take Compactor settings
INPUT_PRICE = 3.0  # USD per million base input tokens, Claude Sonnet 4.5 (platform.claude.com pricing)


@dataclass(frozen=True)
class TurnRecord:
    """One replayed request: its turn (from 1), messages, tokens, and priced cost in input-token units."""

    turn: int
    messages: int
    tokens: int
    units: float


@dataclass
class StrategyRun:
    """A strategy over a whole session: a row per request, its events, cost, the final context."""

    strategy: str
    window: int
    workdir: Path
    outcome: str = ""
    turns: list[TurnRecord] = field(default_factory=list)
    events: list[CompactionEvent] = field(default_factory=list)
    final: list[dict] = field(default_factory=list)
    peak_context: list[dict] = field(default_factory=list)  # the largest request, for the gauge
    cost: Cost = field(default_factory=Cost)
    score: ProbeScore | None = None
    lost: dict[str, tuple[int, str]] = field(default_factory=dict)  # probe id -> (turn, pass) that dropped it
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
    def dollars(self) -> float:
        """The priced cost (cache reads 0.1x, writes 1.25x) at Sonnet 4.5's input price; no output."""
        return self.cost.units * INPUT_PRICE / 1e6

    @property
    def over_window(self) -> int | None:
        """The first turn whose request did not fit the window, or None."""
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
    turn_of_message: list[int]  # message index -> the turn (from 1) it arrived before
    probes: list[Probe] = field(default_factory=list)

    def turn_of(self, index: int) -> int:
        """The turn before which message ``index`` arrived (the last turn for an index past the end)."""
        if not self.turn_of_message:
            return 1
        return self.turn_of_message[min(index, len(self.turn_of_message) - 1)]


def turn_index(session: Sequence[dict]) -> list[int]:
    """Message index -> the turn (model call, from 1) before which it arrived."""
    slices = turn_slices(session)
    out = [n for n, (start, end) in enumerate(slices, 1) for _ in range(start, end)]
    return out + [max(len(slices), 1)] * (len(session) - len(out))


class PassEvents:
    """Events from the passes of strategies that have no Compactor (masking, recent turns)."""

    def __init__(self, tokens: Tokens):
        self.counter, self.turn = SharedCounter(tokens), 0
        self.events: list[CompactionEvent] = []

    def __call__(self, kind: str, passes: Passes) -> None:
        for (_, before), (name, after) in zip(passes, passes[1:], strict=False):
            if after is not before and after != before:
                size = self.counter.estimate(before), self.counter.estimate(after)
                self.events.append(CompactionEvent(self.turn, name, *size))


def replay(
    session: Sequence[dict],
    strategy: str,
    *,
    window: int,
    workdir: Path,
    client: Any,
    probes: Sequence[Probe] = (),
    source: str | os.PathLike | None = None,
    on_turn: Callable[[int, int], None] | None = None,
) -> StrategyRun:
    """Replay ``session`` through ``strategy``; ``on_turn(done, total)`` after each request.

    ``source`` is the file the session was imported from: a recorded message that leaves the
    context is already there, so the pipeline writes no transcript for it.
    """
    session = list(session)
    recording = RecordingClient(client)
    tokens, watch = Tokens(), ProbeWatch(probes)
    settings = None
    if strategy in WITH_COMPACTOR:
        settings = {"counter": SharedCounter(tokens)}
        if source is not None:
            settings["recorded"] = (str(source), session)
    keeper = build(strategy, window=window, client=recording, folder=workdir, settings=settings)
    passes = PassEvents(tokens)

    def observe(kind: str, steps: Passes) -> None:
        watch(kind, steps)
        if keeper.compactor is None:
            passes(kind, steps)

    keeper.on_passes = observe
    run = StrategyRun(strategy, window, Path(workdir))
    total = len(turn_slices(session))
    context: list[dict] = []
    agent_requests: list[int] = []  # index in recording.requests of each replayed request
    peak = -1

    def start(turn: int) -> None:  # the turn events and lost probes are charged to
        watch.turn = passes.turn = turn

    counter = SharedCounter(tokens)  # the request's size, paying only for what changed since the last
    for sent in replayed_requests(session, keeper, recording, window=window, counter=counter, on_start=start):
        context = sent.context
        if sent.refused:
            run.outcome = f"refused at turn {sent.turn}"
            break
        if sent.size > peak:
            peak, run.peak_context = sent.size, context  # the list itself: its messages are shared
        agent_requests.append(len(recording.requests) - 1)
        run.turns.append(TurnRecord(sent.turn, len(context), sent.size, 0.0))
        if on_turn is not None:
            on_turn(sent.turn, total)
    # the API refuses a request over the window: what "none" sends after that is never paid for
    refused = next((i for t, i in zip(run.turns, agent_requests, strict=True) if t.tokens > window), None)
    run.cost = price(recording.requests[:refused], tokens)
    run.turns = [
        TurnRecord(
            t.turn, t.messages, t.tokens, run.cost.per_request[i] if i < len(run.cost.per_request) else 0.0
        )
        for t, i in zip(run.turns, agent_requests, strict=True)
    ]
    over = run.over_window
    run.outcome = run.outcome or (f"over the window from turn {over}" if over else f"{len(run.turns)} turns")
    run.final = context
    run.events = keeper.events if keeper.compactor is not None else passes.events
    run.breaker_open = keeper.compactor is not None and keeper.compactor.breaker_open
    if probes:
        reached = set(score(probes, session).answered)
        run.score = score([p for p in probes if p.id in reached], context)
        run.lost = {k: v for k, v in watch.lost.items() if k in reached}
    return run
