"""The strategies a session is replayed through, by name: each a ``prepare`` and its Compactor.

- ``none``: the list as recorded, so the window's overflow shows.
- ``masking``: old tool results replaced by placeholders (L2 micro only, on its trigger).
- ``summary``: no cheap layer, a summary when the estimate passes the threshold.
- ``pipeline``: the package's default, budget -> snip -> micro -> summary.
Summaries come from the client given (the offline summarizer unless the real API is asked for).
Deliberately left out: the recent-turns design, which rebuilds the list from its own history
and has no Compactor events to show.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from compaction.pipeline import Compactor
from compaction.store import OutputStore

STRATEGIES = ("none", "masking", "summary", "pipeline")
DEFAULT = STRATEGIES
ORDERS = {"masking": ("micro",), "summary": (), "pipeline": ("budget", "snip", "micro")}


def build(name: str, *, window: int, workdir: Path, client: Any) -> tuple[Callable, Compactor | None]:
    """``(prepare, compactor)`` for a strategy; outputs and transcripts go under ``workdir``."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; one of {', '.join(STRATEGIES)}")
    if name == "none":
        return (lambda messages: messages), None
    compactor = Compactor(
        store=OutputStore(workdir / "outputs"),
        client=client,
        transcript_dir=workdir / "transcripts",
        context_window=window,
        order=ORDERS[name],
        summarize=name != "masking",
    )
    return compactor.prepare, compactor
