"""BeforeAfter: one pass as a diff, every row under its original message number.

Unchanged runs fold into one line (a row of context stays next to each change), changed rows never
fold and show the placeholder's or marker's own words with their tokens before -> after, a dropped
range is one gap that says how many messages and tokens left and where they went (the transcript
or store given as ``saved_to``, or the transcript a summary names), and a message the pass wrote is
marked new. Above the rows, a ``WindowGauge`` of both lists on one scale; below, the legend. The
live widget shows the same HTML as the saved notebook. Deliberately left out: side-by-side columns.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from compaction.core.messages import tool_names
from compaction.presentation.language import say
from compaction.presentation.palette import CHANGES
from compaction.views.widgets.diff import Change, align
from compaction.views.widgets.gauge import WindowGauge
from compaction.views.widgets.legend import legend_html
from compaction.views.widgets.live import FLOW, bundle, html_widget
from compaction.views.widgets.marks import transcript_of
from compaction.views.widgets.measure import Meter
from compaction.views.widgets.rows import NOTE, fold_html, message_row, row_html


def describe_change(before: Sequence[dict], after: Sequence[dict], method: str = "tiktoken") -> str:
    """One line: messages kept, replaced, dropped and added, and the tokens saved."""
    meter = Meter(method)
    counts = dict.fromkeys(("same", "changed", "dropped", "added"), 0)
    for c in align(before, after):
        counts[c.kind] += len(c.after) if c.kind == "added" else len(c.before)
    return _line(counts, meter.total(before), meter.total(after))


def _line(counts: dict[str, int], t0: int, t1: int) -> str:
    saved = (
        say("saved {tokens}, {percent}%", tokens=f"{t0 - t1:,}", percent=f"{100 * (t0 - t1) / t0:.1f}")
        if t0
        else say("saved 0")
    )
    extra = say(", added {added}", added=counts["added"]) if counts["added"] else ""
    kept = say(
        "kept {same}, replaced {changed}, dropped {dropped}{extra} messages",
        same=counts["same"],
        changed=counts["changed"],
        dropped=counts["dropped"],
        extra=extra,
    )
    return say("{kept}; tokens {t0} -> {t1} ({saved})", kept=kept, t0=f"{t0:,}", t1=f"{t1:,}", saved=saved)


def _where(after: Sequence[dict]) -> str | None:
    """The transcript a summary in the new list names, if there is one."""
    for message in after:
        path = transcript_of(message) if isinstance(message, dict) else None
        if path is not None:
            return str(path)
    return None


class BeforeAfter:
    """One pass as a diff: kept, replaced, dropped and new messages under their original numbers."""

    def __init__(
        self,
        before: Sequence[dict],
        after: Sequence[dict],
        *,
        titles: tuple[str, str] | None = None,  # default: before, after (in the current language)
        method: str = "tiktoken",
        window: int | None = None,
        threshold: int | None = None,
        saved_to: str | Path | None = None,
        overhead: int = 0,
        overhead_before: int | None = None,
        context: int = 1,
        limit: int | None = None,  # kept for old calls: nothing is hidden behind a limit any more
        meter: Meter | None = None,
    ):
        for name, value in (("before", before), ("after", after)):
            if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
                raise TypeError(f"{name} must be a list of message dicts, not {type(value).__name__}")
        titles = titles or (say("before"), say("after"))
        self.before, self.after, self.titles, self.context = list(before), list(after), titles, context
        self.meter = meter or Meter(method)
        self.changes = align(self.before, self.after)
        self.saved_to = str(saved_to) if saved_to is not None else _where(self.after)
        self._names = {**tool_names(self.before), **tool_names(self.after)}  # tool_use_id -> tool name
        self.gauge = WindowGauge(
            self.after,
            before=self.before,
            window=window,
            threshold=threshold,
            overhead=overhead,
            overhead_before=overhead_before,
            meter=self.meter,
        )
        counts = dict.fromkeys(("same", "changed", "dropped", "added"), 0)
        for c in self.changes:
            counts[c.kind] += len(c.after) if c.kind == "added" else len(c.before)
        self.counts = counts  # kind -> messages
        self.change = _line(counts, self.meter.total(self.before), self.meter.total(self.after))
        # tokens of a full bar: the largest message of either list, one scale for the whole view
        self.scale = max((self.meter.tokens(m) for m in self.before + self.after), default=0)
        self._widget = None

    # ------------------------------------------------------------ pieces

    def gap_text(self, change: Change) -> str:
        """``✂ messages 3-44: 42 messages, 8,483 tokens, in transcript x.jsonl``."""
        first, last = change.before.start, change.before.stop - 1
        span = (
            say("message {first}", first=first)
            if first == last
            else say("messages {first}-{last}", first=first, last=last)
        )
        n = len(change.before)
        tokens = self.meter.total(self.before[first : last + 1])
        where = (
            say("in transcript {path}", path=self.saved_to)
            if self.saved_to
            else say(
                "no transcript named (saved_to=): a bare layer keeps nothing, the pipeline writes one first"
            )
        )
        return say(
            "✂ {span} dropped: {n} {messages}, {tokens} tokens, {where}",
            span=span,
            n=n,
            messages=say("messages") if n != 1 else say("message"),
            tokens=f"{tokens:,}",
            where=where,
        )

    def _row(self, i: int, j: int | None, mark: str = "") -> str:
        message = self.after[j] if j is not None else self.before[i]
        row = message_row(i if i is not None else j, message, self.meter, self._names)
        before = self.meter.tokens(self.before[i]) if mark == "changed" else None
        number = say("new") if mark == "added" else str(i)
        return row_html(row, self.scale, number=number, before=before, mark=mark)

    def _fold(self, pairs: list[tuple[int, int]]) -> str:
        first, last = pairs[0][0], pairs[-1][0]
        tokens = sum(self.meter.tokens(self.before[i]) for i, _ in pairs)
        label = say(
            "≡ messages {first}-{last} unchanged: {n} messages, {tokens} tokens",
            first=first,
            last=last,
            n=len(pairs),
            tokens=f"{tokens:,}",
        )
        return fold_html(label, pairs, lambda pair: self._row(*pair))

    def rows_html(self) -> str:
        """The diff: rows, folded runs, gaps and new messages, in list order."""
        out, last = [], len(self.changes) - 1
        for k, c in enumerate(self.changes):
            if c.kind == "same":
                pairs = list(zip(c.before, c.after, strict=True))
                lead = pairs[: self.context] if k > 0 else []
                trail = pairs[len(pairs) - self.context :] if k < last and self.context else []
                if len(pairs) <= len(lead) + len(trail) + 1:
                    out += [self._row(i, j) for i, j in pairs]
                    continue
                middle = pairs[len(lead) : len(pairs) - len(trail)]
                out += (
                    [self._row(i, j) for i, j in lead]
                    + [self._fold(middle)]
                    + [self._row(i, j) for i, j in trail]
                )
            elif c.kind == "changed":
                out.append(self._row(c.before.start, c.after.start, "changed"))
            elif c.kind == "dropped":
                out.append(
                    f"<div class='compaction-gap' style='{NOTE};background:{CHANGES['dropped']};"
                    f"font-weight:bold'>{html.escape(self.gap_text(c))}</div>"
                )
            else:
                out += [self._row(None, j, "added") for j in c.after]
        return "".join(out)

    def header(self) -> str:
        """``before -> after: kept ..., tokens ... (unit)``."""
        return say(
            "{before} -> {after}: {change} ({unit})",
            before=self.titles[0],
            after=self.titles[1],
            change=self.change,
            unit=self.meter.unit,
        )

    def _repr_html_(self) -> str:
        marks = tuple(m for m in ("changed", "dropped", "added") if self.counts[m]) + ("collapsed",)
        return (
            f"<div class='compaction-before-after' style='{FLOW}'><b>{html.escape(self.header())}</b>"
            f"{self.gauge._repr_html_()}{legend_html(marks, self.meter.unit)}"
            f"<div class='compaction-msglist'>{self.rows_html()}</div></div>"
        )

    @property
    def widget(self):
        """The live form: the same HTML as the saved notebook; rows open on a click."""
        if self._widget is None:
            self._widget = html_widget(self._repr_html_(), "compaction-before-after-live")
        return self._widget

    def __repr__(self) -> str:
        return f"BeforeAfter({self.change})"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)
