"""A request whose input plus ``max_tokens`` is over the window, answered the way its model does.

Per ``compaction.core.models``: on the models the stop-reasons page names (Sonnet 4.5 and newer) the API
accepts the request and the answer stops where the window ends, with ``stop_reason``
"model_context_window_exceeded" (SDK ``StopReason``;
https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons); earlier models do the
same only with the beta header ``model-context-window-exceeded-2025-08-26``, and without it (as
the course's client asks) refuse with the 400 "input length and `max_tokens` exceed context limit:
N + M > W, ..." (the wording as quoted in https://github.com/docker/docker-agent/issues/569).
An answer that fits in the room left ends as it would have: only an answer longer than the room is
cut. The server's own choices, where the docs are silent: text is cut to the tokens that fit (cl100k,
as the server counts everywhere), and a ``tool_use`` block that does not fit whole is left out,
with every block after it.
"""

from __future__ import annotations

import json

from compaction.core.models import REFUSE, behaves_as
from compaction.core.tokens import count_text, encoding
from compaction.offline.server.errors import RequestError


def block_tokens(block: dict) -> int:
    """The output tokens of one answer block, as the server counts ``usage.output_tokens``."""
    return count_text(block["text"] if block["type"] == "text" else json.dumps(block), "tiktoken")


def check_room(model: str, used: int, max_tokens: int, window: int, *, force_refusal: bool = False) -> None:
    """Raise the 400 when input + ``max_tokens`` is over the window and the model refuses (or told to)."""
    if used + max_tokens <= window:
        return
    if force_refusal or behaves_as(model).overflow == REFUSE:
        raise RequestError(
            f"input length and `max_tokens` exceed context limit: {used} + {max_tokens} > {window}, "
            "decrease input length or `max_tokens` and try again"
        )


def fit(turn: list[dict], stop_reason: str, room: int) -> tuple[list[dict], str, int]:
    """(blocks, stop_reason, output tokens): the turn whole if it fits in ``room``, else cut at it."""
    sizes = [block_tokens(b) for b in turn]
    if sum(sizes) <= room:
        return turn, stop_reason, sum(sizes)
    kept: list[dict] = []
    left = max(0, room)
    for block, size in zip(turn, sizes, strict=True):
        if size <= left:
            kept.append(block)
            left -= size
            continue
        if block["type"] == "text" and left > 0:
            kept.append({**block, "text": _cut_text(block["text"], left)})
        break
    return kept, "model_context_window_exceeded", max(0, room)


def _cut_text(text: str, tokens: int) -> str:
    enc = encoding()
    if enc is None:
        return text[: tokens * 4]
    return enc.decode(enc.encode(text, disallowed_special=())[:tokens])
