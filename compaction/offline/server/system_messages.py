"""Mid-conversation ``role: "system"`` messages and turn-scoped ones (``clear_at``), as the API reads them.

What the sources say. The SDK types the message (``anthropic/types/beta/beta_system_message_param.py``,
``BetaSystemMessageParam``: ``role`` "system", ``content`` a string or ``text``, ``tool_addition`` and
``tool_removal`` blocks, ``clear_at`` "next_user_message" | "never", ``output_config``). The page
https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages says where one may
stand (``compaction.core.messages.validate(..., system_messages=True)`` holds that rule) and how
``clear_at`` behaves: ``"never"`` (the default, "Omitting the field is identical") renders the message on
every request; a turn-scoped one (``"next_user_message"``) "renders only while no `role: "user"` message
comes after it in `messages`. A user message that carries only `tool_result` blocks counts [...] Once a
later user message exists, the message is cleared: it stays in the array but renders nothing and costs no
input tokens" (``rendered``). It needs the beta header ``mid-conversation-system-clear-at-2026-08-21``
("Without it, `clear_at` is rejected as an unknown field"); it carries text only, no ``output_config`` and
no ``cache_control``; "The top-level automatic caching field skips turn-scoped messages when it picks a
breakpoint" (``usage``). The page lists the validation errors word for word, and they are the ones below.
Plain mid-conversation system messages need no beta header. Models: the page and Claude Sonnet 5.5's "What's
new" page (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5, "Feature support")
name the models that have them, Claude Sonnet 5.5 among them, and say Claude Sonnet 5 does not; of the
course's models table only Claude Sonnet 5.5 is named, so a request naming another row of it is refused (a
name outside the table behaves as the default model, as everywhere on the server). Compaction:
"Mid-conversation system messages inside the summarized turns are summarized too, so their text instructions
stop applying after the swap"
(https://platform.claude.com/docs/en/build-with-claude/compaction-thinking-blocks); the offline summarizer
quotes only the user's and the agent's words, so what a summary keeps of one is nothing.

Refused by name, because the offline model does not emulate it: ``output_config`` on a system message
(per-message effort, beta ``mid-conversation-output-config-2026-07-01``: the offline model has no effort),
and so the effort-only message with empty content that the page accepts anywhere.
"""

from __future__ import annotations

from typing import Any

from compaction.core.messages import blocks, text_of
from compaction.core.models import model as model_row
from compaction.offline.server.errors import RequestError

BETA_CLEAR_AT = "mid-conversation-system-clear-at-2026-08-21"
TURN_SCOPED = "next_user_message"
CLEAR_AT = ("next_user_message", "never")
FIELDS = frozenset({"role", "content", "clear_at", "output_config"})
BLOCKS = frozenset({"text", "tool_addition", "tool_removal"})
AVAILABLE = frozenset({"claude-sonnet-5-5"})  # rows of compaction.core.models the pages name
SCOPED = "(clear_at: 'next_user_message')"


def is_system(message: Any) -> bool:
    """True for a ``role: "system"`` message."""
    return isinstance(message, dict) and message.get("role") == "system"


def is_turn_scoped(message: Any) -> bool:
    """True for a system message with ``clear_at: "next_user_message"``."""
    return is_system(message) and message.get("clear_at") == TURN_SCOPED


def check(messages: Any, betas: set[str], model: str) -> None:
    """Refuse what the API refuses in a request's system messages and ``clear_at`` fields, in its words."""
    if not isinstance(messages, list):
        return
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        if "clear_at" in message:
            _check_clear_at(i, message, betas)
        if is_system(message):
            _check_system(i, message, model)


def _check_clear_at(i: int, message: dict, betas: set[str]) -> None:
    if BETA_CLEAR_AT not in betas:
        raise RequestError(f"messages.{i}.clear_at: Extra inputs are not permitted")
    if not is_system(message):
        raise RequestError(f"messages.{i}.clear_at: clear_at is only permitted on role 'system' messages")
    if message["clear_at"] is not None and message["clear_at"] not in CLEAR_AT:
        raise RequestError(f"messages.{i}.clear_at: Input should be 'next_user_message' or 'never'")


def _check_system(i: int, message: dict, model: str) -> None:
    row = model_row(model)
    if row is not None and row.id not in AVAILABLE:
        raise RequestError(
            f"messages.{i}: mid-conversation system messages are not available on {model}; "
            "use the top-level `system` field"
        )
    for name in message:
        if name not in FIELDS:
            raise RequestError(f"messages.{i}.{name}: Extra inputs are not permitted")
    scoped = is_turn_scoped(message)
    if "output_config" in message:
        if scoped:
            raise RequestError(
                f"messages.{i}: output_config is not permitted on a turn-scoped system message {SCOPED}"
            )
        raise RequestError(
            f"messages.{i}.output_config: per-message effort (`mid-conversation-output-config-2026-07-01`) "
            "is not emulated by the offline model; send the system message without `output_config`"
        )
    content = message.get("content")
    if not isinstance(content, (str, list)):
        return  # validate() names it
    for j, block in enumerate(content if isinstance(content, list) else []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("tool_use", "tool_result") or kind == "compaction" or not isinstance(kind, str):
            continue  # validate() and compaction_blocks name these
        if kind not in BLOCKS:
            raise RequestError(
                f"messages.{i}.content.{j}: Input tag '{kind}' found using 'type' does not match any of the "
                "expected tags: 'text', 'tool_addition', 'tool_removal'"
            )
        if scoped and kind != "text":
            raise RequestError(
                f"messages.{i}: a turn-scoped system message supports text blocks only {SCOPED}"
            )
        if scoped and "cache_control" in block:
            raise RequestError(
                f"messages.{i}.content.{j}: cache_control is not permitted on a turn-scoped system message "
                f"{SCOPED}"
            )


def rendered(messages: list) -> list:
    """The messages as the model sees them: turn-scoped system messages a user message follows left out."""
    out: list = []
    later_user = False
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            later_user = True
        if later_user and is_turn_scoped(message):
            continue
        out.append(message)
    return out[::-1]


def instructions(messages: list) -> list[str]:
    """The text of every system message in ``messages`` (as rendered), in order."""
    return [text_of([b for b in blocks(m) if b.get("type") == "text"]) for m in messages if is_system(m)]
