"""PipelineStepper: step through the passes of one prepare() call, each as a gauge and a diff.

``steps`` is a list of ``(pass_name, messages_after)`` as ``Compactor.steps`` returns it (a first
step named ``"input"`` is the list the first pass got; ``before=`` gives it otherwise). Each pass
shows a ``WindowGauge`` and a ``BeforeAfter`` of its input and output; a pass that changed nothing
says why (its trigger, when the ``compactor`` is given). The stepper opens on the first pass that
changed something. ``PipelineStepper.run(compactor, messages)`` runs one ``steps`` call and keeps its
events, so a dropped range names the transcript it went to. The saved notebook holds every pass.
Deliberately left out: running the layers itself (the Compactor does).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compaction.presentation.language import say
from compaction.presentation.palette import LINES, layer_color
from compaction.views.widgets.compare import BeforeAfter
from compaction.views.widgets.live import FLOW, bundle, html_widget, live_value
from compaction.views.widgets.measure import Meter
from compaction.views.widgets.reasons import why_idle


class PipelineStepper:
    """Step through the passes of one prepare() call: a gauge and a diff per pass."""

    def __init__(
        self,
        steps,
        *,
        before: Sequence[dict] | None = None,
        compactor: Any = None,
        events: Sequence[Any] | None = None,
        method: str | None = None,
        window: int | None = None,
        threshold: int | None = None,
        limit: int | None = None,  # kept for old calls: nothing is hidden behind a limit any more
    ):
        if not isinstance(steps, Sequence) or isinstance(steps, str) or not steps:
            raise ValueError("steps must be a non-empty list of (pass_name, messages_after) pairs")
        for k, step in enumerate(steps):
            if not (isinstance(step, Sequence) and len(step) == 2 and isinstance(step[0], str)):
                raise ValueError(f"steps[{k}] must be a (pass_name, messages_after) pair")
        self.steps = [(name, list(msgs)) for name, msgs in steps]
        if before is None and len(self.steps) > 1 and self.steps[0][0] == "input":
            before = self.steps.pop(0)[1]
        self.inputs = [list(before) if before is not None else self.steps[0][1]]
        self.inputs += [msgs for _, msgs in self.steps[:-1]]  # the list each pass started from
        self.compactor = compactor
        if events is None and compactor is not None:  # the events of the compactor's last call
            events = [e for e in compactor.events if e.turn == compactor.turn]
        self.events = list(events or ())
        counter = getattr(compactor, "counter", None)
        self.meter = Meter(method or getattr(counter, "method", "tiktoken"))
        self.window = window if window is not None else getattr(compactor, "context_window", None)
        self.threshold = threshold if threshold is not None else getattr(compactor, "threshold", None)
        self.changed = [a != b for a, (_, b) in zip(self.inputs, self.steps, strict=True)]
        self.tokens = [
            (self._estimate(a), self._estimate(b)) for a, (_, b) in zip(self.inputs, self.steps, strict=True)
        ]
        self.saved_to = self._transcripts()
        self.reasons = [self._reason(k) for k in range(len(self.steps))]
        self.position = (
            self.changed.index(True) if any(self.changed) else 0
        )  # the first pass that did something
        self._views: dict[int, BeforeAfter] = {}
        self._widget = None

    @classmethod
    def run(cls, compactor: Any, messages: list[dict], **options: Any) -> PipelineStepper:
        """Run ``compactor.passes(messages)`` once and step through it, with that call's events."""
        seen = len(compactor.events)
        steps = compactor.passes(messages)
        return cls(steps, compactor=compactor, events=compactor.events[seen:], **options)

    # ------------------------------------------------------------ per pass

    def _estimate(self, messages: list[dict]) -> int:
        """Tokens of a list: the pipeline's own estimate (what its triggers compare) when it is given."""
        if self.compactor is not None:
            return self.compactor.estimate(messages)
        return self.meter.total(messages)

    def _transcripts(self) -> list[str | None]:
        """For each pass, the transcript that holds what it dropped (the call's latest, if any)."""
        out, latest = [], None
        for name, _ in self.steps:
            for event in self.events:
                saved = str(getattr(event, "saved_to", "") or "")
                if getattr(event, "kind", None) == name and saved:
                    latest = f"{Path(saved).parent.name}/{Path(saved).name}"  # the folder and the file
            out.append(latest)
        return out

    def _reason(self, k: int) -> str:
        name, after = self.steps[k]
        if self.changed[k]:
            t0, t1 = self.tokens[k]
            return say(
                "{t0} -> {t1} tokens, {m0} -> {m1} messages",
                t0=f"{t0:,}",
                t1=f"{t1:,}",
                m0=len(self.inputs[k]),
                m1=len(after),
            )
        if self.compactor is None:
            return say("the list came out unchanged (give compactor= to see the trigger)")
        return why_idle(self.compactor, name, self.inputs[k], self.events)

    def label(self) -> str:
        """``pass k/n: name, tokens before -> after`` and what it did or why not, for the pass on display."""
        t0, t1 = self.tokens[self.position]
        name = self.steps[self.position][0]
        head = say(
            "pass {k}/{n}: {name}, tokens {t0} -> {t1}",
            k=self.position + 1,
            n=len(self.steps),
            name=name,
            t0=f"{t0:,}",
            t1=f"{t1:,}",
        )
        if self.changed[self.position]:
            return head
        return say("{head}; did nothing: {reason}", head=head, reason=self.reasons[self.position])

    def view(self, position: int | None = None) -> BeforeAfter:
        """A pass as a BeforeAfter of its input and its output (the pass on display by default)."""
        k = self.position if position is None else position
        if k not in self._views:
            name, after = self.steps[k]
            before = self.inputs[k]
            titles = (say("input") if k == 0 else self.steps[k - 1][0], name)
            overheads = [
                max(0, t - self.meter.total(m)) for t, m in zip(self.tokens[k], (before, after), strict=True)
            ]
            self._views[k] = BeforeAfter(
                before,
                after,
                titles=titles,
                window=self.window,
                threshold=self.threshold,
                saved_to=self.saved_to[k],
                overhead=overheads[1],
                overhead_before=overheads[0],
                meter=self.meter,
            )
        return self._views[k]

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

    # ------------------------------------------------------------ drawing

    def table_html(self, current: int | None = None) -> str:
        """Every pass in one table: its name in its layer's colour, tokens, and what it did or why not."""
        rows = []
        for k, ((name, _), (t0, t1)) in enumerate(zip(self.steps, self.tokens, strict=True)):
            weight = "font-weight:bold;" if k == current else ""
            did = say("changed") if self.changed[k] else say("did nothing")
            rows.append(
                f"<tr class='compaction-pass' style='{weight}'><td>{k + 1}</td>"
                f"<td style='color:{layer_color(name)};font-weight:bold'>{html.escape(name)}</td>"
                f"<td>{t0:,} -> {t1:,}</td><td>{did}</td><td style='text-align:left'>"
                f"{html.escape(self.reasons[k])}</td></tr>"
            )
        return (
            "<table class='compaction-passes' style='font:12px monospace'>"
            f"<tr><th>{say('pass')}</th><th>{say('layer')}</th>"
            f"<th>{say('tokens ({unit})', unit=html.escape(self.meter.unit))}</th><th></th>"
            f"<th>{say('what it did, or why not')}</th></tr>"
            f"{''.join(rows)}</table>"
        )

    def pass_html(self, k: int) -> str:
        """One pass: a changed one as its gauge and diff, an idle one as its reason."""
        if not self.changed[k]:
            style = f"font:12px monospace;color:{LINES['muted']}"
            return f"<div style='{style}'>{html.escape(self.reasons[k])}</div>"
        return self.view(k)._repr_html_()

    @property
    def widget(self):
        """The live form: prev/next buttons, the label, the passes table and the pass on display."""
        if self._widget is None:
            import ipywidgets as w  # optional: without it a view still has its static HTML

            self.prev_button, self.next_button = (
                w.Button(description=say("◀ prev")),
                w.Button(description=say("next ▶")),
            )
            self.prev_button.add_class("compaction-prev")
            self.next_button.add_class("compaction-next")
            self.prev_button.on_click(self.prev)
            self.next_button.on_click(self.next)
            self._label = html_widget("", "compaction-label-live")
            self._table = html_widget("", "compaction-passes-live")
            self._body = html_widget("", "compaction-pass-live")
            self._widget = w.VBox(
                [w.HBox([self.prev_button, self.next_button, self._label]), self._table, self._body]
            )
            self._widget.add_class("compaction-stepper")
            self._refresh()
        return self._widget

    def _refresh(self) -> None:
        self._label.value = live_value(f"<b>{html.escape(self.label())}</b>")
        self._table.value = live_value(self.table_html(self.position))
        self._body.value = live_value(self.pass_html(self.position))
        self.prev_button.disabled = self.position == 0
        self.next_button.disabled = self.position == len(self.steps) - 1

    def _repr_html_(self) -> str:
        passes = "".join(
            f"<details class='compaction-step'{' open' if k == self.position else ''}>"
            f"<summary style='font:12px monospace;cursor:pointer'>"
            f"<b>{say('pass {k}: {name}', k=k + 1, name=html.escape(name))}</b>"
            f"{'' if self.changed[k] else say(' (did nothing)')}</summary>{self.pass_html(k)}</details>"
            for k, (name, _) in enumerate(self.steps)
        )
        return (
            f"<div class='compaction-stepper' style='{FLOW}'><b>{html.escape(self.label())}</b>"
            f"{self.table_html(self.position)}{passes}</div>"
        )

    def __repr__(self) -> str:
        n = len(self.steps)
        if n == 1:
            return say("PipelineStepper({n} pass; {label})", n=n, label=self.label())
        return say("PipelineStepper({n} passes; {label})", n=n, label=self.label())

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)
