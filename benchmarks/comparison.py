"""Table c: the strategies of ``compaction.evaluate`` on the same sessions, scored on probes.

Every strategy (none, masking 3 and 10, summary only, the default pipeline, hybrid, recent turns)
runs on the offline scenario at 40, 80 and 150 turns in an 8,000-token window, live, and replays
the recorded sessions of ../shared/data that need compaction. The probes, the prompt-cache pricing
and the replay engine are the package's (``python -m compaction evaluate`` prints the same table);
this section adds nothing of its own but the layout. ``--quick``: the 150-turn session and two
recorded ones.
"""

from __future__ import annotations

from compaction.evaluate import compare

from .tables import table

SHOWN = ("session", "strategy", "outcome", "peak", "final", "removed", "cost", "of none", "breaks",
         "summaries", "re-reads", "probes", "artif", "not reached")  # fmt: skip


def run_table(quick: bool = False) -> tuple[str, str]:
    """The strategy table and the default pipeline's line on the 150-turn offline session."""
    replays = compare.run(compare.default_sessions(quick))
    keep = [compare.COLUMNS.index(c) for c in SHOWN]
    rows = [[compare.row(r, replays)[i] for i in keep] for r in replays]
    title = (
        "c. strategies on the same sessions (offline: 8,000-token window; recorded: a third of the session, "
        "at least twice its first message); cost = prompt-cache priced input, base-input-token units"
    )
    return table(title, SHOWN, rows), compare.headline(replays)


def run(quick: bool = False) -> str:
    """Table c and, under it, the default pipeline's line."""
    text, line = run_table(quick)
    return f"{text}\n{line}"
