"""tool_result_budget: move the largest tool results of the newest user message to disk.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from compaction.core.events import CompactionEvent
from compaction.core.guards import message_list, whole
from compaction.core.messages import result_chars, text_of
from compaction.core.placeholders import MARKER_OVERHEAD, is_persisted_marker, persisted_marker  # noqa: F401
from compaction.core.store import OutputStore
from compaction.layers.layer import Layer, Shared, takes


def tool_result_budget(
    messages: list[dict],
    *,
    max_chars: int = 200_000,
    store: OutputStore,
    preview_chars: int = 2_000,
    on_event: Callable[[CompactionEvent], None] | None = None,
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
            why = f"{sizes[j]:,} characters kept: {type(exc).__name__}: {exc}"
            _emit(on_event, "budget_failed", block, why)
            continue
        text = text_of(block["content"])
        marker = persisted_marker(store.display(path), sizes[j], text[:preview_chars])
        content[j] = {**block, "content": _with_kept_blocks(marker, block["content"])}
        total += len(marker) - sizes[j]
        _emit(on_event, "budget", block, f"{sizes[j]:,} characters persisted", saved_to=store.display(path))
    out[newest] = {**messages[newest], "content": content}
    return out


def newest_results_chars(messages: Sequence[dict]) -> int:
    """Characters in the tool results of the newest user message: what the budget compares."""
    newest = _newest_user_index(list(messages))
    content = messages[newest].get("content") if newest is not None else None
    if not isinstance(content, list):
        return 0
    return sum(result_chars(b) for b in content if isinstance(b, dict) and b.get("type") == "tool_result")


@dataclass(frozen=True, repr=False)
class Budget(Layer):
    """The newest tool results over ``max_chars`` characters: the largest go to the pipeline's store."""

    name: ClassVar[str] = "budget"
    transcript_first: ClassVar[bool] = False  # what it moves out is in the store, not lost
    max_chars: int = 200_000
    run: Callable[..., list[dict]] = tool_result_budget

    def __post_init__(self) -> None:
        whole("max_chars", self.max_chars)  # said when the list is built, not when the layer first fires

    def idle(self, messages: Sequence[dict], shared: Shared) -> str | None:
        """Not triggered while the newest tool results hold ``max_chars`` characters or fewer."""
        chars = newest_results_chars(messages)
        if chars <= self.max_chars:
            return (
                f"not triggered: the newest tool results hold {chars:,} characters, "
                f"max_chars is {self.max_chars:,}"
            )
        return None

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        """``run(messages, max_chars=..., store=...)``; ``on_event`` too when ``run`` takes it."""
        if shared.store is None:
            raise ValueError("the Budget layer needs a Compactor with a store")
        options: dict[str, Any] = {"max_chars": self.max_chars, "store": shared.store}
        if takes(self.run, "on_event"):  # a failed write is heard; chapter 03's budget has no such argument

            def on_event(event: CompactionEvent) -> None:
                if event.kind == "budget_failed":  # the result stays in the list; the pipeline says why
                    shared.record(event)

            options["on_event"] = on_event
        return self.run(messages, **options)

    def why_idle(self, messages: Sequence[dict], shared: Shared) -> str:
        """Its trigger, or: triggered, but no result was large enough to leave a smaller marker."""
        chars = newest_results_chars(messages)
        return self.idle(messages, shared) or (
            f"triggered ({chars:,} characters > {self.max_chars:,}), "
            "but no single result was worth moving to disk"
        )


def _with_kept_blocks(marker: str, content: str | list) -> str | list:
    """The marker alone, or the marker followed by the non-text blocks the store did not write."""
    kept = (
        [b for b in content if isinstance(b, dict) and b.get("type") != "text"]
        if isinstance(content, list)
        else []
    )
    return [{"type": "text", "text": marker}, *kept] if kept else marker


def _emit(on_event, layer: str, block: dict, detail: str, saved_to: str = "") -> None:
    if on_event is not None:
        use_id = str(block.get("tool_use_id", ""))
        on_event(CompactionEvent(-1, layer, 0, 0, f"{use_id}: {detail}", saved_to, use_id))


def _newest_user_index(messages: list[dict]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], dict) and messages[i].get("role") == "user":
            return i
    return None


def _check_params(messages: Any, max_chars: Any, store: Any, preview_chars: Any) -> None:
    message_list(messages)
    whole("max_chars", max_chars)
    whole("preview_chars", preview_chars)
    if not (hasattr(store, "save") and hasattr(store, "display")):
        raise TypeError(f"store must be an OutputStore, not {type(store).__name__}")
