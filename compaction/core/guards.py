"""Argument checks the layers share, so a layer's file is mostly its idea.

Each check raises with the parameter's name and the value it got (``max_messages must be a
non-negative integer, got -1``). Deliberately left out: checking the messages themselves, which is
``compaction.core.messages.validate``'s job.
"""

from __future__ import annotations

from typing import Any


def message_list(messages: Any) -> list:
    """The messages, when they are a list of dicts; TypeError otherwise."""
    if not isinstance(messages, list):
        raise TypeError(f"messages must be a list of message dicts, not {type(messages).__name__}")
    if set(map(type, messages)) <= {dict}:  # the usual case, checked in C: layers run every turn
        return messages
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            kind = type(message).__name__
            raise TypeError(f"messages must be a list of message dicts: messages[{i}] is a {kind}")
    return messages


def whole(name: str, value: Any, *, minimum: int = 0) -> int:
    """``value`` when it is an integer >= ``minimum`` (bools refused); ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "non-negative" if minimum == 0 else "positive" if minimum == 1 else f">= {minimum}"
        raise ValueError(f"{name} must be a {kind} integer, got {value!r}")
    return value


def fraction(name: str, value: Any) -> float:
    """``value`` when it is a number in [0, 1]; ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a fraction in [0, 1], got {value!r}")
    return float(value)
