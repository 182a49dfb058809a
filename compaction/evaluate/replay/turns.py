"""The turns of a replay and its figures: the one turn loop of a recorded session, ``Replay``.

Two sources of turns. ``live.replay_offline`` runs the scripted offline agent live, so what a
strategy removes changes what the agent does next (a file cleared from its context is read again).
``replayed_requests`` is the turn loop of a recorded session (any strict-form message list), which
``engine.replay`` and ``engine.replay_messages`` run: before each model call the messages that
arrived since are appended to what the strategy left, and the strategy prepares the list again; a
request over the window is refused as the API would, and the strategy's reactive hook, if it has
one, gets one chance to recover. A strategy that cannot compact is refused too, with the reason.

Every request that reaches the model (summary requests included) is recorded and priced
(``compaction.evaluate.cost``). Each pass of each preparation is scored against the probes, so a
probe that leaves the context is charged to the pass that removed it (the last such pass, when
the agent brought the fact back in between). ``Replay`` holds the figures.
Deliberately left out: wall-clock time, and output tokens (see ``cost``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compaction.core.events import CompactionEvent
from compaction.core.failures import SummaryFailed
from compaction.core.messages import tool_use_blocks
from compaction.evaluate.cost import Cost, Request, SharedCounter, Tokens, price
from compaction.evaluate.probes import ContextTexts, Probe, ProbeScore, score
from compaction.evaluate.recording import RecordingClient
from compaction.offline.scripted.state import last_marker
from compaction.pipeline.compactor import Compactor


@dataclass
class Replay:
    """One strategy over one session: outcome, tokens, cost, what left, and what it still knows."""

    strategy: str
    session: str
    window: int
    outcome: str  # "150 turns", "refused at turn 93", "over the window from turn 20"
    turns: int  # model calls of the agent that were answered
    peak: int  # largest agent request, tokens (system prompt and tools included)
    final: list[dict]  # the context at the end
    final_tokens: int
    full: list[dict]  # every message of the session as it happened: the uncompacted session
    full_tokens: int
    cost: Cost
    counts: dict[str, int] = field(default_factory=dict)  # layer -> times it fired
    events: list[CompactionEvent] = field(default_factory=list)
    saved: list[str] = field(default_factory=list)  # where what left went: transcripts, persisted outputs
    rereads: int | None = None  # files read again (live runs only; a recording cannot read again)
    progress: int | None = None  # the offline agent's last plan step
    score: ProbeScore | None = None  # over the probes the session reached (its own full text answers them)
    unreached: list[str] = field(default_factory=list)  # probes about work this run never got to
    lost: dict[str, tuple[int, str]] = field(default_factory=dict)  # probe id -> (turn, pass) that dropped it
    memory: dict[str, int] | None = None  # with memory: its calls, memory-only turns, tokens (notes.usage)
    requests: list[Request] = field(default_factory=list)  # what it sent, to price again (cost.Prices)

    @property
    def removed(self) -> float:
        """Share of the uncompacted session's tokens no longer in the final context."""
        return 1 - self.final_tokens / self.full_tokens if self.full_tokens else 0.0

    @property
    def summaries(self) -> int:
        """Summaries made: automatic, reactive and manual."""
        return sum(self.counts.get(k, 0) for k in ("summary", "reactive", "compact"))

    def left_by_layer(self) -> dict[str, int]:
        """Tokens each layer took out of the context over the session (its events' before - after)."""
        freed: dict[str, int] = {}
        for e in self.events:
            if e.tokens_before > e.tokens_after:
                freed[e.kind] = freed.get(e.kind, 0) + e.tokens_before - e.tokens_after
        return freed


