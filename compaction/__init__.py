"""Context compaction for LLM agents, layer by layer: the package behind the course.

The public names are imported lazily, so ``import compaction`` stays fast and a notebook that
uses one layer does not load the others.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> module that defines it
_EXPORTS = {
    "validate": "core.messages",
    "InvalidConversation": "core.messages",
    "estimate_tokens": "core.tokens",
    "TokenCounter": "core.tokens",
    "connect": "agent.backend",
    "OutputStore": "core.store",
    "tool_result_budget": "layers.budget",
    "snip_compact": "layers.snip",
    "micro_compact": "layers.micro",
    "compact_history": "layers.summarize",
    "reactive_compact": "layers.reactive",
    "Compactor": "pipeline.compactor",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'compaction' has no attribute {name!r}")
    return getattr(importlib.import_module(f"compaction.{_EXPORTS[name]}"), name)
