"""A session's timeline: tokens per turn, its phases as coloured bands, its signals as markers.

``session_map`` draws one figure from a message list alone: the context size after each turn
(tiktoken), a band per phase from ``compaction.levels.phases.detect_phases`` and a marker per signal from
``compaction.levels.signals.detect_signals``, so a reader sees where the work changed and where the
guide says to compact. Deliberately left out: the API's own token counts and the window line,
which ``compaction.views.plots.token_timeline`` draws from an agent run's turn records.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from compaction.core.messages import Message
from compaction.core.tokens import message_tokens
from compaction.levels.phases import Phase, detect_phases
from compaction.levels.signals import Signal, detect_signals
from compaction.presentation.palette import LINES, OTHER, PHASES, SIGNALS

PHASE_COLORS = PHASES  # phase kind -> band colour, from the course's one palette
SIGNAL_MARKERS = {  # signal kind -> (marker, colour)
    "long_session": ("D", SIGNALS["long_session"]),
    "repetition": ("X", SIGNALS["repetition"]),
    "already_discussed": ("P", SIGNALS["already_discussed"]),
    "phase_transition": ("v", SIGNALS["phase_transition"]),
    "large_output": ("s", SIGNALS["large_output"]),
}


def tokens_per_turn(messages: Sequence[Message]) -> list[int]:
    """The list's tokens (tiktoken) after each turn: up to each assistant message and its results."""
    running = list(accumulate(message_tokens(m, "tiktoken") for m in messages))
    ends = [
        i + 1 if i + 1 < len(messages) else i for i, m in enumerate(messages) if m.get("role") == "assistant"
    ]
    return [running[i] for i in ends]


def _turn_of(messages: Sequence[Message], index: int) -> float:
    return sum(m.get("role") == "assistant" for m in messages[:index]) - 0.5


def session_map(
    messages: Sequence[Message],
    *,
    phases: Sequence[Phase] | None = None,
    signals: Sequence[Signal] | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Plot tokens per turn with phase bands and signal markers (computed when not given)."""
    phases = detect_phases(messages) if phases is None else phases
    signals = detect_signals(messages) if signals is None else signals
    if ax is None:
        fig = Figure(figsize=(9, 3.8), layout="constrained")
        ax = fig.add_subplot()
    fig = ax.figure
    tokens = tokens_per_turn(messages)
    ax.plot(
        range(len(tokens)), tokens, marker="o", markersize=3, color=LINES["tokens"], label="tokens in context"
    )
    labelled = set()
    for phase in phases:
        left, right = _turn_of(messages, phase.start), _turn_of(messages, phase.end)
        first = phase.kind not in labelled
        labelled.add(phase.kind)
        color = PHASE_COLORS.get(phase.kind, OTHER)
        ax.axvspan(left, right, color=color, alpha=0.5, label=f"{phase.kind} phase" if first else None)
    top = max(tokens, default=1)
    for signal in signals:
        marker, color = SIGNAL_MARKERS.get(signal.kind, ("o", OTHER))
        first = signal.kind not in labelled
        labelled.add(signal.kind)
        y = tokens[min(signal.turn, len(tokens) - 1)] if tokens else 0
        ax.scatter([signal.turn], [y + 0.04 * top], marker=marker, color=color, s=60, zorder=3,
                   label=signal.kind.replace("_", " ") if first else None)  # fmt: skip
    ax.set_title("a session's phases and signals")
    ax.set_xlabel("turn")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("tokens (tiktoken cl100k)")
    ax.set_ylim(bottom=0, top=top * 1.15)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small", ncol=2)
    return fig
