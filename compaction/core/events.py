"""What compaction did, as one kind of record every layer, level, pipeline and plot shares.

A ``CompactionEvent`` says at which model call (``turn``) what happened (``kind``): a layer acted
(its name: ``budget``, ``snip``, ``micro``, ``summary``, ``reactive``, ``compact``), a level's signal
fired (``long_output``), or something failed or stopped (``budget_failed``, ``micro_skipped``,
``summary_failed``, ``breaker``, ``loop_guard``); the tokens before and after, a ``detail`` for
people, and where what left the context is on disk.
Deliberately left out: the content that moved (it is on disk, and ``detail`` says where).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompactionEvent:
    """One thing compaction did: at which turn, what kind of thing, tokens before and after, and why."""

    turn: int  # 0-based model call it preceded; -1 when the layer ran outside a pipeline
    kind: str  # a layer's name when it acted, else a failure, a stop or a signal (see above)
    tokens_before: int  # of the whole request; 0 and 0 in a per-result record of the budget
    tokens_after: int
    detail: str = ""
    saved_to: str = ""  # where what left the context is on disk (transcript or stored output)
    tool_use_id: str = ""  # the result this record is about, when it is about one
