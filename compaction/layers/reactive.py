"""Reactive compaction: the emergency path after the API answers "prompt is too long".

The proactive summary fires at a threshold, but one turn can add more than the room left (a big
tool output after a small estimate), and then the API refuses the request. ``is_prompt_too_long``
recognises exactly that refusal (400 "prompt is too long", 413 request too large) and nothing else.
An answer cut off at the window (``stop_reason`` "model_context_window_exceeded", SDK
``StopReason``) goes the same way as a refusal. ``reactive_compact`` writes the whole list to a
transcript, summarizes all but a pair-safe tail, and returns the summary followed by the tail.
``send_with_recovery`` is the loop's part: one reactive compaction and one retry, then
``ReactiveCompactFailed`` naming the transcript.
Deliberately left out: more than one retry, and any other recovery path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from compaction.core.api_errors import (  # noqa: F401 - is_prompt_too_long, too_long_counts: public here too
    WindowExceeded,
    is_prompt_too_long,
    too_long_counts,
    window_exceeded,
)
from compaction.core.failures import ReactiveCompactFailed, SummaryFailed  # noqa: F401 - public here too
from compaction.core.guards import whole
from compaction.core.messages import Message, tail_starts, validate
from compaction.core.tokens import estimate_tokens
from compaction.core.transcript import TranscriptError, write_transcript
from compaction.layers.instructions import pin_instructions
from compaction.layers.layer import Layer, Shared
from compaction.layers.recovery import recover_once
from compaction.layers.summarize import (
    ledger_options,
    needs_model,
    remember_results,
    shared_options,
    summary_message,
)


def tail_start(messages: Sequence[Message], keep: int) -> int:
    """Where a pair-safe tail of about ``keep`` messages starts: at an assistant message, index >= 1."""
    whole("keep", keep, minimum=1)
    starts = tail_starts(messages)
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


@dataclass(frozen=True, repr=False)
class Reactive(Layer):
    """The emergency layer: after the API refuses a request as too long, a summary plus a pair-safe tail.

    It runs only on a refusal, never in ``prepare``; the user's instructions stay word for word.
    ``ledger_tokens`` is ``Summary``'s (None: 15% of the window, 0: no ledger). ``keep_tail`` (None:
    the function's own default, 5 for the package's) and ``options`` go to ``run``, called as
    ``run(messages, client=..., transcript_dir=..., context_window=..., workspace=..., **options)``.
    """

    name: ClassVar[str] = "reactive"
    before_call: ClassVar[bool] = False
    transcript_first: ClassVar[bool] = False  # it writes its own transcript
    calls_model: ClassVar[bool] = True
    keep_tail: int | None = None
    ledger_tokens: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    run: Callable[..., list[Message]] = reactive_compact

    def __post_init__(self) -> None:
        if self.ledger_tokens is not None:
            whole("ledger_tokens", self.ledger_tokens)

    def sees(self, messages: Sequence[Message], shared: Shared) -> None:
        """With a ledger, each new tool result is remembered whole before micro can clear it."""
        remember_results(self.ledger_tokens, messages, shared)

    def idle(self, messages: Sequence[Message], shared: Shared) -> str | None:
        """Always idle before a call: it waits for the API to refuse one."""
        return "runs only after the API refuses a request as too long"

    def apply(self, messages: list[Message], shared: Shared) -> list[Message]:
        """``run`` with the pipeline's client, transcript folder, window and workspace; instructions kept."""
        missing = needs_model(shared, "reactive compaction")
        if missing:
            raise ValueError(missing)
        options = {
            **shared_options(shared),
            **ledger_options(self.ledger_tokens, self.run, messages, shared),
            **dict(self.options),
        }
        if self.keep_tail is not None:
            options["keep_tail"] = self.keep_tail
        out = self.run(messages, client=shared.client, transcript_dir=shared.transcript_dir, **options)
        return pin_instructions(messages, out)


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
    """Call the model; when the list does not fit, compact reactively and retry once: (response, list)."""

    def send(sent: list[Message]) -> Any:
        response = client.messages.create(messages=sent, **create)
        if window_exceeded(response):  # an answer cut at the window: compact and ask again, as for a refusal
            raise WindowExceeded(response)
        return response

    def compact(refused: list[Message], error: BaseException) -> list[Message]:
        window = context_window or (too_long_counts(error) or (0, None))[1]
        options = summary_options or {}
        return _reactive(refused, client, transcript_dir, keep_tail, window, options)[0]

    return recover_once(send, list(messages), compact)
