"""Reactive compaction: the emergency path after the API answers "prompt is too long".

The proactive summary fires at a threshold, but one turn can add more than the room left (a big
tool output after a small estimate), and then the API refuses the request. ``is_prompt_too_long``
recognises exactly that refusal (400 "prompt is too long", 413 request too large) and nothing else.
``reactive_compact`` writes the whole list to a transcript, summarizes all but a pair-safe tail,
and returns the summary followed by the tail. ``send_with_recovery`` is the loop's part: one
reactive compaction and one retry, then ``ReactiveCompactFailed`` naming the transcript.
Deliberately left out: Claude Code's staged retries and its other recovery paths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anthropic

from compaction.messages import Message, validate
from compaction.summarize import SummaryFailed, summary_message
from compaction.tokens import estimate_tokens
from compaction.transcript import TranscriptError, write_transcript

MAX_REACTIVE_RETRIES = 1


class ReactiveCompactFailed(SummaryFailed):
    """The loop could not rescue a refused request; the transcript (if any) holds everything."""

    def __init__(self, transcript: Path | None, error: BaseException):
        self.error = error
        what = "the prompt is still too long" if is_prompt_too_long(error) else "reactive compaction failed"
        where = (
            f"the full history is in the transcript {transcript}" if transcript else "the list is unchanged"
        )
        SummaryFailed.__init__(self, f"{what} ({error})", transcript)
        RuntimeError.__init__(self, f"{what} after one reactive compaction ({error}); {where}")


def is_prompt_too_long(error: BaseException) -> bool:
    """True for the API's over-long prompt refusals: 400 "prompt is too long" or 413; else False."""
    if not isinstance(error, anthropic.APIStatusError):
        return False
    if error.status_code == 413:
        return True
    return error.status_code == 400 and "prompt is too long" in str(error).lower()


def tail_start(messages: Sequence[Message], keep: int) -> int:
    """Where a pair-safe tail of about ``keep`` messages starts: at an assistant message, index >= 1."""
    if not isinstance(keep, int) or keep < 1:
        raise ValueError(f"keep must be a positive integer, not {keep!r}")
    starts = [i for i in range(1, len(messages)) if messages[i].get("role") == "assistant"]
    if not starts:
        return len(messages)
    fitting = [i for i in starts if i <= len(messages) - keep]
    return fitting[-1] if fitting else starts[0]


def pair_safe_tail(messages: Sequence[Message], keep: int) -> list[Message]:
    """The last ``keep`` messages, moved back to start at an assistant message (never at a result)."""
    return list(messages[tail_start(messages, keep) :])


def reactive_compact(
    messages: Sequence[Message],
    *,
    client: Any,
    transcript_dir: Path | str,
    keep_tail: int = 5,
    context_window: int | None = None,
    **options: Any,
) -> list[Message]:
    """Transcript first, then a summary of all but a pair-safe tail: summary message + tail."""
    return _reactive(messages, client, transcript_dir, keep_tail, context_window, options)[0]


def _reactive(messages, client, transcript_dir, keep_tail, context_window, options):
    """reactive_compact, also returning the transcript's path."""
    validate(list(messages))
    if len(messages) < 2:
        raise SummaryFailed("nothing to summarize: the list has a single message")
    try:
        transcript = write_transcript(messages, transcript_dir)
    except TranscriptError as exc:
        raise SummaryFailed(f"the transcript could not be written, so nothing was summarized: {exc}") from exc
    keep = keep_tail
    while context_window is not None and keep > 1:  # a tail that alone fills half the window shrinks
        if estimate_tokens(pair_safe_tail(messages, keep), "tiktoken") <= context_window // 2:
            break
        keep -= 1
    start = tail_start(messages, keep)
    options = {"restore": False, **options, "context_window": context_window}
    head = summary_message(messages[:start], transcript=transcript, client=client, **options)
    return [head, *messages[start:]], transcript


def send_with_recovery(
    client: Any,
    messages: Sequence[Message],
    *,
    transcript_dir: Path | str,
    keep_tail: int = 5,
    context_window: int | None = None,
    summary_options: dict[str, Any] | None = None,
    **create: Any,
) -> tuple[Any, list[Message]]:
    """Call the model; on "prompt is too long" compact reactively and retry once: (response, list)."""
    messages, transcript = list(messages), None
    for attempt in range(MAX_REACTIVE_RETRIES + 1):
        try:
            return client.messages.create(messages=messages, **create), messages
        except anthropic.APIStatusError as exc:
            if not is_prompt_too_long(exc):
                raise
            if attempt == MAX_REACTIVE_RETRIES:
                raise ReactiveCompactFailed(transcript, exc) from exc
            window = context_window or _window_from(exc)
            try:
                messages, transcript = _reactive(
                    messages, client, transcript_dir, keep_tail, window, summary_options or {}
                )
            except SummaryFailed as failed:
                raise ReactiveCompactFailed(failed.transcript, failed) from failed
    raise AssertionError("unreachable")


def _window_from(error: BaseException) -> int | None:
    """The maximum named in "prompt is too long: N tokens > M maximum", when the error gives one."""
    found = re.search(r"tokens > (\d+) maximum", str(error))
    return int(found.group(1)) if found else None
