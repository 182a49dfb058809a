"""MessageListView: a message list as rows, the rows beyond a limit behind a "show more" button.

The view is a plain object that owns an ipywidgets tree, built on first display, and also renders
a static HTML form, so a saved notebook still shows its rows on GitHub and nbval can compare them;
its text form is one deterministic line. Deliberately left out: any JavaScript of our own.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from compaction.tokens import estimate_tokens
from compaction.widgets.rows import message_rows, row_html


class MessageListView:
    """A message list as rows; rows beyond ``limit`` wait behind a "show more" button."""

    def __init__(
        self,
        messages: Sequence[dict],
        *,
        title: str | None = None,
        limit: int = 40,
        method: str = "chars",
        scale: int | None = None,
    ):
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive int, not {limit!r}")
        self.rows = message_rows(messages, method)
        self.title, self.limit, self.method = title, limit, method
        self.total = estimate_tokens(messages, method)
        self.shown = min(limit, len(self.rows))  # rows on display
        # tokens of a full-width bar: the biggest message, unless a shared scale is given
        self.scale = scale if scale is not None else max((r.tokens for r in self.rows), default=0)
        self._widget = None

    def header(self) -> str:
        """The heading line: title, messages and tokens."""
        head = f"{self.title}: " if self.title else ""
        return f"{head}{len(self.rows)} messages, {self.total:,} tokens ({self.method})"

    def rows_html(self) -> str:
        """The HTML of the rows on display, with a note on how many are still hidden."""
        body = "".join(row_html(r, self.scale) for r in self.rows[: self.shown])
        hidden = len(self.rows) - self.shown
        if hidden:
            body += f"<div style='font:12px monospace;color:#57606a'>… {hidden} more messages</div>"
        return body

    def show_more(self, _button: Any = None) -> None:
        """Reveal the next ``limit`` rows."""
        self.shown = min(len(self.rows), self.shown + self.limit)
        if self._widget is not None:
            self._refresh()

    @property
    def widget(self):
        """The live ipywidgets form (a VBox of the header, the rows and the button)."""
        if self._widget is None:
            import ipywidgets as w

            self._rows_box = w.HTML()
            self.button = w.Button(description="show more", layout=w.Layout(width="auto"))
            self.button.add_class("compaction-show-more")
            self.button.on_click(self.show_more)
            self._widget = w.VBox(
                [w.HTML(f"<b>{html.escape(self.header())}</b>"), self._rows_box, self.button]
            )
            self._widget.add_class("compaction-msglist")
            self._refresh()
        return self._widget

    def _refresh(self) -> None:
        self._rows_box.value = self.rows_html()
        hidden = len(self.rows) - self.shown
        self.button.description = f"show more ({min(hidden, self.limit)} of {hidden})"
        self.button.layout.display = "" if hidden else "none"

    def _repr_html_(self) -> str:
        return f"<div class='compaction-msglist'><b>{html.escape(self.header())}</b>{self.rows_html()}</div>"

    def __repr__(self) -> str:
        return f"MessageListView({self.header()}, showing {self.shown})"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)


def bundle(view: Any) -> dict:
    """text/plain, the static HTML, and the live widget for a front end that has a kernel."""
    widget = view.widget
    return {
        "text/plain": repr(view),
        "text/html": view._repr_html_(),
        "application/vnd.jupyter.widget-view+json": {
            "version_major": 2,
            "version_minor": 0,
            "model_id": widget.model_id,
        },
    }
