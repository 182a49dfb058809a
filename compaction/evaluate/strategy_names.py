"""The names of the strategies, apart from how each is built, for the command line's options and help.

``COMPARED``: chapter 13's comparison (``python -m compaction evaluate``); ``WITH_MEMORY``: strategies
with the memory tool offered to the agent (live offline runs only); ``STRATEGIES``: all of those and
the API's own (``server summarize``); ``ON_REQUEST``: strategies a caller names with ``--strategy``,
never run by default; ``split`` tells a strategy with memory from its base; ``REPLAYED``: what
``compaction replay`` runs when no ``--strategy`` is given.
Each name's strategy is built, and described, in ``compaction.evaluate.strategies``. Deliberately left
out: anything that would load the layers (the options list the names before a command runs).
"""

from __future__ import annotations

# live offline runs only (evaluate.notes): clearing, the notes in place of the ledger, and both
WITH_MEMORY = ("masking 10 + memory", "pipeline, no ledger + memory", "pipeline + memory")
COMPARED = (
    "none", "masking 3", "masking 10", "masking 10 + used", "summary only", "pipeline", "pipeline, no ledger",
    "pipeline + used", "hybrid", "recent turns",
)  # fmt: skip  # chapter 13's comparison: the ways to compact
ON_REQUEST = ("pipeline, cache-blind",)  # named with --strategy, not in the default comparison
# what `evaluate` runs: the comparison, the agent's own notes (chapter 18) and the API's own summary
STRATEGIES = COMPARED + WITH_MEMORY + ("server summarize",)
REPLAYED = ("none", "masking 10", "summary only", "pipeline")  # compaction replay's, by default
MEMORY_SUFFIX = " + memory"  # a strategy with the memory tool offered: "pipeline + memory"


def split(strategy: str) -> tuple[str, bool]:
    """(the strategy without memory, whether memory is on): ``pipeline + memory`` -> (``pipeline``, True)."""
    if strategy.endswith(MEMORY_SUFFIX):
        return strategy[: -len(MEMORY_SUFFIX)], True
    return strategy, False
