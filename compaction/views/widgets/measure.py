"""Tokens as the widgets count them: one unit per view, labelled, each message counted once.

A ``Meter`` counts with one method (cl100k through tiktoken by default) and remembers each message
it has seen, so a before/after view of two lists that share most of their messages tokenizes each
shared message once. ``by_kind`` splits a message's tokens over what fills the window; the parts
always add up to the message's own count (the framing goes to its largest part).
Deliberately left out: the API's own count (see ``compaction.core.tokens.count_with_api``).
"""

from __future__ import annotations

from collections.abc import Sequence

from compaction.core.messages import blocks
from compaction.core.tokens import IMAGE_TOKENS, TokenCounter, count_text, encoding, message_text
from compaction.views.widgets.marks import fill_kind, is_summary


def unit_label(method: str) -> str:
    """The unit a view names in its header: ``tiktoken cl100k`` or ``chars/4``."""
    if method == "tiktoken":
        return "tiktoken cl100k" if encoding() is not None else "chars/4 (cl100k could not load)"
    return "chars/4"


class Meter:
    """Counts messages in one unit, each message once; splits a message's tokens by kind."""

    def __init__(self, method: str = "tiktoken"):
        self.counter = TokenCounter(method)  # caches a message's count by identity
        self.method, self.unit = method, unit_label(method)
        self._kinds: dict[int, tuple[dict, dict[str, int]]] = {}  # id(message) -> (message, kind -> tokens)

    def tokens(self, message: dict) -> int:
        """Tokens of one message, framing included."""
        return self.counter.message_tokens(message)

    def total(self, messages: Sequence[dict]) -> int:
        """Tokens of a list."""
        return sum(self.tokens(m) for m in messages)

    def by_kind(self, message: dict) -> dict[str, int]:
        """The message's tokens split by what they are (summary, placeholders, tool results, ...)."""
        hit = self._kinds.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1]
        total = self.tokens(message)
        if is_summary(message):
            parts = {"summary": total}
        else:
            parts: dict[str, int] = {}
            for block in blocks(message):
                flat = IMAGE_TOKENS if block.get("type") in ("image", "document") else 0
                one = count_text(message_text({"content": [block]}), self.method) + flat
                kind = fill_kind(message, block)
                parts[kind] = parts.get(kind, 0) + one
            if not parts:
                parts = {"assistant_text" if message.get("role") == "assistant" else "user_text": 0}
            largest = max(parts, key=parts.get)
            parts[largest] += total - sum(parts.values())  # framing and joins: the parts add up
        self._kinds[id(message)] = (message, parts)
        return parts

    def fill(self, messages: Sequence[dict], overhead: int = 0) -> dict[str, int]:
        """What fills the window, by kind: the messages' tokens plus ``overhead`` as system and tools."""
        out = {"system_tools": max(0, overhead)}
        for message in messages:
            for kind, n in self.by_kind(message).items():
                out[kind] = out.get(kind, 0) + n
        return out
