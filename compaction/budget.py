"""L3 tool_result_budget: move the largest tool results of the newest user message to disk.

When the tool results of the newest user message hold more than ``max_chars`` characters in all,
the largest are written to an ``OutputStore`` one by one, largest first, until the rest fits. Each
one is replaced by a ``<persisted-output>`` marker: the stored path (relative to the store's
``base``, with forward slashes), the size in characters, and a preview of the first
``preview_chars`` characters. Sizes count the text of a result (``messages.text_of``); non-text
blocks (images) stay in the message untouched.

Nothing in a result is ever read as an instruction: a result that already holds a marker, or text
that imitates one, is plain content like any other and may itself be persisted. If a write fails,
that result keeps its content and ``on_event`` hears why. Deliberately left out: older user
messages (earlier turns were already budgeted when they were newest) and token-based sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compaction.messages import text_of
from compaction.store import OutputStore

MARKER_OPEN, MARKER_CLOSE = "<persisted-output>", "</persisted-output>"
MARKER_OVERHEAD = 400  # a marker is at most the preview plus this many characters


def persisted_marker(display_path: str, chars: int, preview: str) -> str:
    """The text that replaces a persisted result: where it went, how big it was, how it starts."""
    return (
        f"{MARKER_OPEN}\n"
        f"Output too large ({chars:,} characters). Full output saved to: {display_path}\n"
        f"Read that file to see all of it. Preview (first {len(preview):,} characters):\n"
        f"{preview}\n"
        f"{MARKER_CLOSE}"
    )


def is_persisted_marker(content: Any, preview_chars: int = 2_000) -> bool:
    """True when a content looks like a marker of ours and is marker-sized (never trusted as a path)."""
    value = text_of(content) if isinstance(content, (str, list)) else ""
    return (
        value.startswith(MARKER_OPEN)
        and value.endswith(MARKER_CLOSE)
        and len(value) <= preview_chars + MARKER_OVERHEAD
    )


def result_chars(block: dict) -> int:
    """The size of a tool_result as the budget counts it: characters of its text."""
    content = block.get("content", "")
    return len(text_of(content)) if isinstance(content, (str, list)) else 0


def tool_result_budget(
    messages: list[dict],
    *,
    max_chars: int = 200_000,
    store: OutputStore,
    preview_chars: int = 2_000,
    on_event: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Persist the largest tool results of the newest user message until the rest fits max_chars."""
    _check_params(messages, max_chars, store, preview_chars)
    newest = _newest_user_index(messages)
    out = list(messages)
    if newest is None or not isinstance(messages[newest].get("content"), list):
        return out
    content = list(messages[newest]["content"])
    # block index -> size in characters, for the tool results of the newest user message
    sizes = {
        j: result_chars(b)
        for j, b in enumerate(content)
        if isinstance(b, dict) and b.get("type") == "tool_result"
    }
    total = sum(sizes.values())
    if total <= max_chars:
        return out
    for j in sorted(sizes, key=lambda k: (-sizes[k], k)):  # largest first, ties in order
        if total <= max_chars:
            break
        block = content[j]
        if sizes[j] <= preview_chars + MARKER_OVERHEAD:
            break  # a marker would not be smaller than what it replaces
        try:
            path = store.save(block.get("tool_use_id"), block.get("content", ""))
        except (OSError, ValueError, TypeError) as exc:
            _emit(on_event, "persist_failed", block, sizes[j], error=f"{type(exc).__name__}: {exc}")
            continue
        text = text_of(block["content"])
        marker = persisted_marker(store.display(path), sizes[j], text[:preview_chars])
        content[j] = {**block, "content": _with_kept_blocks(marker, block["content"])}
        total += len(marker) - sizes[j]
        _emit(on_event, "persisted", block, sizes[j], path=store.display(path))
    out[newest] = {**messages[newest], "content": content}
    return out


def _with_kept_blocks(marker: str, content: str | list) -> str | list:
    """The marker alone, or the marker followed by the non-text blocks the store did not write."""
    kept = (
        [b for b in content if isinstance(b, dict) and b.get("type") != "text"]
        if isinstance(content, list)
        else []
    )
    return [{"type": "text", "text": marker}, *kept] if kept else marker


def _emit(on_event, kind: str, block: dict, chars: int, **extra: Any) -> None:
    if on_event is not None:
        on_event(
            {
                "layer": "budget",
                "kind": kind,
                "tool_use_id": block.get("tool_use_id"),
                "chars": chars,
                **extra,
            }
        )


def _newest_user_index(messages: list[dict]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], dict) and messages[i].get("role") == "user":
            return i
    return None


def _check_params(messages: Any, max_chars: Any, store: Any, preview_chars: Any) -> None:
    if not isinstance(messages, list):
        raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
    for name, value in (("max_chars", max_chars), ("preview_chars", preview_chars)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if not (hasattr(store, "save") and hasattr(store, "display")):
        raise TypeError(f"store must be an OutputStore, not {type(store).__name__}")
