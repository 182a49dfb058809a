"""Widget rendering on large lists: the time to build a view's static HTML, and its size.

A session of N messages (3 MB of tool output in all, as in the pipeline table) is snipped to 50
messages and micro-compacted; each view is built from scratch and rendered once (``_repr_html_``,
which is also what the live widget shows). Size matters as much as time: the HTML is stored in the
notebook. Folded unchanged runs draw at most 200 rows; each row holds its content cut at 1,500
characters per block. Goal: under a second and under 2 MB at 1,000 messages.
"""

from __future__ import annotations

import time

from compaction.layers.micro import micro_compact
from compaction.layers.snip import snip_compact
from compaction.views.widgets import BeforeAfter, MessageListView, WindowGauge

from .pipeline import session
from .tables import table


def _timed(build) -> tuple[float, int]:
    start = time.perf_counter()
    source = build()._repr_html_()
    return time.perf_counter() - start, len(source.encode())


def run(quick: bool = False) -> str:
    """The table: per list size and view, seconds to build and render, and kilobytes of HTML."""
    rows = []
    for n in (200, 1_000) if quick else (200, 1_000, 5_000):
        raw = session(n)
        snipped = snip_compact(raw, max_messages=50)
        cleared = micro_compact(raw, keep_recent=3)
        views = {
            "MessageListView (limit 40)": lambda raw=raw: MessageListView(raw),
            "WindowGauge": lambda raw=raw: WindowGauge(raw, window=200_000),
            "BeforeAfter snip": lambda raw=raw, s=snipped: BeforeAfter(raw, s),
            "BeforeAfter micro": lambda raw=raw, c=cleared: BeforeAfter(raw, c),
        }
        for name, build in views.items():
            seconds, size = _timed(build)
            rows.append([n, name, seconds, size // 1024])
    return table(
        "Widgets on large lists (tiktoken cl100k, 3 MB of tool output)",
        ["messages", "view", "seconds", "HTML KB"],
        rows,
    )


if __name__ == "__main__":
    print(run())
