"""Recognising the API's signals that a request does not fit the window: one home for the rule.

The Messages API refuses such a request with HTTP 400 ``invalid_request_error`` in two wordings:
``prompt is too long: 213021 tokens > 200000 maximum`` (the input alone is over the window) and
``input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length
or `max_tokens` and try again`` (the input fits, but not with the room asked for the answer; the
wording as quoted in public reports such as anthropics/claude-code#408). A request body over the size
limit gets HTTP 413 (the SDK raises ``ContentTooLargeError`` for it, formerly
``RequestTooLargeError``). A call can also succeed and stop with ``stop_reason``
``"model_context_window_exceeded"`` (the SDK's ``StopReason``): the answer was cut off where the
window ended; ``WindowExceeded`` carries such a response to the same recovery as a refusal.
The agent loop, the summary request and reactive compaction all ask the same question, so they ask
it here. An error of the SDK exists only once the SDK is loaded, so these questions never load it
(a replay that sends no request never imports it); ``Refusal`` is the same HTTP error from a
client that has no SDK (the offline model called in this process, ``compaction.offline.direct``);
``context_limit_error``, which builds the SDK's exception, lives in ``compaction.core.api_refusals``
and loads it when first named here.
Deliberately left out: retrying (the callers decide) and every other kind of error.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

_TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum", re.I)
_CONTEXT_LIMIT = re.compile(
    r"input length and `?max_tokens`? exceed context limit: (\d+) \+ (\d+) > (\d+)", re.I
)
REFUSALS = ("prompt is too long", "input length and `max_tokens` exceed context limit")  # the 400s' openings
WINDOW_EXCEEDED = "model_context_window_exceeded"  # the stop_reason of an answer cut off by the window


class Refusal(Exception):
    """An HTTP error answer in the API's words, from a client without the SDK: ``status_code``, message."""

    def __init__(self, status_code: int, message: str):
        super().__init__(message)
        self.status_code = status_code


class WindowExceeded(Exception):
    """A response that stopped with ``stop_reason`` "model_context_window_exceeded"; ``response`` is it."""

    def __init__(self, response: Any):
        self.response = response
        super().__init__(f"the answer stopped at the context window (stop_reason {WINDOW_EXCEEDED!r})")


def window_exceeded(response: Any) -> bool:
    """True when a response stopped because the context window was full."""
    return getattr(response, "stop_reason", None) == WINDOW_EXCEEDED


def is_prompt_too_long(error: BaseException) -> bool:
    """True for the refusals of a request too big for the window (both 400s, a 413) and WindowExceeded."""
    if isinstance(error, WindowExceeded):
        return True
    status = _status(error)
    if status == 413:
        return True
    message = str(error).lower()
    return status == 400 and any(phrase in message for phrase in REFUSALS)


def too_long_counts(error: BaseException) -> tuple[int, int] | None:
    """(tokens asked for, window) from either 400 wording: ``(N, M)`` or ``(N + M, W)``; else None."""
    if _status(error) != 400:
        return None
    message = str(error)
    if found := _TOO_LONG.search(message):
        return int(found.group(1)), int(found.group(2))
    if found := _CONTEXT_LIMIT.search(message):
        return int(found.group(1)) + int(found.group(2)), int(found.group(3))
    return None


def tokens_over(error: BaseException) -> int | None:
    """How many tokens over the window a 400 refusal says the request was, or None."""
    counts = too_long_counts(error)
    return None if counts is None else counts[0] - counts[1]


def _status(error: BaseException) -> int | None:
    """The HTTP status of an error answer, the SDK's (loaded) or a ``Refusal``; None for any other error."""
    if isinstance(error, Refusal):
        return error.status_code
    sdk = _sdk()
    return error.status_code if sdk is not None and isinstance(error, sdk.APIStatusError) else None


def _sdk() -> Any:
    """The SDK's module when it is loaded, else None: then no error can be one of its exceptions."""
    return sys.modules.get("anthropic")


def __getattr__(name: str) -> Any:
    """``context_limit_error``, from ``api_refusals``, named here too; the SDK loads with it."""
    if name == "context_limit_error":
        return importlib.import_module("compaction.core.api_refusals").context_limit_error
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
