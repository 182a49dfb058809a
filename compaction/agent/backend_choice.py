"""Which backend answers a client, decided without building the client (and without the SDK).

``backend_name`` reads the argument or ``COMPACTION_BACKEND`` (offline by default), and ``api_key``
reads ``ANTHROPIC_API_KEY`` for the real API, refusing with ``BackendError`` when it is missing, so a
command can say so before it runs anything. ``compaction.agent.backend.connect`` builds the client
from them. ``SAMPLE_WINDOW`` is the offline model's window for a recorded or sample session, large
enough never to refuse one. The key is read from the environment only, never printed, logged or
stored. Deliberately left out: the client itself (``backend``), which loads the SDK.
"""

from __future__ import annotations

import os

BACKENDS = ("offline", "anthropic")
SAMPLE_WINDOW = 1_000_000  # tokens: big enough that a sample session never overflows


class BackendError(RuntimeError):
    """connect() cannot build the client that was asked for (unknown backend, missing key)."""


def backend_name(backend: str | None = None) -> str:
    """The backend to use: the argument, else ``COMPACTION_BACKEND``, else ``"offline"``."""
    name = (backend or os.environ.get("COMPACTION_BACKEND") or "offline").strip().lower()
    if name not in BACKENDS:
        raise BackendError(
            f"backend must be one of {BACKENDS}, not {name!r} (argument or COMPACTION_BACKEND)"
        )
    return name


def api_key() -> str:
    """``ANTHROPIC_API_KEY`` for the real API; BackendError naming the variable when it is not set."""
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        raise BackendError(
            "the anthropic backend needs an API key: set the environment variable ANTHROPIC_API_KEY "
            "(or use the offline backend, the default)"
        )
    return key


def check(backend: str | None = None) -> str:
    """The backend's name, once it is known and (for the real API) has its key; else BackendError."""
    name = backend_name(backend)
    if name == "anthropic":
        api_key()
    return name
