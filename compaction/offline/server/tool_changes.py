"""Mid-conversation tool changes: ``tool_addition`` and ``tool_removal`` blocks in a system message.

What the sources say. The SDK types the blocks
(``anthropic/types/beta/beta_request_tool_addition_block_param.py`` and
``beta_request_tool_removal_block_param.py``: a ``tool`` that is a ``tool_reference`` by name, an MCP
reference, or, for an addition, a ``tool_definition`` carrying a ``tools`` entry; optional
``cache_control``). The page
https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages says what they do:
"declare the full tool set in `tools` up front, then use `tool_addition` and `tool_removal` blocks to offer
a tool to the model, or withdraw it, from a specific point in the conversation onward. The `tools` array
itself never changes, so the cached prefix stays intact"; every tool in ``tools`` is offered from the start
"unless it is declared with `defer_loading: true`, which keeps it withheld until a `tool_addition` block
surfaces it"; a reference to a name not declared "returns a 400 error (on the Claude API, with
`error.details.error_code` set to `tool_reference_unresolved`)"; with ``inline-tools-2026-09-15`` an
addition may define a tool by value, which "replaces the earlier one from that position onward", "Sending an
identical definition again changes nothing", and a definition reusing "the name of a different type of tool
returns a 400 error with `error.details.error_code` set to `tool_name_conflict`. A newer version of the same
tool doesn't count as a different type". Beta headers: ``inline-tools-2026-09-15`` covers both references
and definitions; ``mid-conversation-tool-changes-2026-07-01`` covers references only. "`tool_addition` and
`tool_removal` blocks are not accepted immediately after a paused `assistant` turn (one ending in a server
tool result)". The SDK's tool runner sends its ``add_tools()`` as ``tool_definition`` additions and its
``remove_tools()`` as references (``anthropic/lib/tools/_beta_runner.py``). After a compaction the block's
``tool_changes`` carry the net effect of the compacted range ("the `tool_addition` and `tool_removal` blocks
that take the request's `tools` to the tool set in effect at the end of the range, or `[]` when the range
changed no tool. Absent when the server did not compute them", SDK ``BetaCompactionBlock``); the server
computes them when the request carries ``inline-tools-2026-09-15``, as
https://platform.claude.com/docs/en/build-with-claude/compaction-thinking-blocks says ("Tool changes inside
those turns carry over on their own when the compaction request also carries `inline-tools-2026-09-15`").

The offline server's choices where the sources are silent: the 400s' words other than the error codes; an
addition is counted as the JSON of its block, as sent (a reference to a deferred tool does not add that
tool's definition to the count); a tool name's type family is its ``type`` without the date
(``web_search_20250305`` -> ``web_search``; a custom tool is ``custom``). Refused by name: MCP references
and ``mcp_toolset`` definitions (the offline server has no MCP connector). Deliberately left out: the one
full cache miss the page documents for a ``tools`` array without a non-deferred tool, and the
``available_tools_limit_exceeded`` limits.
"""

from __future__ import annotations

import re
from typing import Any

from compaction.core.messages import blocks
from compaction.offline.server.errors import RequestError

BETA_TOOL_CHANGES = "mid-conversation-tool-changes-2026-07-01"
BETA_INLINE_TOOLS = "inline-tools-2026-09-15"
CHANGES = ("tool_addition", "tool_removal")
FIELDS = frozenset({"type", "tool", "cache_control"})
DATED = re.compile(r"_\d{8}$")


class ToolChangeError(RequestError):
    """A 400 with ``error.details.error_code``: ``tool_reference_unresolved`` or ``tool_name_conflict``."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.details = {"error_code": code}


def family(tool: dict) -> str:
    """A tool's type without its date (``web_search_20250305``: ``web_search``); a custom tool: ``custom``."""
    kind = tool.get("type") or "custom"
    return DATED.sub("", str(kind))


def declared(tools: list) -> dict[str, dict]:
    """The request's ``tools`` by name (a toolset without a name is left out)."""
    return {t["name"]: t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)}


def is_deferred(tool: Any) -> bool:
    """True for a ``tools`` entry declared with ``defer_loading: true``."""
    return isinstance(tool, dict) and tool.get("defer_loading") is True


def check(messages: Any, tools: list, betas: set[str]) -> None:
    """Refuse the request's tool changes as the API does: beta, shape, unresolved names, conflicts, place."""
    if not isinstance(messages, list):
        return
    known = declared(tools)  # name -> the definition in effect, declared or defined earlier
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue  # a string holds no tool change and no compaction block
        for j, block in enumerate(b for b in content if isinstance(b, dict)):
            if block.get("type") == "compaction":
                for change in block.get("tool_changes") or []:  # the compacted range's definitions
                    _learn(change, known)
            if block.get("type") not in CHANGES or message.get("role") != "system":
                continue
            where = f"messages.{i}.content.{j}"
            _check_one(block, where, known, betas)
            if i > 0 and isinstance(messages[i - 1], dict) and messages[i - 1].get("role") == "assistant":
                raise RequestError(
                    f"{where}: `{block['type']}` is not accepted right after a paused `assistant` turn; "
                    "resume the turn first, then send the tool change"
                )
            _learn(block, known)