def probe_reach(
    probes: Sequence[Probe],
    received: Sequence[dict],
    whole: Sequence[dict] | None,
    *,
    stopped: bool,
    texts: ContextTexts | None = None,
) -> tuple[set[str], list[str]]:
    """(probes the session holds, probes the run did not reach): one rule for every replay.

    A probe the complete session never answers is "not in the session" and is not scored. A probe
    the session holds but the run never received, because it stopped early (refused), is "not
    reached" and counts as lost. ``whole`` is the complete session, or None for a live run, whose
    complete session is unknown: then every probe counts as held when the run stopped early.
    ``texts`` keeps the messages' texts from one call to the next (the strategies of a session).
    """
    seen = set(score(probes, received, texts).answered) if probes else set()
    if whole is not None:
        held = set(score(probes, whole, texts).answered) if probes else set()
    else:
        held = {p.id for p in probes} if stopped else seen
    return held, [p.id for p in probes if p.id in held and p.id not in seen]


@dataclass(frozen=True)
class Ran:
    """What one run of a strategy did: what it sent, what its layers did, how it ended, its last context."""

    strategy: str
    requests: Sequence[Request]  # every request that reached the model, summary requests included
    counts: dict[str, int]  # layer -> times it fired
    events: list[CompactionEvent]
    outcome: str
    turns: int  # model calls of the agent that were answered
    final: list[dict]  # the context at the end


def finish(
    ran: Ran,
    *,
    label: str,
    window: int,
    full: list[dict],
    probes: Sequence[Probe],
    lost: dict[str, tuple[int, str]],
    workspace: Path,
    received: Sequence[dict] | None = None,
    live: bool = True,
    tokens: Tokens | None = None,
) -> Replay:
    """The figures of one replay, from what it sent, what it did and what it ended with."""
    tokens = tokens or Tokens()  # the replay's own cache, when it counted the messages already
    requests, outcome, final = ran.requests, ran.outcome, ran.final
    agent = [r for r in requests if not r.summary]
    peak = max((r.framing + sum(tokens(m) for m in r.messages) for r in agent), default=0)
    reads = [u for m in full for u in tool_use_blocks(m) if u.get("name") in ("read_file", "Read")]
    paths = [
        str((u.get("input") or {}).get("path") or (u.get("input") or {}).get("file_path")) for u in reads
    ]
    saved = sorted(
        p.relative_to(workspace).as_posix()
        for folder in (".transcripts", ".task_outputs")
        for p in (workspace / folder).rglob("*")
        if p.is_file()
    )
    stopped = outcome.startswith("refused")
    seen = full if received is None else received  # a live run's session is what it received
    held, unreached = probe_reach(probes, seen, None if live else full, stopped=stopped)
    marker = last_marker(full)
    return Replay(
        strategy=ran.strategy,
        session=label,
        window=window,
        outcome=outcome,
        turns=ran.turns,
        peak=peak,
        final=final,
        final_tokens=sum(tokens(m) for m in final),
        full=full,
        full_tokens=sum(tokens(m) for m in full),
        cost=sent_cost(requests, tokens),
        requests=list(requests),
        counts=ran.counts,
        events=ran.events,
        saved=saved,
        rereads=len(paths) - len(set(paths)) if live else None,
        progress=marker[0] if marker else None,
        score=score([p for p in probes if p.id in held], final) if probes else None,
        unreached=unreached,
        lost={k: v for k, v in lost.items() if k in held},
    )


def sent_cost(requests: Sequence[Request], tokens: Tokens) -> Cost:
    """What a run sent, priced: every request, summaries too, and the reference's over the window.

    The one count of tokens sent for ``replay`` and ``evaluate`` alike. ``none`` is the reference,
    the uncompacted session: its requests past the window are counted as well (the API would
    refuse them; ``over_the_window`` says so on its row), so every strategy compares with the
    whole session's cost. A strategy that cannot fit stops, so it sent nothing over the window.
    """
    return price(list(requests), tokens)


def over_the_window(turn: int) -> str:
    """The reference's outcome when its requests outgrow the window: from which turn the API refuses them."""
    return f"over the window from turn {turn}"


