"""The offline model: a loopback Messages API server that plays a scripted coding agent.

``shared_server()`` is the one server of this process (started on first use, a daemon
thread); ``OfflineServer`` makes a private one, e.g. for tests. ``PROJECT`` is the bundled
practice project the scenario works on. Nothing here reaches the network beyond 127.0.0.1.
"""

from __future__ import annotations

import threading
from pathlib import Path

from compaction.offline.server.loopback import OfflineServer

PROJECT = Path(__file__).parent / "project"  # the practice project, copied into each workspace

_shared: OfflineServer | None = None
_lock = threading.Lock()


def shared_server() -> OfflineServer:
    """The process's offline server, started on first use and kept until the process ends."""
    global _shared
    with _lock:
        if _shared is None or not _shared.running:
            _shared = OfflineServer().start()
        return _shared


__all__ = ["OfflineServer", "PROJECT", "shared_server"]