def _check_one(block: dict, where: str, known: dict[str, dict], betas: set[str]) -> None:
    if not betas & {BETA_TOOL_CHANGES, BETA_INLINE_TOOLS}:
        raise RequestError(
            f"{where}: `{block['type']}` requires the beta header `anthropic-beta: {BETA_INLINE_TOOLS}`"
        )
    for name in block:
        if name not in FIELDS:
            raise RequestError(f"{where}.{name}: Extra inputs are not permitted")
    tool = block.get("tool")
    if not isinstance(tool, dict):
        raise RequestError(
            f"{where}.tool: Field required"
            if tool is None
            else f"{where}.tool: Input should be a valid dictionary"
        )
    kind = tool.get("type")
    if kind in ("mcp_tool_reference", "mcp_toolset_reference"):
        raise RequestError(f"{where}.tool: `{kind}` is not emulated: the offline model has no MCP connector")
    if kind == "tool_definition" and block["type"] == "tool_addition":
        _check_definition(tool, where, known, betas)
        return
    if kind != "tool_reference":
        expected = (
            "'tool_reference', 'tool_definition'" if block["type"] == "tool_addition" else "'tool_reference'"
        )
        raise RequestError(
            f"{where}.tool: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
            + expected
        )
    name = tool.get("name")
    if not isinstance(name, str):
        raise RequestError(f"{where}.tool.name: Input should be a valid string")
    if name not in known:
        raise ToolChangeError(
            f"{where}.tool.name: no tool named '{name}' is declared in `tools` or defined earlier in "
            "`messages`",
            "tool_reference_unresolved",
        )


def _check_definition(tool: dict, where: str, known: dict[str, dict], betas: set[str]) -> None:
    if BETA_INLINE_TOOLS not in betas:
        raise RequestError(
            f"{where}.tool: a `tool_definition` requires the beta header "
            f"`anthropic-beta: {BETA_INLINE_TOOLS}`"
        )
    definition = tool.get("definition")
    if not isinstance(definition, dict) or not isinstance(definition.get("name"), str):
        if isinstance(definition, dict) and definition.get("type") == "mcp_toolset":
            raise RequestError(
                f"{where}.tool.definition: `mcp_toolset` is not emulated: the offline model has no MCP "
                "connector"
            )
        raise RequestError(f"{where}.tool.definition.name: Field required")
    earlier = known.get(definition["name"])
    if earlier is not None and family(earlier) != family(definition):
        raise ToolChangeError(
            f"{where}.tool.definition: '{definition['name']}' is already the name of a tool of another type "
            f"({family(earlier)}); give the tool another name",
            "tool_name_conflict",
        )


def _learn(block: Any, known: dict[str, dict]) -> None:
    """Record the definition an addition carries, so later references to its name resolve."""
    tool = block.get("tool") if isinstance(block, dict) else None
    if (
        block.get("type") == "tool_addition"
        and isinstance(tool, dict)
        and tool.get("type") == "tool_definition"
    ):
        definition = tool.get("definition")
        if isinstance(definition, dict) and isinstance(definition.get("name"), str):
            known[definition["name"]] = definition


def offered(tools: list, messages: list) -> list[dict]:
    """The tools offered to the model after ``messages`` (from the last compaction on): the declared ones
    without ``defer_loading``, changed by the compaction block's ``tool_changes`` and each system message."""
    known = declared(tools)
    now = {name: t for name, t in known.items() if not is_deferred(t)}  # name -> offered definition
    nameless = [t for t in tools if isinstance(t, dict) and not isinstance(t.get("name"), str)]
    for message in messages:
        system = message.get("role") == "system"
        for block in blocks(message):
            changes = (
                block.get("tool_changes") or []
                if block.get("type") == "compaction"
                else [block]
                if system
                else []
            )
            for change in changes:
                _apply(change, known, now)
    return nameless + list(now.values())


def _apply(change: dict, known: dict[str, dict], now: dict[str, dict]) -> None:
    tool = change.get("tool") if isinstance(change, dict) else None
    if not isinstance(tool, dict) or change.get("type") not in CHANGES:
        return
    if tool.get("type") == "tool_definition" and isinstance(tool.get("definition"), dict):
        definition = tool["definition"]
        known[definition["name"]] = definition
        now[definition["name"]] = definition
    elif change["type"] == "tool_addition" and tool.get("name") in known:
        now[tool["name"]] = known[tool["name"]]
    elif change["type"] == "tool_removal":
        now.pop(tool.get("name"), None)


def net_changes(tools: list, messages: list) -> list[dict]:
    """The ``tool_changes`` of a compaction of ``messages``: the additions and removals that take the
    request's ``tools`` to the tools offered at its end (``[]`` when it changed none)."""
    start = {n: t for n, t in declared(tools).items() if not is_deferred(t)}
    end = {t["name"]: t for t in offered(tools, messages) if isinstance(t.get("name"), str)}
    changes: list[dict] = []
    for name, definition in end.items():
        if start.get(name) == definition:
            continue
        if declared(tools).get(name) == definition:
            changes.append({"type": "tool_addition", "tool": {"type": "tool_reference", "name": name}})
        else:
            changes.append(
                {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}}
            )
    for name in start:
        if name not in end:
            changes.append({"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}})
    return changes
