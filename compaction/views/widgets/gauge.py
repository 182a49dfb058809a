"""WindowGauge: what fills the context window, by kind, as one stacked bar against window and threshold.

The kinds are system and tools, user text, assistant text, tool calls, tool results, placeholders
and markers, and summary (``presentation.palette.KINDS``). Given ``before``, the gauge draws two bars
on one scale (the window, or the larger total when no window is given), so a list that shrank looks
shorter, and a table of each kind's tokens before -> after. It stands alone and sits inside
``BeforeAfter`` and ``PipelineStepper``. Deliberately left out: the output tokens a request reserves.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from compaction.presentation.language import say
from compaction.presentation.palette import KIND_LABELS, KINDS, LINES
from compaction.views.widgets.live import FLOW, bundle, html_widget
from compaction.views.widgets.measure import Meter

TRACK = f"position:relative;height:16px;background:{LINES['track']};max-width:760px;margin:2px 0"


def _segments(fill: dict[str, int], scale: int) -> str:
    return "".join(
        f"<span class='compaction-kind-{kind}' title='{say(KIND_LABELS[kind])}: {fill[kind]:,}' "
        f"style='display:inline-block;height:16px;width:{100 * fill[kind] / scale:.3f}%;"
        f"background:{color}'></span>"
        for kind, color in KINDS.items()
        if fill.get(kind)
    )


def _line(at: int, scale: int, color: str, name: str, dashed: bool) -> str:
    style = "dashed" if dashed else "solid"
    return (
        f"<span class='compaction-{name}-line' title='{name} {at:,}' style='position:absolute;top:-3px;"
        f"left:{100 * at / scale:.3f}%;height:22px;border-left:2px {style} {color}'></span>"
    )


class WindowGauge:
    """What fills the context window by kind, before and after, against the window and threshold."""

    def __init__(
        self,
        messages: Sequence[dict],
        *,
        before: Sequence[dict] | None = None,
        window: int | None = None,
        threshold: int | None = None,
        overhead: int = 0,
        overhead_before: int | None = None,
        method: str = "tiktoken",
        meter: Meter | None = None,
    ):
        self.meter = meter or Meter(method)
        self.window, self.threshold = window, threshold
        self.fill = self.meter.fill(messages, overhead)
        overhead_before = overhead if overhead_before is None else overhead_before
        self.fill_before = None if before is None else self.meter.fill(before, overhead_before)
        self.total = sum(self.fill.values())
        self.total_before = None if self.fill_before is None else sum(self.fill_before.values())
        # tokens of a full-width bar: the window, or the larger total (never each bar's own)
        self.scale = max(window or 0, threshold or 0, self.total, self.total_before or 0, 1)
        self._widget = None

    @classmethod
    def of(
        cls, compactor: Any, messages: Sequence[dict], *, before: Sequence[dict] | None = None
    ) -> WindowGauge:
        """A gauge in a Compactor's figures: its window, threshold, counter, and system and tools."""
        meter = Meter(compactor.counter.method)

        def overhead(msgs: Sequence[dict]) -> int:
            """What the pipeline counts beyond the messages: system prompt and tools."""
            return max(0, compactor.estimate(list(msgs)) - meter.total(msgs))

        return cls(
            messages,
            before=before,
            window=compactor.context_window,
            threshold=compactor.threshold,
            overhead=overhead(messages),
            overhead_before=None if before is None else overhead(before),
            meter=meter,
        )

    def summary(self) -> str:
        """One line: tokens before -> after, of the window, and the threshold."""
        room = say(" of {window}", window=f"{self.window:,}") if self.window else ""
        limit = say(", threshold {threshold}", threshold=f"{self.threshold:,}") if self.threshold else ""
        was = f"{self.total_before:,} -> " if self.total_before is not None else ""
        return say(
            "in context: {was}{total}{room} tokens ({unit}){limit}",
            was=was,
            total=f"{self.total:,}",
            room=room,
            unit=self.meter.unit,
            limit=limit,
        )

    def _bar(self, name: str, fill: dict[str, int], total: int) -> str:
        lines = ""
        if self.threshold:
            lines += _line(self.threshold, self.scale, LINES["threshold"], "threshold", True)
        if self.window:
            lines += _line(self.window, self.scale, LINES["window"], "window", False)
        pct = (
            say(" ({percent}% of the window)", percent=f"{100 * total / self.window:.0f}")
            if self.window
            else ""
        )
        return (
            f"<div style='font:12px monospace;display:flex;gap:8px;align-items:center'>"
            f"<span style='flex:none;width:4em'>{name}</span>"
            f"<div style='flex:1;{TRACK}'>{_segments(fill, self.scale)}{lines}</div>"
            f"<span style='flex:none;width:19em'>{total:,}{pct}</span></div>"
        )

    def legend_html(self) -> str:
        """The kinds present, with their colour and tokens (before -> after)."""
        cells = []
        for kind, color in KINDS.items():
            now, was = self.fill.get(kind, 0), (self.fill_before or {}).get(kind, 0)
            if not (now or was):
                continue
            figure = f"{was:,} → {now:,}" if self.fill_before is not None else f"{now:,}"
            cells.append(
                f"<span style='white-space:nowrap'><span style='display:inline-block;width:10px;height:10px;"
                f"background:{color}'></span> {say(KIND_LABELS[kind])} {figure}</span>"
            )
        marks = []
        if self.window:
            shown = say("window {tokens}", tokens=f"{self.window:,}")
            marks.append(f"<span style='color:{LINES['window']}'>│ {shown}</span>")
        if self.threshold:
            shown = say("threshold {tokens}", tokens=f"{self.threshold:,}")
            marks.append(f"<span style='color:{LINES['threshold']}'>┆ {shown}</span>")
        style = "font:11px monospace;display:flex;flex-wrap:wrap;gap:4px 14px"
        return f"<div style='{style}'>{''.join(cells + marks)}</div>"

    def _repr_html_(self) -> str:
        bars = ""
        if self.fill_before is not None:
            bars += self._bar(say("before"), self.fill_before, self.total_before)
        bars += self._bar(say("after") if self.fill_before is not None else "", self.fill, self.total)
        return (
            f"<div class='compaction-gauge' style='margin:4px 0;{FLOW}'><div style='font:12px monospace'>"
            f"{html.escape(self.summary())}</div>{bars}{self.legend_html()}</div>"
        )

    @property
    def widget(self):
        """The live form: the same HTML in an ipywidgets HTML widget."""
        if self._widget is None:
            self._widget = html_widget(self._repr_html_(), "compaction-gauge-live")
        return self._widget

    def __repr__(self) -> str:
        return f"WindowGauge({self.summary()})"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)
