"""The ``context_management`` parameter, read and checked the way the API reads it.

The shapes are the SDK's (``anthropic/types/beta/beta_context_management_config_param.py`` and
the edit types it names); the defaults are the documentation's: ``clear_tool_uses_20250919``
triggers at 100,000 input tokens and keeps 3 tool uses
(https://platform.claude.com/docs/en/build-with-claude/context-editing), ``clear_thinking_20251015``
keeps the thinking of all turns or of the last one, by model (same page; the models table's
``thinking_kept``), ``compact_20260112`` triggers at
150,000 input tokens (the SDK's docstring of ``trigger``;
https://platform.claude.com/docs/en/build-with-claude/compaction-threshold, the page the
compaction page's threshold rules moved to), and "`value` must be at least
50,000 tokens" (same page). A wrong shape is a 400 that names the field in pydantic's words
(``context_management.edits.0.keep.value: Input should be a valid integer``), the form the API uses
for its other field errors; a compaction trigger under the minimum gets the API's own wording,
``context_management.edits.0.compact_20260112: trigger.value must be at least 50000`` (quoted in
https://github.com/LionSR/TeXRA/pull/2625); the exact texts for the beta header and the unknown tag
are the server's own. The course scales its windows down to a few thousand tokens, so the server
has an option of its own that the real API does not: with ``x-compaction-course-scale: on`` a
compaction trigger needs only to be positive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compaction.core.models import CLAUDE_MODEL, behaves_as
from compaction.offline.server.errors import RequestError

BETA_CONTEXT = "context-management-2025-06-27"
BETA_COMPACT = "compact-2026-01-12"
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
BETA_OF = {CLEAR_TOOL_USES: BETA_CONTEXT, CLEAR_THINKING: BETA_CONTEXT, COMPACT: BETA_COMPACT}
COMPACT_MIN_TRIGGER = 50_000  # compaction at a token threshold: "`value` must be at least 50,000 tokens"
HEADER_COURSE_SCALE = "x-compaction-course-scale"  # the offline server's own: triggers under the minimum


@dataclass(frozen=True)
class ClearToolUses:
    """``clear_tool_uses_20250919``: trigger (kind, value), keep, clear_at_least, exclusions, inputs."""

    trigger: tuple[str, int] = ("input_tokens", 100_000)  # ("input_tokens" | "tool_uses", value)
    keep: int = 3
    clear_at_least: int = 0
    exclude_tools: tuple[str, ...] = ()
    clear_tool_inputs: bool | tuple[str, ...] = False  # True, False, or the tools whose inputs go
    type: str = CLEAR_TOOL_USES


@dataclass(frozen=True)
class ClearThinking:
    """``clear_thinking_20251015``: keep the thinking of the last ``keep`` turns (None: all)."""

    keep: int | None = 1  # the request's model's default when the edit gives none (``parse``)
    type: str = CLEAR_THINKING


@dataclass(frozen=True)
class Compact:
    """``compact_20260112``: summarize when the input reaches ``trigger``; maybe pause after."""

    trigger: int = 150_000
    instructions: str | None = None
    pause_after_compaction: bool = False
    type: str = COMPACT


Edit = ClearToolUses | ClearThinking | Compact


def betas_of(headers: Any) -> set[str]:
    """The beta names a request carries in its ``anthropic-beta`` header."""
    return {b.strip() for b in (headers.get("anthropic-beta") or "").split(",") if b.strip()}


def course_scale(headers: Any) -> bool:
    """True when the client asked for the course scale: the offline server's invention, not the real API's."""
    return str(headers.get(HEADER_COURSE_SCALE, "") or "").lower() == "on"


def parse(
    value: Any, betas: set[str], *, course_scaled: bool = False, model: str = CLAUDE_MODEL
) -> list[Edit]:
    """The edits of a ``context_management`` value, or a RequestError naming the wrong field."""
    where = "context_management"
    if value is None:
        return []
    _fields(value, where, {"edits"})
    edits = value.get("edits", [])
    if not isinstance(edits, list):
        raise RequestError(f"{where}.edits: Input should be a valid list")
    thinking_kept = behaves_as(model).thinking_kept
    parsed = [_edit(edit, f"{where}.edits.{i}", thinking_kept) for i, edit in enumerate(edits)]
    for i, edit in enumerate(parsed):
        if isinstance(edit, Compact) and edit.trigger < COMPACT_MIN_TRIGGER and not course_scaled:
            raise RequestError(
                f"{where}.edits.{i}.{COMPACT}: trigger.value must be at least {COMPACT_MIN_TRIGGER}"
            )
    for i, edit in enumerate(parsed):
        if BETA_OF[edit.type] not in betas:
            raise RequestError(
                f"{where}.edits.{i}.type: '{edit.type}' requires the beta header "
                f"`anthropic-beta: {BETA_OF[edit.type]}`"
            )
    if sum(isinstance(e, Compact) for e in parsed) > 1:
        raise RequestError(f"{where}.edits: at most one '{COMPACT}' edit may be given")
    return parsed


def _edit(edit: Any, where: str, thinking_kept: int | None) -> Edit:
    if not isinstance(edit, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    kind = edit.get("type")
    if kind == CLEAR_TOOL_USES:
        return _clear_tool_uses(edit, where)
    if kind == CLEAR_THINKING:
        _fields(edit, where, {"type", "keep"})
        if "keep" not in edit:
            return ClearThinking(keep=thinking_kept)
        keep = edit["keep"]
        if keep == "all":
            return ClearThinking(keep=None)
        if isinstance(keep, dict) and keep.get("type") == "all":
            _fields(keep, f"{where}.keep", {"type"})
            return ClearThinking(keep=None)
        return ClearThinking(keep=_count(keep, f"{where}.keep", "thinking_turns", minimum=0))
    if kind == COMPACT:
        _fields(edit, where, {"type", "trigger", "instructions", "pause_after_compaction"})
        trigger = edit.get("trigger")
        instructions = edit.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise RequestError(f"{where}.instructions: Input should be a valid string")
        pause = edit.get("pause_after_compaction", False)
        if not isinstance(pause, bool):
            raise RequestError(f"{where}.pause_after_compaction: Input should be a valid boolean")
        value = 150_000 if trigger is None else _count(trigger, f"{where}.trigger", "input_tokens", minimum=1)
        return Compact(trigger=value, instructions=instructions or None, pause_after_compaction=pause)
    tags = ", ".join(f"'{t}'" for t in BETA_OF)
    if kind is None:
        raise RequestError(f"{where}: Unable to extract tag using discriminator 'type'")
    raise RequestError(
        f"{where}: Input tag '{kind}' found using 'type' does not match any of the expected tags: {tags}"
    )


def _clear_tool_uses(edit: dict, where: str) -> ClearToolUses:
    _fields(edit, where, {"type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"})
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100_000}
    if not isinstance(trigger, dict):
        raise RequestError(f"{where}.trigger: Input should be a valid dictionary")
    if trigger.get("type") not in ("input_tokens", "tool_uses"):
        raise RequestError(
            f"{where}.trigger.type: Input should be 'input_tokens' or 'tool_uses', "
            f"not {trigger.get('type')!r}"
        )
    kind = trigger["type"]
    keep = edit.get("keep") or {"type": "tool_uses", "value": 3}
    least = edit.get("clear_at_least")
    inputs = edit.get("clear_tool_inputs", False)
    if inputs is None:
        inputs = False
    if not isinstance(inputs, bool):
        inputs = _names(inputs, f"{where}.clear_tool_inputs")
    return ClearToolUses(
        trigger=(kind, _count(trigger, f"{where}.trigger", kind, minimum=1)),
        keep=_count(keep, f"{where}.keep", "tool_uses", minimum=0),
        clear_at_least=0
        if least is None
        else _count(least, f"{where}.clear_at_least", "input_tokens", minimum=0),
        exclude_tools=_names(edit.get("exclude_tools") or [], f"{where}.exclude_tools"),
        clear_tool_inputs=inputs,
    )


def _count(value: Any, where: str, kind: str, *, minimum: int) -> int:
    """The ``value`` of a ``{"type": kind, "value": n}`` object."""
    if not isinstance(value, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    _fields(value, where, {"type", "value"})
    if value.get("type") != kind:
        raise RequestError(f"{where}.type: Input should be '{kind}'")
    if "value" not in value:
        raise RequestError(f"{where}.value: Field required")
    n = value["value"]
    if not isinstance(n, int) or isinstance(n, bool):
        raise RequestError(f"{where}.value: Input should be a valid integer")
    if n < minimum:
        raise RequestError(f"{where}.value: Input should be greater than or equal to {minimum}")
    return n


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise RequestError(f"{where}: Input should be a valid list")
    for i, name in enumerate(value):
        if not isinstance(name, str):
            raise RequestError(f"{where}.{i}: Input should be a valid string")
    return tuple(value)


def _fields(value: Any, where: str, allowed: set[str]) -> None:
    if not isinstance(value, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    for name in value:
        if name not in allowed:
            raise RequestError(f"{where}.{name}: Extra inputs are not permitted")
