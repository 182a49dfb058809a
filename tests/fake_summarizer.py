"""A stand-in for ``client.messages.create`` in summary tests: scripted answers and faults.

It records every request, enforces an optional window the way the API does (a real
``anthropic.BadRequestError`` "prompt is too long: N tokens > M maximum"), and answers with a
scripted text, tool call, or exception. Tests that need the real offline server use ``connect()``.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace

import anthropic

try:  # the SDK's HTTP library: httpx, or its successor httpx2 in newer SDKs
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx

from compaction.core.messages import validate
from compaction.core.tokens import estimate_tokens

GOOD_ANSWER = (
    "<analysis>secret reasoning the summary must not keep</analysis>\n"
    "<summary>\n1. Primary Request and Intent:\n   Fix calc.py\n"
    "9. Optional Next Step:\n   Run the tests\n</summary>"
)


def api_error(status: int, message: str) -> anthropic.APIStatusError:
    """The SDK's own exception for an HTTP error answer with ``message``."""
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    response = httpx.Response(status, json=body, request=request)
    kinds = {400: anthropic.BadRequestError, 413: anthropic.APIStatusError, 429: anthropic.RateLimitError}
    kinds[500] = anthropic.InternalServerError
    return kinds.get(status, anthropic.APIStatusError)(message, response=response, body=body)


def too_long(tokens: int, window: int) -> anthropic.BadRequestError:
    """The API's refusal of an over-long prompt."""
    return api_error(400, f"prompt is too long: {tokens} tokens > {window} maximum")


class FakeClient:
    """``client.messages.create`` with a scripted outcome per call (the last one repeats)."""

    def __init__(self, *outcomes, window: int | None = None):
        self.outcomes = list(outcomes) or [GOOD_ANSWER]
        self.window = window
        self.requests: list[dict] = []  # deep copies of every create() call's arguments
        self.messages = self

    def create(self, **request):
        """Answer one request: raise, or return a response-shaped object."""
        self.requests.append(copy.deepcopy(request))
        validate(request["messages"])  # the API refuses an invalid list
        if self.window is not None:
            tokens = estimate_tokens(
                request["messages"], "tiktoken", system=request.get("system"), tools=request.get("tools")
            )
            if tokens > self.window:
                raise too_long(tokens, self.window)
        outcome = self.outcomes[min(len(self.requests) - 1, len(self.outcomes) - 1)]
        if isinstance(outcome, BaseException):
            raise outcome
        if isinstance(outcome, dict):  # a content block, e.g. a tool_use
            block = SimpleNamespace(**outcome)
        else:
            block = SimpleNamespace(type="text", text=outcome)
        return SimpleNamespace(content=[block], stop_reason="end_turn", usage=None)
