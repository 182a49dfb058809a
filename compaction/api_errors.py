"""Recognising the API's refusals of a request that is too big: one home for the rule.

The Messages API refuses an over-long prompt with HTTP 400 ``invalid_request_error`` and a message
of the form ``prompt is too long: 213021 tokens > 200000 maximum``; a request body over the size
limit gets HTTP 413 (the SDK raises ``ContentTooLargeError`` for it, formerly
``RequestTooLargeError``). The agent loop, the summary request and reactive compaction all ask the
same question of an error, so they ask it here. Deliberately left out: retrying (the callers
decide) and every other kind of error, which is not ours to recover from.
"""

from __future__ import annotations

import re

import anthropic

_TOO_LONG = re.compile(r"(\d+) tokens > (\d+) maximum")


def is_prompt_too_long(error: BaseException) -> bool:
    """True for the API's over-long prompt refusals: 400 "prompt is too long" or 413; else False."""
    if not isinstance(error, anthropic.APIStatusError):
        return False
    if error.status_code == 413:
        return True
    return error.status_code == 400 and "prompt is too long" in str(error).lower()


def too_long_counts(error: BaseException) -> tuple[int, int] | None:
    """(tokens sent, maximum) from "prompt is too long: N tokens > M maximum", when the error says so."""
    found = _TOO_LONG.search(str(error)) if is_prompt_too_long(error) else None
    return (int(found.group(1)), int(found.group(2))) if found else None
