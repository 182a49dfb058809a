"""Widgets that show a message list: one row per message, two lists side by side, a pass stepper.

Each widget is a plain Python object that owns an ipywidgets tree (built on first display) and
renders a static HTML form too, so a saved notebook shows its rows on GitHub and nbval can compare
them; its text form is one deterministic line with no widget ids. Snip and micro placeholders and
persisted-output markers are highlighted. Deliberately left out: editing messages, showing whole
block contents, and any JavaScript of our own (ipywidgets does the live part).
"""

from compaction.widgets.compare import BeforeAfter, describe_change
from compaction.widgets.listview import MessageListView
from compaction.widgets.rows import Row, block_kinds, is_placeholder, message_rows
from compaction.widgets.stepper import PipelineStepper

__all__ = [
    "BeforeAfter",
    "MessageListView",
    "PipelineStepper",
    "Row",
    "block_kinds",
    "describe_change",
    "is_placeholder",
    "message_rows",
]
