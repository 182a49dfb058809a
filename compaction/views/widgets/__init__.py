"""Widgets that show what each pass changed: a list, one pass as a diff, every pass of a call, the window.

Each widget is a plain Python object that owns an ipywidgets tree (built on first display) and
renders the same information as static HTML, so a saved notebook shows it on GitHub and nbval can
compare it; its text form is one deterministic line with no widget ids. Rows keep their original
message numbers and open onto their content; placeholders and markers show their own words; a
dropped range is one gap naming where it went; one token unit per view (cl100k by default); every
colour comes from ``compaction.presentation.palette``. Deliberately left out: editing messages, and any
JavaScript of our own (ipywidgets and HTML ``<details>`` do the live part).
"""

from compaction.views.widgets.compare import BeforeAfter, describe_change
from compaction.views.widgets.diff import Change, align
from compaction.views.widgets.gauge import WindowGauge
from compaction.views.widgets.listview import MessageListView
from compaction.views.widgets.marks import placeholder_words
from compaction.views.widgets.rows import Row, block_kinds, holds_placeholder, message_rows
from compaction.views.widgets.stepper import PipelineStepper

__all__ = [
    "BeforeAfter",
    "Change",
    "MessageListView",
    "PipelineStepper",
    "Row",
    "WindowGauge",
    "align",
    "block_kinds",
    "describe_change",
    "holds_placeholder",
    "message_rows",
    "placeholder_words",
]
