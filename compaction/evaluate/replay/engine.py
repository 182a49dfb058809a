"""The replay engine: one strategy over one recorded session, a row per request, everything measured.

The strategies, the cache pricing and the probes are the evaluation's (``compaction.evaluate``):
the turn loop is ``turns.replayed_requests`` (what arrived since is appended to what the strategy
left, the strategy prepares the list again, a request over the window gets the reactive hook once
and, if still over, is refused as the API would refuse it; ``none`` goes on, to show how far over
it gets). A strategy that cannot bring a request under the window (its summary failed, or the
first message alone is over the window) ends "refused at turn N: why", never with an exception.
``replay`` keeps a row per request for the timeline, the peak request for the gauge, the events
of the strategy's Compactor, a work folder that is kept (so what left can be opened), and any
client (``--backend``). ``replay_messages`` is the same run in a temporary
folder with the offline summarizer, measured as the evaluation's ``Replay``.
Recorded replies are replayed as they were: a compacted context does not change what the agent
did next, which only a live run measures (``live.replay_offline``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compaction.agent.backend_choice import SAMPLE_WINDOW
from compaction.agent.lazy_client import LazyClient
from compaction.core.events import CompactionEvent
from compaction.core.models import CLAUDE_MODEL, MODELS
from compaction.evaluate.cost import Cost, Counted, Pricer, Request, SharedCounter
from compaction.evaluate.probes import Probe, ProbeScore, score
from compaction.evaluate.recording import ProbeWatch, RecordingClient
from compaction.evaluate.replay.turns import (
    Ran,
    Replay,
    finish,
    over_the_window,
    probe_reach,
    replayed_requests,
    turn_slices,
)
from compaction.evaluate.strategies import build
from compaction.importers import ImportedSession

PRICED_MODEL = MODELS[CLAUDE_MODEL]  # the course's default model, from the cited table
INPUT_PRICE = PRICED_MODEL.input_price  # USD per million base input tokens


@dataclass(frozen=True)
class ReplayedRequest:
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
    turns: list[ReplayedRequest] = field(default_factory=list)
    events: list[CompactionEvent] = field(default_factory=list)
    final: list[dict] = field(default_factory=list)
    peak_context: list[dict] = field(default_factory=list)  # the largest request, for the gauge
    peak_fill: dict[str, int] | None = None  # its tokens by kind, once counted (the list let go)
    cost: Cost = field(default_factory=Cost)
    score: ProbeScore | None = None
    lost: dict[str, tuple[int, str]] = field(default_factory=dict)  # probe id -> (turn, pass) that dropped it
    unreached: list[str] = field(default_factory=list)  # probes the run stopped before; counted as lost
    breaker_open: bool = False  # failed summaries opened the circuit breaker
    loop_stopped: bool = False  # the loop guard stopped summaries that could not get under the threshold
    refused: str = ""  # why the run was refused (empty when it was not), in words
    requests: list[Request] = field(default_factory=list)  # every request answered, when kept (``replay``)
    counts: dict[str, int] = field(default_factory=dict)  # layer -> times it fired (the strategy's count)
    received: int = 0  # messages of the session the run received before it ended

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
        """The priced cost (cache reads and writes at ``PRICE``'s multiples), input only, in USD."""
        return self.cost.units * INPUT_PRICE / 1e6

    @property
    def over_window(self) -> int | None:
        """The first turn whose request did not fit the window, or None."""
        return next((t.turn for t in self.turns if t.tokens > self.window), None)

    def fired(self) -> dict[str, int]:
        """Layer -> how many times it fired, for the layers that did."""
        counts: dict[str, int] = {}
        for event in self.events:
            counts[event.kind] = counts.get(event.kind, 0) + 1
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


def replay(
    session: Sequence[dict],
    strategy: str,
    *,
    window: int,
    workdir: Path,
    client: Any,
    probes: Sequence[Probe] = (),
    source: str | os.PathLike | None = None,
    settings: dict[str, Any] | None = None,
    on_turn: Callable[[int, int], None] | None = None,
    counted: Counted | None = None,
    keep_requests: bool = False,
) -> StrategyRun:
    """Replay ``session`` through ``strategy``; ``on_turn(done, total)`` after each request.

    ``source`` is the file the session was imported from: a recorded message that leaves the
    context is already there, so the pipeline writes no transcript for it. ``settings`` override
    the strategy's (see ``strategies.build``). ``counted`` shares the tokens and digests of the
    session's messages between the strategies replayed over it (each counted once). Requests are
    priced as they are made; ``keep_requests`` also keeps them in the run (every list sent).
    """
    session = list(session)
    counted = counted or Counted()
    tokens, watch = counted.tokens, ProbeWatch(probes, counted.texts)
    recording = RecordingClient(client, Pricer(tokens, counted.fingerprints), keep=keep_requests)
    settings = dict(settings or {})
    settings.setdefault("counter", SharedCounter(tokens))
    if source is not None:
        settings.setdefault("recorded", (str(source), session))
    compactor = build(strategy, window=window, client=recording, folder=workdir, settings=settings)
    compactor.on_passes = watch
    run = StrategyRun(strategy, window, Path(workdir))
    slices = turn_slices(session)
    context: list[dict] = []
    agent_requests: list[int] = []  # the place of each replayed request among all those recorded
    peak = -1

    def start(turn: int) -> None:  # the turn lost probes are charged to
        watch.turn = turn

    counter = SharedCounter(tokens)  # the request's size, paying only for what changed since the last
    requests = replayed_requests(
        session, compactor, recording, name=strategy, window=window, counter=counter, on_start=start
    )
    for sent in requests:
        context, run.received = sent.context, sent.received
        if sent.refused:
            run.refused = sent.refused
            run.outcome = f"refused at turn {sent.turn}: {sent.refused}"
            break
        if sent.size > peak:
            peak, run.peak_context = sent.size, context  # the list itself: its messages are shared
        agent_requests.append(recording.recorded - 1)
        run.turns.append(ReplayedRequest(sent.turn, len(context), sent.size, 0.0))
        if on_turn is not None:
            on_turn(sent.turn, len(slices))
    if not run.refused:  # it came to the end: the last answer too has arrived, so every probe was reached
        run.received = len(session)
    run.cost = recording.pricer.cost  # type: ignore[union-attr]
    run.turns = [
        ReplayedRequest(
            t.turn, t.messages, t.tokens, run.cost.per_request[i] if i < len(run.cost.per_request) else 0.0
        )
        for t, i in zip(run.turns, agent_requests, strict=True)
    ]
    over = run.over_window
    run.outcome = run.outcome or (over_the_window(over) if over else f"{len(run.turns)} turns")
    run.final = context
    run.events = list(compactor.events)
    run.breaker_open, run.loop_stopped = compactor.breaker_open, compactor.stopped is not None
    run.requests, run.counts = list(recording.requests), compactor.counts()
    if probes:
        received, stopped = session[: run.received], bool(run.refused)
        held, run.unreached = probe_reach(probes, received, session, stopped=stopped, texts=counted.texts)
        run.score = score([p for p in probes if p.id in held], context, counted.texts)
        run.lost = {k: v for k, v in watch.lost.items() if k in held}
    return run


def replay_messages(
    session: Sequence[dict],
    strategy: str,
    *,
    window: int,
    probes: Sequence[Probe] = (),
    label: str = "session",
    settings: dict[str, Any] | None = None,
    on_turn: Callable[[int], None] | None = None,
) -> Replay:
    """``replay`` in a temporary folder with the offline summarizer, measured as a ``Replay``."""
    session = list(session)
    with tempfile.TemporaryDirectory(prefix="compaction-eval-") as tmp:
        client = LazyClient("offline", context_window=SAMPLE_WINDOW)  # connected by a summary request
        run = replay(
            session,
            strategy,
            window=window,
            workdir=Path(tmp),
            client=client,
            probes=probes,
            settings=settings,
            on_turn=None if on_turn is None else (lambda done, total: on_turn(done)),
            keep_requests=True,  # the figures of a Replay are made from them
        )
        final = run.final
        if not run.refused:  # the last answer, as it came
            slices = turn_slices(session)
            final = final + session[slices[-1][1] if slices else 0 :]
        turns = run.turns[-1].turn if run.turns else 0
        return finish(
            Ran(strategy, run.requests, run.counts, run.events, run.outcome, turns, final),
            label=label,
            window=window,
            full=session,
            received=session[: run.received],
            probes=probes,
            lost=run.lost,
            workspace=Path(tmp),
            live=False,
        )
