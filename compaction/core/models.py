"""The model the course asks for when a caller names none (offline and real alike).

``COMPACTION_MODEL`` overrides it; the offline server answers for any name. Deliberately left out:
model capabilities and prices.
"""

from __future__ import annotations

import os

CLAUDE_MODEL = "claude-sonnet-5-5"  # a current model of the real API (in the SDK's ModelParam)


def default_model() -> str:
    """The model to ask for: ``COMPACTION_MODEL`` when set, else ``CLAUDE_MODEL``."""
    return os.environ.get("COMPACTION_MODEL", "").strip() or CLAUDE_MODEL


DEFAULT_MODEL = default_model()  # fixed at import