@dataclass(frozen=True)
class Sent:
    """One replayed request: its turn (from 1), the context, its tokens, and why the API refuses it."""

    turn: int
    context: list[dict]
    size: int
    refused: str = ""  # empty when the request is sent; else the reason, in words, sizes never negative
    received: int = 0  # messages of the session the context was built from


def first_message_too_big(session: Sequence[dict], window: int, counter: SharedCounter) -> str:
    """Why no strategy can send ``session`` in ``window`` (its first message alone is over it), or ''."""
    if not session:
        return ""
    first = counter.estimate(list(session[:1]))
    if first <= window:
        return ""
    return f"the first message alone is {first:,} tokens, over the window of {window:,} tokens"


def replayed_requests(
    session: Sequence[dict],
    compactor: Compactor,
    client: RecordingClient,
    *,
    name: str,
    window: int,
    counter: SharedCounter,
    on_start: Callable[[int], None] | None = None,
) -> Iterator[Sent]:
    """Each request of a recorded session as strategy ``name``'s ``compactor`` would send it; stops after a
    refused one.

    Before each recorded model call (``on_start(turn)`` first), what arrived since is appended to
    what the strategy left and the strategy prepares it again. A request over the window gets the
    strategy's reactive hook once; one still over, or one the strategy could not compact (its
    summary failed), is yielded as refused with the reason and ends the replay, except under
    ``none``, the reference, which goes on to show how far over it gets. A first message alone over
    the window is refused before turn 1. Each request not refused is recorded by ``client.record``
    and observed by the Compactor as if the API had counted it.
    """
    reactive, reference = compactor.hooks().on_prompt_too_long, name == "none"
    context: list[dict] = []
    too_big = first_message_too_big(session, window, counter) if not reference else ""
    if too_big:
        yield Sent(1, context, 0, refused=too_big)
        return
    for n, (start, end) in enumerate(turn_slices(session), 1):
        if on_start is not None:
            on_start(n)
        try:
            context = compactor.prepare(context + list(session[start:end]))
        except (SummaryFailed, ValueError) as exc:  # a strategy that cannot make the list smaller
            why = f"{name} failed: {_why(exc)}"
            yield Sent(n, context, counter.estimate(context), refused=why, received=start)
            return
        size = counter.estimate(context)
        over = f"the request is {size:,} tokens, over the window of {window:,}"
        if size > window and not reference and reactive is not None:
            try:
                context = reactive(
                    context, RuntimeError(f"prompt is too long: {size} tokens > {window} maximum")
                )
            except (SummaryFailed, ValueError) as exc:
                why = f"{over}, and reactive compaction failed: {_why(exc)}"
                yield Sent(n, context, size, refused=why, received=end)
                return
            size = counter.estimate(context)
            over = f"after reactive compaction the request is still {size:,} tokens, over {window:,}"
        if size > window and not reference:
            yield Sent(n, context, size, refused=over, received=end)
            return
        client.record(Request(tuple(context), 0, "replay"))  # what would have been sent
        compactor.observe(context, {"input_tokens": size})
        yield Sent(n, context, size, received=end)


def _why(exc: Exception) -> str:
    """A failure's reason without the exception's prefix or the transcript's path (a temporary file)."""
    return exc.reason if isinstance(exc, SummaryFailed) else str(exc)


def turn_slices(session: Sequence[dict]) -> list[tuple[int, int]]:
    """Slices of a session that end with a user message: what arrives before each model call."""
    bounds, start = [], 0
    for i, m in enumerate(session):
        if m.get("role") == "user":
            bounds.append((start, i + 1))
            start = i + 1
    return bounds


def keep_final(replay: Replay, folder: str | Path) -> Path:
    """Write a replay's final context as JSON in ``folder``; the file's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{replay.session}-{replay.strategy}".replace(" ", "_").replace("/", "_")
    path = folder / f"{name}.json"
    path.write_text(json.dumps(replay.final, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
