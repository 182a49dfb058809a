"""The one error type of the offline server's request checks, and the API's error body.

``RequestError`` is an HTTP 400 ``invalid_request_error``; the SDK raises it as its own
``anthropic.BadRequestError``. ``error_body`` is the API's error shape, with the ``request_id``
field that the API's errors page describes ("The response also includes a request_id field",
https://docs.anthropic.com/en/api/errors) and that public bug reports show, e.g.
https://github.com/docker/docker-agent/issues/569. Offline ids are digests of the request, so a
notebook that prints an error prints the same bytes on every run.
"""

from __future__ import annotations

import hashlib


class RequestError(Exception):
    """A request the API would refuse with HTTP 400 ``invalid_request_error``."""

    details: dict | None = None  # the error body's ``details`` (``error_code`` and more), if any


def request_id(raw: bytes) -> str:
    """A request id in the API's form, ``req_`` + 24 characters, derived from the request's bytes."""
    return "req_offline" + hashlib.sha256(raw).hexdigest()[:17]


def error_body(kind: str, message: str, rid: str, details: dict | None = None) -> dict:
    """The API's error body: ``{"type": "error", "error": {type, message}, "request_id": ...}``."""
    error: dict = {"type": kind, "message": message}
    if details:
        error["details"] = dict(details)  # read by the SDK's message threads (``_error_details``)
    return {"type": "error", "error": error, "request_id": rid}
