"""BeforeAfter: two message lists side by side, with token totals and a line saying what changed.

Messages are matched by their JSON: an ``after`` message equal to a ``before`` one is kept, the
others are counted as replacements (as many as went missing) and the rest as added. Deliberately
left out: a message-by-message diff; the rows show the details.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence

from compaction.messages import to_json
from compaction.tokens import estimate_tokens
from compaction.widgets.listview import MessageListView, bundle


def describe_change(before: Sequence[dict], after: Sequence[dict], method: str = "chars") -> str:
    """One line: messages kept, replaced, dropped and added, and the tokens saved."""
    pool = Counter(to_json(m) for m in before)  # message JSON -> copies not yet matched
    kept = 0
    for m in after:
        if pool[to_json(m)] > 0:
            pool[to_json(m)] -= 1
            kept += 1
    new = len(after) - kept
    replaced = min(new, len(before) - kept)
    dropped, added = len(before) - kept - replaced, new - replaced
    t0, t1 = estimate_tokens(before, method), estimate_tokens(after, method)
    saved = f"saved {t0 - t1:,}, {100 * (t0 - t1) / t0:.1f}%" if t0 else "saved 0"
    extra = f", added {added}" if added else ""
    counts = f"kept {kept}, replaced {replaced}, dropped {dropped}{extra} messages"
    return f"{counts}; tokens {t0:,} -> {t1:,} ({saved})"


class BeforeAfter:
    """Two message lists side by side, with their token totals and what changed between them."""

    def __init__(self, before, after, *, titles=("before", "after"), limit: int = 40, method="chars"):
        self.before = MessageListView(before, title=titles[0], limit=limit, method=method)
        self.after = MessageListView(after, title=titles[1], limit=limit, method=method)
        self.before.scale = self.after.scale = max(self.before.scale, self.after.scale)  # comparable bars
        self.change = describe_change(before, after, method)
        self._widget = None

    @property
    def widget(self):
        """The live form: the change line above the two lists."""
        if self._widget is None:
            import ipywidgets as w

            line = w.HTML(f"<b>{html.escape(self.change)}</b>")
            for side in (self.before.widget, self.after.widget):
                side.layout.width, side.layout.overflow = "50%", "hidden"
            self._widget = w.VBox([line, w.HBox([self.before.widget, self.after.widget])])
        return self._widget

    def _repr_html_(self) -> str:
        cell = "<div style='flex:1;min-width:0;overflow:hidden'>{}</div>"
        return (
            f"<div class='compaction-before-after'><b>{html.escape(self.change)}</b>"
            f"<div style='display:flex;gap:16px'>{cell.format(self.before._repr_html_())}"
            f"{cell.format(self.after._repr_html_())}</div></div>"
        )

    def __repr__(self) -> str:
        return f"BeforeAfter({self.change})"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return bundle(self)
