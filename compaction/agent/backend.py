"""connect(): a real ``anthropic.Anthropic`` client, talking to the offline model or to Claude.

Offline is the default: the client's ``base_url`` points at the loopback server of
``compaction.offline`` (one per process, started on first use), and the client's settings
(context window, scenario, seed) ride along as default headers on every request. With
``backend="anthropic"`` or ``COMPACTION_BACKEND=anthropic`` the client talks to the real API with
``ANTHROPIC_API_KEY``. The key is read from the environment only, never printed, logged or stored
by this module. Deliberately left out: Bedrock/Vertex clients and the async client.
"""

from __future__ import annotations

import contextlib
import functools
import ssl

import anthropic

from compaction.agent.backend_choice import (  # noqa: F401 - BACKENDS, BackendError: public here too
    BACKENDS,
    BackendError,
    api_key,
    backend_name,
)
from compaction.core.models import CLAUDE_MODEL, DEFAULT_MODEL, default_model  # noqa: F401 - public here too
from compaction.offline import shared_server
from compaction.offline.scripted.scenario import SCENARIOS
from compaction.offline.server.api import (
    HEADER_CLEAR_IN_ROUNDS,
    HEADER_COURSE_SCALE,
    HEADER_SCENARIO,
    HEADER_SEED,
    HEADER_WINDOW,
)

DEFAULT_WINDOW = 200_000
OFFLINE_KEY = "offline-model-needs-no-key"  # a placeholder, deliberately not shaped like a real key


def connect(
    backend: str | None = None,
    *,
    context_window: int | None = None,
    scenario: str | None = None,
    seed: int = 0,
    course_scale: bool = False,
    clear_in_rounds: bool = False,
) -> anthropic.Anthropic:
    """An ``anthropic.Anthropic`` client: the offline model by default, the real API on request.

    ``context_window``, ``scenario`` and ``seed`` configure the offline model only; the real API
    has its model's own window. ``course_scale`` and ``clear_in_rounds`` are the offline server's
    own options, which the real API does not have (``compaction.offline.server.api``).
    """
    if backend_name(backend) == "anthropic":
        return anthropic.Anthropic(api_key=api_key(), max_retries=2)
    options = {"course_scale": course_scale, "clear_in_rounds": clear_in_rounds}
    return offline_client(context_window=context_window, scenario=scenario, seed=seed, **options)


@functools.lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """One TLS context for every offline client of this process.

    The loopback URL is plain HTTP, so the context is never used, yet a client built without one
    loads the system's certificates into a new one (about 20 ms a client, thousands in a test run).
    """
    return ssl.create_default_context()


class _LoopbackHttpClient(anthropic.DefaultHttpxClient):
    """The SDK's HTTP client with the shared TLS context, closed when collected as the SDK's own is."""

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit, half torn down
            if not self.is_closed:
                self.close()


def loopback_http_client() -> anthropic.DefaultHttpxClient:
    """An HTTP client for an SDK client of a loopback server: the SDK's own, with the shared TLS context."""
    return _LoopbackHttpClient(verify=tls_context())


def offline_client(
    *,
    context_window: int | None = None,
    scenario: str | None = None,
    seed: int = 0,
    course_scale: bool = False,
    clear_in_rounds: bool = False,
) -> anthropic.Anthropic:
    """A client for the process's offline server, with its settings as default headers."""

    window = DEFAULT_WINDOW if context_window is None else context_window
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise ValueError(f"context_window must be a positive int, not {window!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an int, not {seed!r}")
    headers = {HEADER_WINDOW: str(window), HEADER_SEED: str(seed)}
    if scenario is not None and scenario not in SCENARIOS:
        raise ValueError(f"unknown offline scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}")
    if scenario is not None:
        headers[HEADER_SCENARIO] = scenario
    for header, on in ((HEADER_COURSE_SCALE, course_scale), (HEADER_CLEAR_IN_ROUNDS, clear_in_rounds)):
        if on:
            headers[header] = "on"
    return anthropic.Anthropic(
        api_key=OFFLINE_KEY,
        base_url=shared_server().url,
        max_retries=1,
        timeout=60.0,
        default_headers=headers,
        http_client=loopback_http_client(),
    )
