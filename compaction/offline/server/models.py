"""``GET /v1/models`` and ``GET /v1/models/{model}``: the offline model's window, read from the API.

The answer has the SDK's ``ModelInfo`` shape (``anthropic/types/model_info.py``), whose
``max_input_tokens`` is the "maximum input context window size in tokens for this model": here
the window of the asking client (its ``x-compaction-window`` header), so a notebook reads its
window with ``client.models.retrieve(model).max_input_tokens`` as it would from the real API.
Any model name is known; ``max_tokens`` is the model's documented output limit (``compaction.core.models``),
128,000 for a name outside the table. Deliberately left out: capabilities and pagination beyond one page.
"""

from __future__ import annotations

from compaction.core.models import DEFAULT_MODEL, behaves_as

CREATED_AT = "2025-01-01T00:00:00Z"  # a fixed date: same bytes on every run
LISTED = DEFAULT_MODEL  # the name ``GET /v1/models`` lists (any name works in a request)


def model_info(model: str, window: int) -> dict:
    """One model's entry, with the client's window as ``max_input_tokens``."""
    return {
        "type": "model",
        "id": model,
        "display_name": f"Offline model ({model})",
        "created_at": CREATED_AT,
        "lifecycle": "active",
        "max_input_tokens": window,
        "max_tokens": behaves_as(model).max_output or behaves_as(DEFAULT_MODEL).max_output,
    }


def model_list(window: int) -> dict:
    """The list answer: one page holding the one offline model."""
    return {"data": [model_info(LISTED, window)], "has_more": False, "first_id": LISTED, "last_id": LISTED}
