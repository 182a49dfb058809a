"""``GET /v1/models`` and ``GET /v1/models/{model}``: the window the server enforces, and what it emulates.

The answer has the SDK's ``BetaModelInfo`` shape (``anthropic/types/beta/beta_model_info.py``; the
non-beta ``ModelInfo``, ``anthropic/types/model_info.py``, reads the same object and ignores
``capabilities.compaction``). Its
``max_input_tokens``, the "maximum input context window size in tokens for this model", is the window at
which this server refuses a request: the asking client's (its ``x-compaction-window`` header, 200,000
tokens by default), so a notebook reads its window with ``client.models.retrieve(model).max_input_tokens``
as it would from the real API. That is not the real model's window: Claude Sonnet 5.5, the course's
default model, has 1,000,000 tokens (``compaction.core.models``); a chapter that scales the window down
says so. ``capabilities`` ("Keys are always present for all known capabilities", SDK docstring) names
what the offline server emulates: the three context-management edits (``clear_tool_uses_20250919``,
``clear_thinking_20251015``, ``compact_20260112``) and on-demand compaction (``compaction.summarize``, beta
``compact-2026-09-04``); everything else it does not do is ``supported: false`` (batches, citations, code
execution, effort, images, PDFs, server tools, structured outputs). Thinking is supported: every
``thinking.type`` is accepted, and ``adaptive`` and ``enabled`` write a thinking block bound to its prefix
(``thinking``; the per-model refusals of the real models, such as Sonnet 5.5's 400 for ``disabled``, are left
out there).
``lifecycle`` and ``retires_at`` come from the course's models table (a legacy model is still "active";
a retirement date the table gives is reported, the time of day the server's own choice); the offline
server answers for a retired name all the same. Any model name is known; ``max_tokens`` is the model's
documented output limit, 128,000 for a name outside the table.
Deliberately left out: pagination beyond one page, ``line``, and ``allowed_fallback_models``.
"""

from __future__ import annotations

import re

from compaction.core.models import DEFAULT_MODEL, behaves_as, model

CREATED_AT = "2025-01-01T00:00:00Z"  # a fixed date: same bytes on every run
LISTED = DEFAULT_MODEL  # the name ``GET /v1/models`` lists (any name works in a request)
EDITS = ("clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112")
LEVELS = ("low", "medium", "high", "xhigh", "max")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _no() -> dict:
    return {"supported": False}


def capabilities() -> dict:
    """What the offline server emulates, in the SDK's ``BetaModelCapabilities`` shape."""
    yes = {"supported": True}
    return {
        "batch": _no(),
        "citations": _no(),
        "code_execution": _no(),
        "compaction": {"supported": True, "summarize": dict(yes)},
        "context_management": {"supported": True, **{edit: dict(yes) for edit in EDITS}},
        "effort": {"supported": False, **{level: _no() for level in LEVELS}},
        "image_input": _no(),
        "pdf_input": _no(),
        "server_tools": {"supported": False, "code_execution": _no(), "web_search": _no()},
        "structured_outputs": _no(),
        "thinking": {
            "supported": True,  # every type is accepted (``thinking``); adaptive and enabled write a block
            "types": {t: dict(yes) for t in ("adaptive", "between_tools", "disabled", "enabled")},
        },
    }


def lifecycle(name: str) -> tuple[str, str | None]:
    """(``lifecycle``, ``retires_at``) of a model by the course's table; a name outside it is active."""
    row = model(name)
    status = row.status if row else "active"
    date = DATE_RE.search(status)
    when = f"{date.group(0)}T00:00:00Z" if date else None
    if status.startswith("retired"):
        return "retired", when
    if status.startswith("deprecated"):
        return "deprecated", when
    return "active", None


def model_info(name: str, window: int) -> dict:
    """One model's entry: the client's window as ``max_input_tokens``, the emulated capabilities."""
    stage, retires = lifecycle(name)
    return {
        "type": "model",
        "id": name,
        "display_name": f"Offline model ({name})",
        "created_at": CREATED_AT,
        "lifecycle": stage,
        "retires_at": retires if stage == "deprecated" else None,
        "deprecated_at": None,
        "max_input_tokens": window,
        "max_tokens": behaves_as(name).max_output or behaves_as(DEFAULT_MODEL).max_output,
        "capabilities": capabilities(),
    }


def model_list(window: int) -> dict:
    """The list answer: one page holding the one offline model."""
    return {"data": [model_info(LISTED, window)], "has_more": False, "first_id": LISTED, "last_id": LISTED}
