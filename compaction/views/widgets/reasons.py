"""Why a pass of the pipeline did nothing: the layer says so, in its own figures.

Each reason names the trigger and the numbers it compared (``38 messages, within max_messages 40``),
so a learner stepping through a ``prepare()`` call sees that an idle pass was a decision, not a
bug. Events of the call come first: a pass skipped because its transcript could not be written says
so. Deliberately left out: deciding anything, or knowing any trigger: the layer that owns a trigger
explains it (``Layer.why_idle``), and the pipeline adds its guard (``Compactor.why_idle``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from compaction.presentation.language import say


def why_idle(compactor: Any, layer: str, messages: Sequence[dict], events: Iterable[Any] = ()) -> str:
    """Why the pass named ``layer`` left ``messages`` as they were: an event of the call, or the layer."""
    for event in events:
        if str(getattr(event, "kind", "")).startswith(f"{layer}_"):
            return f"{event.kind}: {event.detail}"
    found = compactor.layer(layer) if hasattr(compactor, "layer") else None
    if found is None:
        return say("the list came out unchanged")
    return compactor.why_idle(found, messages)
