"""The frontier plot: every strategy's cost against the share of probes its final context kept.

One point per replay of one session: x is the cost in base input tokens as a share of ``none``'s
(prompt caching priced, ``compaction.evaluate.cost``), y the share of probes kept. A strategy the
API refused is drawn hollow, because its context is what it held when the session ended early.
Up and to the left is better. Deliberately left out: several sessions in one plot (one per call).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from compaction.evaluate.replay.turns import Replay


def frontier_plot(replays: Sequence[Replay], *, title: str | None = None) -> Figure:
    """Cost (% of no compaction) against probes kept (%), one labelled point per strategy."""
    none = next((r for r in replays if r.strategy == "none"), None)
    if none is None or not none.cost.units:
        raise ValueError("frontier_plot needs the 'none' replay of the session as the cost baseline")
    figure, ax = plt.subplots(figsize=(7, 4.2))
    points: dict[tuple[float, float], list[str]] = {}  # (x, y) -> strategies there, in order
    for r in replays:
        x = round(100 * r.cost.units / none.cost.units, 1)
        y = round(100 * (r.score.share if r.score else 1.0), 1)
        refused = r.outcome.startswith("refused")
        ax.scatter([x], [y], s=60, facecolors="none" if refused else "C0", edgecolors="C0", zorder=3)
        points.setdefault((x, y), []).append(r.strategy + (" (refused)" if refused else ""))
    placed: list[tuple[float, float]] = []
    for (x, y), names in sorted(points.items()):
        near = any(abs(x - px) < 25 and abs(y - py) < 6 for px, py in placed)  # a label already there
        ax.annotate(" = ".join(names), (x, y), textcoords="offset points", xytext=(6, -12 if near else 5),
                    fontsize="small")  # fmt: skip
        placed.append((x, y))
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
