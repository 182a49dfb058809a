"""The frontier plot: every strategy's cost against the share of probes its final context kept.

One point per replay of one session: x is the cost in base input tokens as a share of ``none``'s
(prompt caching priced, ``compaction.evaluate.cost``), y the share of probes kept. A strategy the
API refused is drawn hollow, because its context is what it held when the session ended early.
Each point has its own colour (the course palette) and marker, named in a legend beside the plot,
so strategies whose points crowd together stay readable. Up and to the left is better.
Deliberately left out: several sessions in one plot (one per call).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from compaction.evaluate.replay.turns import Replay
from compaction.presentation.palette import LAYERS

COLORS = [c for name, c in LAYERS.items() if name != "breaker"]  # the palette's layer colours, not black
MARKERS = "osD^vP*Xph"


def frontier_plot(replays: Sequence[Replay], *, title: str | None = None) -> Figure:
    """Cost (% of no compaction) against probes kept (%), one point per strategy, named in the legend."""
    none = next((r for r in replays if r.strategy == "none"), None)
    if none is None or not none.cost.units:
        raise ValueError("frontier_plot needs the 'none' replay of the session as the cost baseline")
    figure, ax = plt.subplots(figsize=(9, 4.2))
    points: dict[tuple[float, float], list[str]] = {}  # (x, y) -> strategies there, in order
    hollow: set[tuple[float, float]] = set()
    for r in replays:
        x = round(100 * r.cost.units / none.cost.units, 1)
        y = round(100 * (r.score.share if r.score else 1.0), 1)
        refused = r.outcome.startswith("refused")
        points.setdefault((x, y), []).append(r.strategy + (" (refused)" if refused else ""))
        if refused:
            hollow.add((x, y))
    for n, ((x, y), names) in enumerate(points.items()):
        color = COLORS[n % len(COLORS)]
        face = "none" if (x, y) in hollow else color
        label = f"{' = '.join(names)} ({x:g}%, {y:g}%)"
        marker = MARKERS[n % len(MARKERS)]
        ax.scatter([x], [y], s=60, marker=marker, facecolors=face, edgecolors=color, zorder=3, label=label)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small", frameon=False)
    ax.set_xlabel("cost with prompt caching, % of no compaction")
    ax.set_ylabel("probes kept, %")
    ax.set_ylim(0, 105)
    ax.set_xlim(0, max(110, max(100 * r.cost.units / none.cost.units for r in replays) + 25))
    ax.axvline(100, color="grey", linestyle=":", linewidth=1)
    ax.set_title(title or f"What each strategy keeps, and what it costs ({none.session})")
    ax.grid(alpha=0.3)
    figure.tight_layout()
    plt.close(figure)  # shown by the notebook's display, not twice
    return figure
