"""One request as the API reads it: turns merged, the list checked, the settings parsed.

``checked`` merges consecutive same-role turns as the API does (``turns``), then refuses what the
API refuses, with its wording; the rules of the list itself come from
``compaction.core.messages.validate`` only (with the mid-conversation ``role: "system"`` messages the API
allows: ``system_messages``, ``tool_changes``), the thinking settings and the binding of thinking blocks
sent back from ``thinking``, the ``tool_use`` id pattern from the API's own 400
("messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", seen in
https://github.com/CommandCodeAI/command-code/issues/323), the ``context_management`` shapes from
``context_config``. An error's message index is the index the client sent (``turns``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compaction.core.messages import InvalidConversation, blocks, validate
from compaction.core.models import CLAUDE_MODEL
from compaction.offline.server import compaction_blocks, system_messages, tool_changes
from compaction.offline.server.context_config import COMPACT, Edit, betas_of, course_scale, parse
from compaction.offline.server.errors import RequestError
from compaction.offline.server.fields import check_fields
from compaction.offline.server.on_demand import BETA_ON_DEMAND, opens_with_compaction
from compaction.offline.server.thinking import Binding, Thinking, bind, read_settings
from compaction.offline.server.turns import block_paths, merge_turns

TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")  # the API's pattern, as its 400 quotes it


@dataclass
class Request:
    """One checked request: what was sent, merged as the API merges it, and its settings."""

    messages: list  # merged turns
    origin: list[int]  # merged index -> index as sent
    system: str | None
    system_blocks: list
    tools: list  # the tools rendered up front: those declared without defer_loading
    edits: list[Edit] = field(default_factory=list)
    max_tokens: int = 0
    auto_cache: dict | None = None  # the top-level cache_control, if any
    declared: list = field(default_factory=list)  # every tool of ``tools`` as sent, deferred ones too
    thinking: Thinking = field(default_factory=Thinking)
    binding: Binding = field(default_factory=Binding)
    betas: set[str] = field(default_factory=set)


def system_of(system: Any) -> tuple[str | None, list]:
    """The system prompt as one string (a list of text blocks is joined) and as blocks."""
    if system is None or isinstance(system, str):
        return system, ([{"type": "text", "text": system}] if system else [])
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict)), system
    raise RequestError(f"system: Input should be a valid string or list, not {type(system).__name__}")


def checked(body: Any, headers: Any, *, create: bool) -> Request:
    """The request, turns merged, or a RequestError in the API's wording naming the field."""
    if not isinstance(body, dict):
        raise RequestError("body: Input should be a valid dictionary")
    check_fields(body, create=create)
    for name in ("model", "messages") + (("max_tokens",) if create else ()):
        if name not in body:
            raise RequestError(f"{name}: Field required")
    if create and body.get("stream") is not None and not isinstance(body.get("stream"), bool):
        raise RequestError("stream: Input should be a valid boolean")
    max_tokens = body.get("max_tokens", 0)
    if create and (not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1):
        raise RequestError("max_tokens: Input should be a valid integer greater than or equal to 1")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise RequestError("tools: Input should be a valid list")
    auto = body.get("cache_control")
    if auto is not None and not (isinstance(auto, dict) and auto.get("type") == "ephemeral"):
        raise RequestError("cache_control.type: Input should be 'ephemeral'")
    merged, origin = merge_turns(body["messages"] if isinstance(body["messages"], list) else [])
    betas, model = betas_of(headers), str(body.get("model") or CLAUDE_MODEL)
    compaction_blocks.check(body["messages"], on_demand=BETA_ON_DEMAND in betas, threshold=_compacts(body))
    if create and body.get("compaction") is not None:
        compaction_blocks.check_compaction_request(body["messages"])
    system_messages.check(body["messages"], betas, model)
    tool_changes.check(body["messages"], tools or [], betas)
    # an on-demand compaction block is sent first, in place of what it summarizes (on_demand):
    # the list is judged as if a user turn came before it
    lead = [{"role": "user", "content": "."}] if opens_with_compaction(merged) else []
    try:
        sent = lead + merged if isinstance(body["messages"], list) else body["messages"]
        validate(sent, system_messages=True)
    except InvalidConversation as error:
        if error.index is not None:
            error.index -= len(lead)
        if error.index is not None and 0 <= error.index < len(origin):
            error.index = origin[error.index]
        raise RequestError(error.api_message) from error
    _check_tool_use_ids(body["messages"])
    system, system_blocks = system_of(body.get("system"))
    edits = parse(body.get("context_management"), betas, course_scaled=course_scale(headers), model=model)
    rendered = [t for t in tools or [] if not tool_changes.is_deferred(t)]
    settings = read_settings(body, betas, max_tokens if create else 1 << 30)
    binding = bind(merged, lambda: block_paths(body["messages"], origin), system_blocks, rendered, settings)
    return Request(
        merged, origin, system, system_blocks, rendered, edits, max_tokens or 0, auto,
        list(tools or []), settings, binding, betas,
    )  # fmt: skip


def _compacts(body: dict) -> bool:
    """Whether the request's ``context_management`` carries a ``compact_20260112`` edit."""
    managed = body.get("context_management")
    edits = managed.get("edits") if isinstance(managed, dict) else None
    return isinstance(edits, list) and any(isinstance(e, dict) and e.get("type") == COMPACT for e in edits)


def _check_tool_use_ids(messages: list) -> None:
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message)):
            if block.get("type") == "tool_use" and not TOOL_USE_ID.match(block["id"]):
                raise RequestError(
                    f"messages.{i}.content.{j}.tool_use.id: "
                    f"String should match pattern '{TOOL_USE_ID.pattern}'"
                )
