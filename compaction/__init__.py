"""Context compaction for LLM agents, layer by layer: the package behind the course.

The public names are imported lazily, so ``import compaction`` stays fast and a notebook that
uses one layer does not load the others.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> module that defines it
_EXPORTS = {
    "validate": "messages",
    "InvalidConversation": "messages",
    "estimate_tokens": "tokens",
    "TokenCounter": "tokens",
    "connect": "backend",
    "OutputStore": "store",
    "tool_result_budget": "budget",
    "snip_compact": "snip",
    "micro_compact": "micro",
    "compact_history": "summarize",
    "reactive_compact": "reactive",
    "Compactor": "pipeline",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'compaction' has no attribute {name!r}")
    return getattr(importlib.import_module(f"compaction.{_EXPORTS[name]}"), name)
