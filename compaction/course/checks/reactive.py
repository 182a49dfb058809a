"""Checks for chapter 07 (reactive): recognising "prompt is too long", and the pair-safe tail.

``check_is_prompt_too_long`` builds the SDK's real exceptions (400, 413, 429, 500, a timeout) and
plain ones; ``check_pair_safe_tail`` compares with the package on every course session and every
``keep``, and rejects a tail that starts with an orphan tool result. Deliberately left out: the
summary call, which chapter 06 checks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import anthropic

from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions, handmade_session
from compaction.messages import is_tool_result_message, validate
from compaction.reactive import is_prompt_too_long, pair_safe_tail

try:  # the SDK's HTTP library: httpx, or its successor httpx2 in newer SDKs
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx


def api_error(status: int, message: str, kind: str = "invalid_request_error") -> anthropic.APIStatusError:
    """The exception the SDK raises for an HTTP error answer (the right subclass for the status)."""
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    body = {"type": "error", "error": {"type": kind, "message": message}}
    response = httpx.Response(status, json=body, request=request)
    classes = {
        400: anthropic.BadRequestError,
        413: getattr(anthropic, "RequestTooLargeError", anthropic.APIStatusError),
        429: anthropic.RateLimitError,
        500: anthropic.InternalServerError,
        529: getattr(anthropic, "OverloadedError", anthropic.InternalServerError),
    }
    return classes.get(status, anthropic.APIStatusError)(message, response=response, body=body)


ERRORS = {
    "400 prompt is too long": lambda: api_error(400, "prompt is too long: 213021 tokens > 200000 maximum"),
    "413 request too large": lambda: api_error(413, "Request exceeds the maximum size", "request_too_large"),
    "400 unpaired tool_use": lambda: api_error(
        400, "messages.125: `tool_use` ids were found without `tool_result` blocks immediately after"
    ),
    "400 max_tokens too large": lambda: api_error(400, "max_tokens: 999999 > 64000, the maximum"),
    "429 rate limit": lambda: api_error(
        429, "Number of request tokens has exceeded your rate limit", "rate_limit"
    ),
    "500 that mentions the words": lambda: api_error(500, "prompt is too long", "api_error"),
    "529 overloaded": lambda: api_error(529, "Overloaded", "overloaded_error"),
    "a timeout": lambda: anthropic.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1/")),
    "a plain ValueError with the words": lambda: ValueError("prompt is too long"),
    "a KeyError": lambda: KeyError("content"),
}


def check_is_prompt_too_long(fn: Callable[[BaseException], bool]) -> CheckReport:
    """``fn(error)`` is True for a 400 "prompt is too long" and a 413, False for everything else."""

    def case_for(make):
        def case():
            error = make()
            got, want = fn(error), is_prompt_too_long(error)
            assert got is want or got == want, f"returned {got!r}, expected {want!r}"

        return case

    return run_cases("is_prompt_too_long", [(name, case_for(make)) for name, make in ERRORS.items()])


def _handmade_tails() -> list[list[dict]]:
    """Targeted lists: parallel calls, a user text turn, the first message alone."""

    session = handmade_session()
    return [session, session[:-1], session[:2] + [session[2]], session[:1]]


def check_pair_safe_tail(fn: Callable[[list[dict], int], list[dict]]) -> CheckReport:
    """``fn(messages, keep)`` is identical to the package's tail on every course session and keep."""

    def lists():
        return [s for s in course_sessions() + _handmade_tails() if s]

    def identical():
        for messages in lists():
            for keep in range(1, len(messages) + 3):
                before = copy.deepcopy(messages)
                got, want = fn(messages, keep), pair_safe_tail(messages, keep)
                assert messages == before, "the input list was changed; return a new list"
                assert got == want, (
                    f"keep={keep} on a {len(messages)}-message list: got {len(got)} messages, "
                    f"expected {len(want)}"
                )

    def never_orphaned():
        for messages in lists():
            for keep in range(1, len(messages)):
                tail = fn(messages, keep)
                assert tail, f"keep={keep}: the tail is empty"
                assert not is_tool_result_message(tail[0]), f"keep={keep}: the tail starts with a tool_result"
                validate([{"role": "user", "content": "[summary]"}, *tail])

    def keeps_enough():
        for messages in lists():
            for keep in range(1, len(messages)):
                tail = fn(messages, keep)
                assert len(tail) >= keep, f"keep={keep}: only {len(tail)} messages kept"
                assert tail == messages[len(messages) - len(tail) :], "the tail must be the end of the list"

    return run_cases(
        "pair_safe_tail",
        [
            ("identical to the package on every course session and keep", identical),
            ("never starts with a tool_result; follows a summary validly", never_orphaned),
            ("keeps at least keep messages, from the end", keeps_enough),
        ],
    )
