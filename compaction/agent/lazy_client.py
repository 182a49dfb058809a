"""A client that connects on its first use: a command that never asks the model never loads the SDK.

``LazyClient(backend, **options)`` checks the backend at once (an unknown name or a missing key is
said before anything runs) and builds its client the first time it is used, as in
``client.messages.create``: for the real API ``compaction.connect(backend, **options)`` (the SDK's
client), for the offline model a ``compaction.offline.direct.DirectClient`` (the loopback server's
answers in this process, without the two CPU-seconds of importing the SDK). ``compaction replay``
gives one to the strategies: only a summary request uses it. ``connected`` says whether that
happened. Deliberately left out: closing the client.
"""

from __future__ import annotations

from typing import Any

import compaction  # connect, one of its names loaded on first use (compaction/__init__.py)
from compaction.agent.backend_choice import check
from compaction.offline.direct import DirectClient


class LazyClient:
    """Stands for the backend's client, built when first used (offline: ``DirectClient``)."""

    def __init__(self, backend: str | None = None, **options: Any):
        self.backend = check(backend)
        self._options = options
        self._client: Any = None

    @property
    def connected(self) -> bool:
        """True once the client was built (a request was made, or an attribute read)."""
        return self._client is not None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and the like ask for these: not a use of the client
            raise AttributeError(name)
        if self._client is None and self.backend == "offline":
            self._client = DirectClient(**self._options)
        elif self._client is None:
            self._client = compaction.connect(self.backend, **self._options)
        return getattr(self._client, name)
