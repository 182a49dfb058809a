"""The top-level fields of a request: every field the SDK can send is known, any other is refused.

The lists are the bodies the installed SDK builds (``anthropic/resources/beta/messages/messages.py``
``create``/``parse``/``count_tokens`` and the same methods of ``resources/messages/messages.py``;
the TypedDicts ``types/beta/message_create_params.py`` and ``message_count_tokens_params.py``).
A field outside them is refused in pydantic's words, the form the API uses for its field errors
(``context_management.edits.0.keep.value: Input should be a valid integer``):
``temperatur: Extra inputs are not permitted``. Fields the offline model has no use for
(``metadata``, ``service_tier``, ``tool_choice``, ...) are accepted and ignored; ``thinking`` is read by
``thinking``, ``stream`` by ``streaming``.

``thread`` (beta ``message-threads-2026-08-12``, ``BetaMessageThreadParam``) asks the server to
hold the conversation between turns. The offline server holds none: it answers with the error the
SDK recovers from, ``error.details.error_code`` ``thread_unsupported_request``, after which the
SDK's tool runner sends the whole history on every turn (``_for_tool_runner`` in
``anthropic/lib/threads/_beta_threads.py``: "it stops sending one when the server cannot thread a
request"; ``_unsupported_features`` in ``_thread_state.py`` reads that code).
"""

from __future__ import annotations

from typing import Any

from compaction.offline.server.errors import RequestError

COUNT_FIELDS = frozenset(
    {
        "billing_policy", "cache_control", "compaction", "context_management", "mcp_servers", "messages",
        "model", "output_config", "speed", "system", "thinking", "tool_choice", "tools",
    }
)  # fmt: skip
CREATE_FIELDS = COUNT_FIELDS | frozenset(
    {
        "container", "diagnostics", "fallback_credit_token", "fallbacks", "inference_geo", "max_tokens",
        "metadata", "output_format", "service_tier", "stop_sequences", "stream", "thread",
    }
)  # fmt: skip
THREAD_UNSUPPORTED = "thread_unsupported_request"  # the error_code the SDK's threads recover from


class ThreadUnsupported(RequestError):
    """A ``thread`` the offline server cannot hold; ``details`` tell the SDK to go on without one."""

    details = {"error_code": THREAD_UNSUPPORTED, "unsupported": ["thread"]}


def check_fields(body: Any, *, create: bool) -> None:
    """Refuse a top-level field the endpoint does not take, naming it; refuse ``thread`` as above."""
    if not isinstance(body, dict):
        return  # request.checked names a body that is not an object
    known = CREATE_FIELDS if create else COUNT_FIELDS
    for name in body:
        if name not in known:
            raise RequestError(f"{name}: Extra inputs are not permitted")
    if create and body.get("thread") is not None:
        raise ThreadUnsupported(
            "thread: the offline model holds no conversation between requests; "
            "send the whole history in `messages` without `thread`"
        )
