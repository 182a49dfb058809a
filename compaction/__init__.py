"""Context compaction for LLM agents, layer by layer: the package behind the course.

The public names are imported lazily, so ``import compaction`` stays fast and a notebook that
uses one layer does not load the others. The command line's runners are names here too
(``replay_command``...): ``python -m compaction`` loads only the command it runs, and a module
that needs the SDK (``connect``) or detect-secrets (``redact``) only when it is first used can
name it through this package.
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
    "Layer": "layers.layer",
    "Budget": "layers.budget",
    "Snip": "layers.snip",
    "Micro": "layers.micro",
    "Summary": "layers.summarize",
    "Reactive": "layers.reactive",
    "Compactor": "pipeline.compactor",
    "default_layers": "pipeline.compactor",
    "redact": "evaluate.replay.redact",
    "redact_json": "evaluate.replay.redact",
    # the command line's runners, run(args, console=None) -> exit status, one module each
    "demo_command": "agent.demo",
    "evaluate_command": "evaluate.cli",
    "replay_command": "evaluate.replay.command",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'compaction' has no attribute {name!r}")
    return getattr(importlib.import_module(f"compaction.{_EXPORTS[name]}"), name)
