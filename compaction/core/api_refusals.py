"""The SDK's exception for one of the API's refusals, built as an HTTP answer would raise it.

``context_limit_error`` is the ``anthropic.BadRequestError`` the SDK raises when the API refuses a
request whose input fits the window but not with the room asked for the answer (the wording is
``compaction.core.api_errors``'s). Chapter 10 raises it from a server of its own. It is apart from
``api_errors`` because it loads the SDK, which recognising a refusal never needs
(``compaction.core.api_errors.context_limit_error`` names it too). Deliberately left out: the other
refusals, which the offline server answers over HTTP.
"""

from __future__ import annotations

import anthropic

try:  # the SDK's HTTP library: httpx, or its successor httpx2 in newer SDKs
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx


def context_limit_error(input_tokens: int, max_tokens: int, window: int) -> anthropic.BadRequestError:
    """The SDK's exception for the API's input + ``max_tokens`` refusal, as an HTTP answer would raise it."""
    message = (
        f"input length and `max_tokens` exceed context limit: {input_tokens} + {max_tokens} > {window}, "
        "decrease input length or `max_tokens` and try again"
    )
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    response = httpx.Response(400, json=body, request=request)
    return anthropic.BadRequestError(message, response=response, body=body)
