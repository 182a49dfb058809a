"""The token timeline: tokens per turn against the window and the threshold, with compaction events.

``token_timeline`` draws the estimated tokens of every request and, where the API answered, its
``usage`` input tokens; at a turn where compaction acted, the pipeline's estimate of the list before
it (the largest ``tokens_before`` of that turn's events) as a hollow marker joined to the point drawn
after it, so a summary's line meets the estimate that crossed the threshold, not the smaller list it
left; the context window and the summary threshold as horizontal lines; and each event (an object or
dict with ``turn`` and ``kind``) in its layer's colour from ``compaction.presentation.palette``.
Events that would bury each other are grouped: the cheap layers and the signals as ticks in a row of
their own along the turn axis, summaries (and reactive, manual compacts, checkpoints) as vertical
lines, failures as crosses on those rows; the rows of ticks sit in a band below zero, where no data
is. The turn axis shows whole turns only, and the plot always has a title. Deliberately left out:
interactivity and styling options; pass ``ax`` to place the plot in a figure of your own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from compaction.layers.triggers import summary_threshold
from compaction.presentation.palette import LINES, layer_color

LINE_LAYERS = ("summary", "reactive", "compact", "breaker", "phase_summary", "checkpoint")  # full-height
TICK_ROW = 0.035  # height of one row of ticks, as a fraction of the axes
UNIT = "tiktoken cl100k"


def _get(item: Any, name: str) -> Any:
    """A field of a record that is either an object or a dict."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def token_timeline(
    turns: Sequence[Any],
    *,
    window: int | None = None,
    threshold: int | None = None,
    events: Iterable[Any] = (),
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Plot tokens per turn (estimated and API input) with the window, threshold and events.

    ``threshold`` defaults to the Compactor's summary threshold for ``window``; 0 draws none.
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
        plt.close(fig)  # shown once, as the returned value, not again by pyplot at the cell's end
    fig = ax.figure
    index = [_get(t, "index") for t in turns]
    if any(i is None for i in index):
        raise ValueError("every turn needs an 'index' (a TurnRecord or a dict with index)")
    estimated = [_get(t, "estimated_tokens") for t in turns]
    ax.plot(index, estimated, marker="o", markersize=3, color=LINES["estimated"], label=f"estimated ({UNIT})")
    api = [(i, _get(t, "input_tokens")) for i, t in zip(index, turns, strict=True)]
    api = [(i, n) for i, n in api if n is not None]  # turns the API answered
    if api:
        ax.plot(
            [i for i, _ in api],
            [n for _, n in api],
            marker="s",
            markersize=3,
            linestyle="--",
            color=LINES["api"],
            label="API input tokens",
        )
    events = list(events)
    before = before_compaction(events)
    drops = [
        (i, before[i], n)
        for i, n in zip(index, estimated, strict=True)
        if n is not None and before.get(i, 0) > n
    ]
    if drops:
        ax.vlines(
            [i for i, _, _ in drops],
            [n for _, _, n in drops],
            [b for _, b, _ in drops],
            colors=LINES["estimated"],
            linestyles=":",
            linewidth=1,
        )
        ax.plot(
            [i for i, _, _ in drops],
            [b for _, b, _ in drops],
            linestyle="none",
            marker="o",
            markersize=4,
            markerfacecolor="none",
            color=LINES["estimated"],
            label="estimate before compaction",
        )
    top = max([n for n in estimated if n is not None] + [n for _, n in api] + [b for _, b, _ in drops] + [1])
    if window is not None:
        ax.axhline(window, color=LINES["window"], linewidth=1.2, label=f"window ({window:,})")
        threshold = summary_threshold(window) if threshold is None else threshold
        top = max(top, window)
    if threshold:
        ax.axhline(
            threshold,
            color=LINES["threshold"],
            linestyle="--",
            linewidth=1,
            label=f"threshold ({threshold:,})",
        )
        top = max(top, threshold)
    rows = draw_events(ax, events)
    ax.set_title(title or "tokens per turn")
    ax.set_xlabel("turn")
    ax.set_ylabel(f"tokens ({UNIT})")
    band = TICK_ROW * rows  # the ticks get a band of their own below zero, under no data
    ax.set_ylim(bottom=-band * top * 1.08 / (1 - band), top=top * 1.08)
    if rows:
        ax.axhline(0, color=LINES["muted"], linewidth=0.8)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}" if y >= 0 else ""))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")  # outside the data
    return fig


def before_compaction(events: Iterable[Any]) -> dict[int, int]:
    """turn -> the pipeline's estimate before compaction acted in that turn (its events' largest
    ``tokens_before``); turns whose events carry no figure are left out."""
    before: dict[int, int] = {}
    for event in events:
        turn, tokens = _get(event, "turn"), _get(event, "tokens_before")
        if isinstance(turn, int) and isinstance(tokens, int) and tokens > 0:
            before[turn] = max(before.get(turn, 0), tokens)
    return before


def draw_events(ax: Axes, events: Iterable[Any]) -> int:
    """Summaries as vertical lines; other layers as ticks, one row per layer; the rows of ticks drawn."""
    lines: dict[str, list] = {}  # layer -> turns, drawn as full-height lines
    ticks: dict[str, list] = {}  # layer -> turns, drawn as ticks along the turn axis
    for event in events:
        turn, layer = _get(event, "turn"), _get(event, "kind")
        if turn is None or layer is None:
            raise ValueError(f"an event needs 'turn' and 'kind', got {event!r}")
        (lines if str(layer) in LINE_LAYERS else ticks).setdefault(str(layer), []).append(turn)
    for layer, turns in lines.items():
        for k, turn in enumerate(turns):
            ax.axvline(
                turn, color=layer_color(layer), linewidth=1.6, alpha=0.8, label=layer if k == 0 else None
            )
    axis = ax.get_xaxis_transform()  # x in turns, y as a fraction of the axes' height
    for row, (layer, turns) in enumerate(ticks.items()):
        failed = layer.endswith(("_failed", "_skipped"))
        ax.plot(
            turns,
            [TICK_ROW * (row + 0.6)] * len(turns),
            linestyle="none",
            marker="x" if failed else "|",
            markersize=6 if failed else 8,
            markeredgewidth=1.6,
            color=layer_color(layer),
            transform=axis,
            clip_on=False,
            label=f"{layer} ({len(turns)})",
        )
    return len(ticks)
