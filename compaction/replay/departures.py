"""What left the context during a replay, and where on disk it went.

Every compaction event of a run becomes a row: the turn, the layer, the tokens it freed, and the
place that holds what left (the output store for a persisted result, the transcript written
before a snip, a clearing or a summary). Nothing leaves unsaved: that is the pipeline's rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compaction.replay.engine import StrategyRun

PLACE = {
    "budget": "outputs",
    "snip": "transcripts",
    "micro": "transcripts",
    "summary": "transcripts",
    "reactive": "transcripts",
    "compact": "transcripts",
}


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


def departures(run: StrategyRun) -> list[Departure]:
    """One row per event of the run that moved something out of the context, in order."""
    rows = []
    for event in run.events:
        if event.layer not in PLACE:
            continue
        where = run.workdir / PLACE[event.layer]
        if event.detail.startswith("transcript "):
            where = where / event.detail.removeprefix("transcript ")
        rows.append(Departure(event.turn, event.layer, event.tokens_before, event.tokens_after, str(where)))
    return rows


def on_disk(run: StrategyRun) -> list[Path]:
    """The files this run wrote (persisted outputs and transcripts), in path order."""
    return sorted(p for p in run.workdir.rglob("*") if p.is_file())
