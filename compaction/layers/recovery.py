"""The recovery policy after the API refuses a request as too long: one compaction, one retry.

``recover_once(send, messages, compact)`` sends the list; when the API answers "prompt is too long"
it asks ``compact`` once for a smaller list and sends that once. A compaction that fails, or a
second refusal, raises ``ReactiveCompactFailed`` naming the transcript, so a session never loops on
an error it cannot fix. The agent loop and ``reactive.send_with_recovery`` both use it. Deliberately
left out: what the compaction does (``compaction.layers.reactive``) and any other error, which is re-raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compaction.core.api_errors import is_prompt_too_long
from compaction.core.failures import ReactiveCompactFailed, SummaryFailed
from compaction.core.messages import Message, text_of
from compaction.core.placeholders import transcript_named


def recover_once(
    send: Callable[[list[Message]], Any],
    messages: list[Message],
    compact: Callable[[list[Message], BaseException], list[Message]],
) -> tuple[Any, list[Message]]:
    """``send(messages)``; on "prompt is too long" compact once and send once more: (result, list sent)."""
    try:
        return send(messages), messages
    except Exception as exc:  # a refusal (the SDK's), or an answer cut off: anything else goes on up
        if not is_prompt_too_long(exc):
            raise
        error = exc
    try:
        smaller = compact(messages, error)
    except SummaryFailed as failed:
        raise ReactiveCompactFailed(failed.transcript, failed) from failed
    try:
        return send(smaller), smaller
    except Exception as again:
        if is_prompt_too_long(again):
            opening = text_of(smaller[0].get("content")) if smaller else ""
            raise ReactiveCompactFailed(transcript_named(opening), again) from again
        raise
