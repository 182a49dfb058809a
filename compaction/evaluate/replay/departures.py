"""What left the context during a replay, and where on disk it is.

Every compaction of a run becomes a row: the turn, the layer, the tokens it freed, and the place
that holds what left: the output store (``.task_outputs``) for a persisted result, the transcript
the pipeline writes before a snip, a clearing or a summary (``.transcripts``), or the session file
itself when only its own recorded messages left (the pipeline writes no copy of those). Recent
turns keeps no copy of its own: what it drops is still in the recorded session file, and the row
says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compaction.evaluate.replay.engine import StrategyRun

PLACE = {
    "budget": ".task_outputs",
    "snip": ".transcripts",
    "micro": ".transcripts",
    "summary": ".transcripts",
    "reactive": ".transcripts",
    "compact": ".transcripts",
}
NOT_SAVED = "not saved by the strategy; still in the session file "


@dataclass(frozen=True)
class Departure:
    """One compaction: when, which layer, tokens before and after, and where the dropped part is."""

    turn: int
    layer: str
    tokens_before: int
    tokens_after: int
    where: str

    @property
    def freed(self) -> int:
        """Tokens the layer took out of the request."""
        return max(0, self.tokens_before - self.tokens_after)


def departures(run: StrategyRun, source: str | Path = "") -> list[Departure]:
    """One row per event of ``run`` that took tokens out of the context, in order."""
    rows = []
    for event in run.events:
        if event.tokens_after >= event.tokens_before:
            continue  # failures, the breaker, skipped passes: nothing left
        if event.kind != "budget" and event.saved_to:  # a transcript, or the recorded session file
            place = event.saved_to
        elif event.kind in PLACE:
            where = run.workdir / PLACE[event.kind]
            if event.detail.startswith("transcript "):
                where = where / event.detail.removeprefix("transcript ")
            place = str(where)
        else:
            place = NOT_SAVED + str(source)
        rows.append(Departure(event.turn, event.kind, event.tokens_before, event.tokens_after, place))
    return rows


def on_disk(run: StrategyRun) -> list[Path]:
    """The files this run wrote (persisted outputs and transcripts), in path order."""
    return sorted(p for p in run.workdir.rglob("*") if p.is_file())
