"""PipelineStepper: step through the passes of one prepare() call, each beside the list before it.

``steps`` is a list of ``(pass_name, messages_after)``; ``before`` is the list the first pass got.
A first step named ``"input"`` (as ``Compactor.steps`` returns it) is taken as ``before``; with
neither, the first pass is shown against itself. Deliberately left out: running the passes;
the stepper only shows lists that were already computed.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from compaction.tokens import estimate_tokens
from compaction.widgets.compare import BeforeAfter
from compaction.widgets.listview import bundle


class PipelineStepper:
    """Step through the passes of one prepare() call: each pass's list beside the one before it."""

    def __init__(self, steps, *, before: Sequence[dict] | None = None, limit: int = 40, method="chars"):
        if not isinstance(steps, Sequence) or not steps:
            raise ValueError("steps must be a non-empty list of (pass_name, messages_after) pairs")
        for k, step in enumerate(steps):
            if not (isinstance(step, Sequence) and len(step) == 2 and isinstance(step[0], str)):
                raise ValueError(f"steps[{k}] must be a (pass_name, messages_after) pair")
        self.steps = [(name, list(msgs)) for name, msgs in steps]
        if before is None and len(self.steps) > 1 and self.steps[0][0] == "input":
            before = self.steps.pop(0)[1]
        self.inputs = [list(before) if before is not None else self.steps[0][1]]
        self.inputs += [msgs for _, msgs in self.steps[:-1]]  # the list each pass started from
        self.tokens = [
            (estimate_tokens(a, method), estimate_tokens(b, method))
            for a, (_, b) in zip(self.inputs, self.steps, strict=True)
        ]
        self.limit, self.method, self.position = limit, method, 0
        self._widget = None

    def label(self) -> str:
        """``pass k/n: name, tokens before -> after`` for the pass on display."""
        t0, t1 = self.tokens[self.position]
        name = self.steps[self.position][0]
        return f"pass {self.position + 1}/{len(self.steps)}: {name}, tokens {t0:,} -> {t1:,}"

    def view(self) -> BeforeAfter:
        """The pass on display as a BeforeAfter of its input and its output."""
        name, after = self.steps[self.position]
        titles = ("input" if self.position == 0 else self.steps[self.position - 1][0], name)
        return BeforeAfter(
            self.inputs[self.position], after, titles=titles, limit=self.limit, method=self.method
        )

    def go(self, position: int) -> None:
        """Show pass ``position`` (0-based), clamped to the passes there are."""
        self.position = max(0, min(len(self.steps) - 1, position))
        if self._widget is not None:
            self._refresh()

    def next(self, _button: Any = None) -> None:
        """Show the next pass."""
        self.go(self.position + 1)

    def prev(self, _button: Any = None) -> None:
        """Show the previous pass."""
        self.go(self.position - 1)

    @property
    def widget(self):
        """The live form: prev/next buttons, the label, and the pass's before/after."""
        if self._widget is None:
            import ipywidgets as w

            self.prev_button, self.next_button = (
                w.Button(description="◀ prev"),
                w.Button(description="next ▶"),
            )
            self.prev_button.add_class("compaction-prev")
            self.next_button.add_class("compaction-next")
            self.prev_button.on_click(self.prev)
            self.next_button.on_click(self.next)
            self._label, self._body = w.HTML(), w.Box()
            self._widget = w.VBox([w.HBox([self.prev_button, self.next_button, self._label]), self._body])
            self._widget.add_class("compaction-stepper")
            self._refresh()
        return self._widget

    def _refresh(self) -> None:
        self._label.value = f"<b>{html.escape(self.label())}</b>"
        self._body.children = [self.view().widget]
        self.prev_button.disabled = self.position == 0
        self.next_button.disabled = self.position == len(self.steps) - 1

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{k + 1}</td><td>{html.escape(name)}</td><td>{len(msgs)}</td>"
            f"<td>{t0:,} -> {t1:,}</td></tr>"
            for k, ((name, msgs), (t0, t1)) in enumerate(zip(self.steps, self.tokens, strict=True))
        )
        return (
            f"<div class='compaction-stepper'><table><tr><th>pass</th><th>name</th><th>messages</th>"
            f"<th>tokens</th></tr>{rows}</table><b>{html.escape(self.label())}</b>"
            f"{self.view()._repr_html_()}</div>"
        )

    def __repr__(self) -> str:
        n = len(self.steps)
        return f"PipelineStepper({n} pass{'es' if n != 1 else ''}; {self.label()})"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)
