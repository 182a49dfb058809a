"""The token timeline: tokens per turn, the window as a line, and compaction events as ticks.

``token_timeline`` draws the estimated tokens of every request and, where the API answered, its
``usage`` input tokens; a horizontal line marks the context window; each event (an object or dict
with ``turn`` and ``layer``) is a vertical tick coloured by layer, one legend entry per layer. That
is how a long session's sawtooth shows. Deliberately left out: interactivity and styling options;
pass ``ax`` to place the plot in a figure of your own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

LAYER_COLORS = (
    "#d62728",
    "#9467bd",
    "#2ca02c",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
)  # not blue or orange


def _get(item: Any, name: str) -> Any:
    """A field of a record that is either an object or a dict."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def token_timeline(
    turns: Sequence[Any],
    *,
    window: int | None = None,
    events: Iterable[Any] = (),
    ax: Axes | None = None,
) -> Figure:
    """Plot tokens per turn (estimated and API input) with the window and compaction events."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
        plt.close(fig)  # shown once, as the returned value, not again by pyplot at the cell's end
    fig = ax.figure
    index = [_get(t, "index") for t in turns]
    if any(i is None for i in index):
        raise ValueError("every turn needs an 'index' (a TurnRecord or a dict with index)")
    estimated = [_get(t, "estimated_tokens") for t in turns]
    ax.plot(index, estimated, marker="o", markersize=3, color="#1f77b4", label="estimated (tiktoken)")
    api = [(i, _get(t, "input_tokens")) for i, t in zip(index, turns, strict=True)]
    api = [(i, n) for i, n in api if n is not None]  # turns the API answered
    if api:
        ax.plot(
            [i for i, _ in api],
            [n for _, n in api],
            marker="s",
            markersize=3,
            linestyle="--",
            color="#ff7f0e",
            label="API input tokens",
        )
    if window is not None:
        ax.axhline(window, color="black", linewidth=1.2, label=f"window ({window:,})")
    _draw_events(ax, events)
    ax.set_xlabel("turn")
    ax.set_ylabel("tokens")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")  # outside the data
    return fig


def _draw_events(ax: Axes, events: Iterable[Any]) -> None:
    """One dotted vertical line per event, a colour and one legend entry per layer."""
    colors: dict[str, str] = {}  # layer -> colour, in order of first appearance
    for event in events:
        turn, layer = _get(event, "turn"), _get(event, "layer")
        if turn is None or layer is None:
            raise ValueError(f"an event needs 'turn' and 'layer', got {event!r}")
        first = layer not in colors
        color = colors.setdefault(layer, LAYER_COLORS[len(colors) % len(LAYER_COLORS)])
        ax.axvline(turn, color=color, linestyle=":", linewidth=1.5, label=str(layer) if first else None)
