"""snip_compact: keep the head and the tail of a long conversation, drop the middle.

A cut between two messages is pair-safe when the message before it asks for no tool, so every cut
just before an assistant message is safe (user messages never hold a ``tool_use``). The head
therefore ends on a user message and the tail starts on an assistant message: no ``tool_use`` is
parted from its ``tool_result``, roles keep alternating, and the one placeholder that says how many
messages went is appended as a text block to the head's last user message, AFTER its tool results.
(A placeholder sent as an extra user message would sit next to another user message; the API
merges the two, which can put text in front of tool results.)

Two things stay visible however often a conversation is snipped: the first message (the first
task, always in the head) and the user's current request (the newest user message with the
user's own words); when that request falls in the dropped middle, the placeholder quotes it. A
second snip folds the earlier placeholder into its own count. Deliberately left out: choosing
what to drop by relevance or by tokens, and keeping the dropped messages (the transcript does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from compaction.core.guards import message_list, whole
from compaction.core.messages import blocks, tail_starts
from compaction.core.placeholders import REQUEST_LINE, SNIP_HEAD, snip_placeholder, snipped_count  # noqa: F401
from compaction.layers.layer import Layer, Shared


def is_snip_placeholder(block: Any) -> bool:
    """True for a text block written by snip_compact."""
    is_text = isinstance(block, dict) and block.get("type") == "text"
    return is_text and snipped_count(block.get("text")) is not None


def user_words(message: dict) -> str:
    """The user's own text in a message (placeholders of this layer left out), or ''."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return ""
    parts = [
        b["text"]
        for b in blocks(message)
        if b.get("type") == "text" and isinstance(b.get("text"), str) and not is_snip_placeholder(b)
    ]
    return "\n".join(parts) if any(p.strip() for p in parts) else ""


def current_request(messages: list[dict]) -> tuple[int | None, str]:
    """(index, text) of the user's newest request; index is None when only a placeholder quotes it."""
    for i in range(len(messages) - 1, -1, -1):
        # a placeholder stands for messages after its own message's words: look at it first
        for b in blocks(messages[i]) if messages[i].get("role") == "user" else ():
            if is_snip_placeholder(b) and REQUEST_LINE in b["text"]:
                return None, b["text"].split(REQUEST_LINE, 1)[1]
        words = user_words(messages[i])
        if words:
            return i, words
    return None, ""


def snip_cuts(messages: list[dict], *, max_messages: int = 50, keep_head: int = 3) -> tuple[int, int]:
    """(head_end, tail_start): keep messages[:head_end] and messages[tail_start:], both cuts pair-safe."""
    _check_params(messages, max_messages, keep_head)
    n = len(messages)
    if n <= max_messages:
        return n, n
    head = max(1, keep_head)
    while head < n and messages[head - 1].get("role") != "user":
        head += 1  # end the head on a user message
    wanted = max(head, n - (max_messages - head))
    tail = next(iter(tail_starts(messages, wanted)), n)  # the first pair-safe start at or after it
    return head, tail


def snip_compact(messages: list[dict], *, max_messages: int = 50, keep_head: int = 3) -> list[dict]:
    """Keep the head and the tail, replace the middle with one placeholder; never split a tool pair."""
    head, tail = snip_cuts(messages, max_messages=max_messages, keep_head=keep_head)
    if tail <= head:
        return list(messages)
    dropped = messages[head:tail]
    count = len(dropped) + sum(_snipped_count(m) for m in messages[:tail])
    index, request = current_request(messages)
    quote = request if index is None or head <= index < tail else None
    kept = [_without_placeholder(m) for m in messages[:head]]
    last = kept[-1]
    note = {"type": "text", "text": snip_placeholder(count, quote)}
    kept[-1] = {**last, "content": [*blocks(last), note]}
    return kept + list(messages[tail:])


@dataclass(frozen=True, repr=False)
class Snip(Layer):
    """A list of more than ``max_messages`` messages is cut to ``keep_to``, head and tail kept.

    Cutting below the trigger makes snip fire once every few turns, not on every turn once the list
    is long (each snip breaks the prompt cache). ``keep_to`` defaults to three fifths of
    ``max_messages``. ``run`` is called as ``run(messages, max_messages=keep_to, keep_head=...)``:
    the function's own ``max_messages`` is the size it cuts to.
    """

    name: ClassVar[str] = "snip"
    unchanged: ClassVar[str] = "no pair-safe cut was found"
    max_messages: int = 50
    keep_to: int | None = None
    keep_head: int = 3
    run: Callable[..., list[dict]] = snip_compact

    def __post_init__(self) -> None:
        whole("max_messages", self.max_messages)
        whole("keep_head", self.keep_head)
        if self.keep_to is None:
            object.__setattr__(self, "keep_to", max(self.keep_head + 2, self.max_messages * 3 // 5))
        if not self.keep_head < self.keep_to <= self.max_messages:
            raise ValueError(
                f"Snip: keep_to ({self.keep_to}) must lie above keep_head ({self.keep_head}) "
                f"and at most max_messages ({self.max_messages})"
            )

    def idle(self, messages: Sequence[dict], shared: Shared) -> str | None:
        """Not triggered while the list holds ``max_messages`` messages or fewer."""
        if len(messages) <= self.max_messages:
            return f"not triggered: {len(messages)} messages, within max_messages {self.max_messages}"
        return None

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        """``run(messages, max_messages=keep_to, keep_head=keep_head)``."""
        return self.run(messages, max_messages=self.keep_to, keep_head=self.keep_head)

    def why_idle(self, messages: Sequence[dict], shared: Shared) -> str:
        """Its trigger, or: triggered, but no pair-safe cut was found."""
        n = len(messages)
        return self.idle(messages, shared) or (
            f"triggered ({n} messages > {self.max_messages}), but {self.unchanged}"
        )


def _snipped_count(message: dict) -> int:
    """How many messages earlier placeholders in this message already account for."""
    return sum(snipped_count(b["text"]) for b in blocks(message) if is_snip_placeholder(b))


def _without_placeholder(message: dict) -> dict:
    """The message without earlier snip placeholders (unchanged when it has none)."""
    content = message.get("content")
    if not isinstance(content, list) or not any(is_snip_placeholder(b) for b in content):
        return message
    rest = [b for b in content if not is_snip_placeholder(b)]
    return {**message, "content": rest} if rest else message


def _check_params(messages: Any, max_messages: Any, keep_head: Any) -> None:
    message_list(messages)
    whole("max_messages", max_messages)
    whole("keep_head", keep_head)
    if keep_head >= max_messages:
        raise ValueError(f"keep_head ({keep_head}) must be smaller than max_messages ({max_messages})")
