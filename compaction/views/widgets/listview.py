"""MessageListView: one message list as rows, with what fills the window above it.

Every row keeps its message number, shows a placeholder's or marker's own words in full, and opens
onto its content; the rows beyond ``limit`` wait behind a "show more" button, and in the saved
notebook behind a fold that opens on a click, so both hold every row. Deliberately left out:
comparing two lists (``BeforeAfter`` does) and any JavaScript of our own.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from compaction.core.messages import tool_names
from compaction.presentation.language import say
from compaction.presentation.palette import LINES
from compaction.views.widgets.gauge import WindowGauge
from compaction.views.widgets.legend import legend_html
from compaction.views.widgets.live import FLOW, bundle, html_widget, live_value
from compaction.views.widgets.measure import Meter
from compaction.views.widgets.rows import Row, fold_html, message_row, row_html


class MessageListView:
    """A message list as rows; rows beyond ``limit`` wait behind a "show more" button."""

    def __init__(
        self,
        messages: Sequence[dict],
        *,
        title: str | None = None,
        limit: int = 40,
        method: str = "tiktoken",
        window: int | None = None,
        threshold: int | None = None,
        scale: int | None = None,
    ):
        if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
            raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive int, not {limit!r}")
        self.messages = list(messages)
        self.meter = Meter(method)
        names = tool_names(self.messages)
        self.rows = [message_row(i, m, self.meter, names) for i, m in enumerate(self.messages)]
        self.title, self.limit, self.method = title, limit, method
        self.total = sum(r.tokens for r in self.rows)
        self.shown = min(limit, len(self.rows))  # rows on display
        self.gauge = WindowGauge(self.messages, window=window, threshold=threshold, meter=self.meter)
        # tokens of a full-width bar: the biggest message, unless a shared scale is given
        self.scale = scale if scale is not None else max((r.tokens for r in self.rows), default=0)
        self._widget = None

    def header(self) -> str:
        """The heading line: title, messages and tokens with their unit."""
        head = f"{self.title}: " if self.title else ""
        counts = say(
            "{messages} messages, {tokens} tokens ({unit})",
            messages=len(self.rows),
            tokens=f"{self.total:,}",
            unit=self.meter.unit,
        )
        return head + counts

    def _row(self, row: Row) -> str:
        return row_html(row, self.scale, mark="changed" if row.placeholder else "")

    def _rows(self, rows) -> str:
        return "".join(self._row(r) for r in rows)

    def _more(self) -> str:
        hidden, first, last = len(self.rows) - self.shown, self.shown, len(self.rows) - 1
        return say("… {hidden} more messages ({first}-{last})", hidden=hidden, first=first, last=last)

    def rows_html(self) -> str:
        """The HTML of the rows on display, with a note on how many are still hidden."""
        body = self._rows(self.rows[: self.shown])
        if len(self.rows) > self.shown:
            body += f"<div style='font:12px monospace;color:{LINES['muted']}'>{self._more()}</div>"
        return body

    def static_rows_html(self) -> str:
        """The saved notebook's rows: those on display, the rest folded (a click opens them)."""
        if len(self.rows) <= self.shown:
            return self.rows_html()
        return self._rows(self.rows[: self.shown]) + fold_html(
            self._more(), self.rows[self.shown :], self._row
        )

    def show_more(self, _button: Any = None) -> None:
        """Reveal the next ``limit`` rows."""
        self.shown = min(len(self.rows), self.shown + self.limit)
        if self._widget is not None:
            self._refresh()

    def _top(self) -> str:
        marks = ("placeholder",) if any(r.placeholder for r in self.rows) else ()
        legend = legend_html(marks, self.meter.unit)
        return f"<b>{html.escape(self.header())}</b>{self.gauge._repr_html_()}{legend}"

    @property
    def widget(self):
        """The live ipywidgets form (a VBox of the header, the rows and the button)."""
        if self._widget is None:
            import ipywidgets as w  # optional: without it a view still has its static HTML

            self._rows_box = html_widget("", "compaction-rows-live")
            self.button = w.Button(description=say("show more"), layout=w.Layout(width="auto"))
            self.button.add_class("compaction-show-more")
            self.button.on_click(self.show_more)
            self._widget = w.VBox(
                [html_widget(self._top(), "compaction-top-live"), self._rows_box, self.button]
            )
            self._widget.add_class("compaction-msglist")
            self._refresh()
        return self._widget

    def _refresh(self) -> None:
        self._rows_box.value = live_value(self.rows_html())
        hidden = len(self.rows) - self.shown
        self.button.description = say(
            "show more ({next} of {hidden})", next=min(hidden, self.limit), hidden=hidden
        )
        self.button.layout.display = "" if hidden else "none"

    def _repr_html_(self) -> str:
        return f"<div class='compaction-msglist' style='{FLOW}'>{self._top()}{self.static_rows_html()}</div>"

    def __repr__(self) -> str:
        return say("MessageListView({header}, showing {shown})", header=self.header(), shown=self.shown)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)
