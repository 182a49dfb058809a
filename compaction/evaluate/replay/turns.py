"""The replay engine: one strategy over one session, turn by turn, with everything measured.

Two sources of turns. ``replay_offline`` runs the scripted offline agent live, so what a strategy
removes changes what the agent does next (a file cleared from its context is read again).
``replay_messages`` replays a recorded session (any strict-form message list): before each model
call the messages that arrived since are appended to what the strategy left, and the strategy
prepares the list again; a request over the window is refused as the API would, and the strategy's
reactive hook, if it has one, gets one chance to recover.

Every request that reaches the model (summary requests included) is recorded and priced
(``compaction.evaluate.cost``). Each pass of each preparation is scored against the probes, so a
probe that leaves the context is charged to the pass that removed it (the last such pass, when
the agent brought the fact back in between). ``Replay`` holds the figures.
Deliberately left out: wall-clock time, and output tokens (see ``cost``).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW, new_workspace, run_agent
from compaction.core.events import CompactionEvent
from compaction.core.messages import tool_use_blocks
from compaction.evaluate.cost import Cost, Request, SharedCounter, Tokens, price
from compaction.evaluate.probes import Probe, ProbeScore, score
from compaction.evaluate.recording import ProbeWatch, Recorder, RecordingClient
from compaction.evaluate.strategies import Keeper, Passes, build
from compaction.offline.state import last_marker


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
                freed[e.layer] = freed.get(e.layer, 0) + e.tokens_before - e.tokens_after
        return freed


def _finish(
    keeper: Keeper,
    client: RecordingClient,
    *,
    label: str,
    window: int,
    outcome: str,
    turns: int,
    final: list[dict],
    full: list[dict],
    probes: Sequence[Probe],
    watch: ProbeWatch,
    workspace: Path,
    live: bool = True,
    tokens: Tokens | None = None,
) -> Replay:
    tokens = tokens or Tokens()  # the replay's own cache, when it counted the messages already
    agent = [r for r in client.requests if not r.summary]
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
    reached = set(score(probes, full).answered) if probes else set()
    marker = last_marker(full)
    return Replay(
        strategy=keeper.name,
        session=label,
        window=window,
        outcome=outcome,
        turns=turns,
        peak=peak,
        final=final,
        final_tokens=sum(tokens(m) for m in final),
        full=full,
        full_tokens=sum(tokens(m) for m in full),
        cost=price(client.requests, tokens),
        counts=keeper.counts(),
        events=keeper.events,
        saved=saved,
        rereads=len(paths) - len(set(paths)) if live else None,
        progress=marker[0] if marker else None,
        score=score([p for p in probes if p.id in reached], final) if probes else None,
        unreached=[p.id for p in probes if p.id not in reached],
        lost={k: v for k, v in watch.lost.items() if k in reached},
    )


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
    with tempfile.TemporaryDirectory(prefix="compaction-eval-") as tmp:
        workspace = new_workspace(Path(tmp) / "workspace")
        server_window = SAMPLE_WINDOW if strategy == "none" else window
        client = RecordingClient(connect("offline", context_window=server_window, seed=seed))
        keeper = build(
            strategy, window=window, client=client, folder=tmp, workspace=workspace, settings=settings
        )
        recorder, watch = Recorder(), ProbeWatch(probes)

        def watched(kind: str, passes: Passes) -> None:
            recorder.see(passes[0][1], passes[-1][1])
            watch(kind, passes)

        def counted(record: Any) -> None:
            watch.turn = record.index + 1
            if on_turn is not None:
                on_turn(record)

        keeper.on_passes = watched
        result = run_agent(client, workspace=workspace, max_turns=turns, on_turn=counted, **keeper.hooks())
        recorder.see(result.messages)
        answered = [t for t in result.turns if t.input_tokens is not None]
        if result.error is not None:
            outcome = f"refused at turn {len(result.turns)}"
        elif strategy == "none":
            over = next((t.index + 1 for t in answered if t.input_tokens > window), None)
            outcome = f"over the window from turn {over}" if over else f"{len(answered)} turns"
        else:
            outcome = f"{len(answered)} turns"
        return _finish(
            keeper,
            client,
            label=label,
            window=window,
            outcome=outcome,
            turns=len(answered),
            final=result.messages,
            full=recorder.session,
            probes=probes,
            watch=watch,
            workspace=workspace,
        )


@dataclass(frozen=True)
class Sent:
    """One replayed request: its turn (from 1), the context, its tokens, and whether the API refuses it."""

    turn: int
    context: list[dict]
    size: int
    refused: bool = False


def replayed_requests(
    session: Sequence[dict],
    keeper: Keeper,
    client: RecordingClient,
    *,
    window: int,
    counter: SharedCounter,
    on_start: Callable[[int], None] | None = None,
) -> Iterator[Sent]:
    """Each request of a recorded session as ``keeper`` would send it; stops after a refused one.

    Before each recorded model call (``on_start(turn)`` first), what arrived since is appended to
    what the strategy left and the strategy prepares it again. A request over the window gets the
    strategy's reactive hook once; one still over is yielded as refused and ends the replay, except
    under ``none``, which goes on to show how far over it gets. Each request not refused is recorded
    in ``client.requests`` and observed by the Compactor as if the API had counted it.
    """
    reactive = keeper.hooks().get("on_prompt_too_long")
    context: list[dict] = []
    for n, (start, end) in enumerate(turn_slices(session), 1):
        if on_start is not None:
            on_start(n)
        context = keeper.prepare(context + list(session[start:end]))
        size = counter.estimate(context)
        if size > window and keeper.name != "none" and reactive is not None:
            context = reactive(context, RuntimeError(f"prompt is too long: {size} tokens > {window} maximum"))
            size = counter.estimate(context)
        if size > window and keeper.name != "none":
            yield Sent(n, context, size, refused=True)
            return
        client.requests.append(Request(tuple(context), 0, "replay"))  # what would have been sent
        if keeper.compactor is not None:
            keeper.compactor.observe(context, {"input_tokens": size})
        yield Sent(n, context, size)


def turn_slices(session: Sequence[dict]) -> list[tuple[int, int]]:
    """Slices of a session that end with a user message: what arrives before each model call."""
    bounds, start = [], 0
    for i, m in enumerate(session):
        if m.get("role") == "user":
            bounds.append((start, i + 1))
            start = i + 1
    return bounds


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
    """Replay a recorded session under ``strategy`` in a ``window``; measure it all."""
    session = list(session)
    with tempfile.TemporaryDirectory(prefix="compaction-eval-") as tmp:
        client = RecordingClient(connect("offline", context_window=SAMPLE_WINDOW))
        keeper = build(strategy, window=window, client=client, folder=tmp, settings=settings)
        watch = ProbeWatch(probes)
        keeper.on_passes = watch
        tokens = Tokens()
        context: list[dict] = []
        outcome, over, answered = "", None, 0

        def charge_to(turn: int) -> None:  # the turn a lost probe is charged to
            watch.turn = turn

        counter = SharedCounter(tokens)
        for sent in replayed_requests(
            session, keeper, client, window=window, counter=counter, on_start=charge_to
        ):
            context = sent.context
            if sent.refused:
                outcome = f"refused at turn {sent.turn}"
                break
            over = over or (sent.turn if sent.size > window else None)
            answered = sent.turn
            if on_turn is not None:
                on_turn(sent.turn)
        if not outcome:
            outcome = f"over the window from turn {over}" if over else f"{answered} turns"
            slices = turn_slices(session)
            context = context + session[slices[-1][1] if slices else 0 :]  # the last answer, as it came
        return _finish(
            keeper,
            client,
            label=label,
            window=window,
            outcome=outcome,
            turns=answered,
            final=context,
            full=session,
            probes=probes,
            watch=watch,
            workspace=Path(tmp),
            live=False,
            tokens=tokens,
        )


def keep_final(replay: Replay, folder: str | Path) -> Path:
    """Write a replay's final context as JSON in ``folder``; the file's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{replay.session}-{replay.strategy}".replace(" ", "_").replace("/", "_")
    path = folder / f"{name}.json"
    path.write_text(json.dumps(replay.final, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
