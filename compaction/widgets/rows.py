"""Rows of a message list: what one row says about one message, and its HTML.

A row gives the index, the role, the block types with tools named (``text, tool_use:read_file``,
a ``!`` after an error result), the tokens, a one-line preview, and whether the message holds a snip
or micro placeholder or a persisted-output marker. Deliberately left out: whole block contents.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from compaction import placeholders
from compaction.messages import block_text, blocks, to_json, tool_names
from compaction.placeholders import MARKER_OPEN
from compaction.tokens import message_tokens

ROLE_COLORS = {"user": "#0969da", "assistant": "#8250df"}
CLIP = "overflow:hidden;text-overflow:ellipsis"  # a cell that cuts long text with "…"
FIXED = "flex:none;"  # a column that keeps its width in a narrow pane
ROW_STYLE = "display:flex;gap:8px;align-items:center;font:12px monospace;padding:1px 4px;white-space:nowrap"


@dataclass(frozen=True)
class Row:
    """What one row shows about one message."""

    index: int
    role: str
    kinds: str  # "text, tool_use:read_file"
    tokens: int
    preview: str
    placeholder: bool


def _texts(message: dict) -> list[str]:
    """The texts of a message's text blocks and tool results, in order."""
    return [block_text(b) for b in blocks(message) if b.get("type") in ("text", "tool_result")]


def is_placeholder(message: dict) -> bool:
    """True when a message holds a snip or micro placeholder, a persisted-output marker or a summary."""
    return any(placeholders.is_placeholder(t) or MARKER_OPEN in t for t in _texts(message))


def block_kinds(message: dict, names: dict[str, str] | None = None) -> str:
    """The block types of a message, tools named: ``text, tool_use:bash, tool_result:bash!``."""
    names = names or {}  # tool_use_id -> tool name
    kinds = []
    for block in blocks(message):
        kind = block.get("type", "?")
        if kind == "tool_use":
            kind += f":{block.get('name', '?')}"
        elif kind == "tool_result":
            kind += f":{names.get(block.get('tool_use_id'), '?')}" + ("!" if block.get("is_error") else "")
        kinds.append(kind)
    return ", ".join(kinds)


def _preview(message: dict, width: int = 70) -> str:
    parts = _texts(message) or [
        f"{b.get('name')}({to_json(b.get('input') or {})})" for b in blocks(message) if b.get("name")
    ]
    flat = " ".join(" ".join(parts).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def message_rows(messages: Sequence[dict], method: str = "chars") -> list[Row]:
    """One Row per message, tokens counted with ``method``."""
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
    names = tool_names(messages)
    return [
        Row(
            i,
            str(m.get("role")),
            block_kinds(m, names),
            message_tokens(m, method),
            _preview(m),
            is_placeholder(m),
        )
        for i, m in enumerate(messages)
    ]


def row_html(row: Row, scale: int) -> str:
    """The HTML of one row; ``scale`` is the token count that fills the bar."""
    color = ROLE_COLORS.get(row.role, "#57606a")
    width = 0 if not scale else max(1, round(120 * row.tokens / scale))
    mark = " compaction-placeholder" if row.placeholder else ""
    background = "background:#fff8c5;" if row.placeholder else ""
    return (
        f"<div class='compaction-row{mark}' style='{ROW_STYLE};{background}'>"
        f"<span style='{FIXED}width:3em;text-align:right'>{row.index}</span>"
        f"<span style='{FIXED}width:6.5em;color:{color};font-weight:bold'>{row.role}</span>"
        f"<span style='{FIXED}width:128px'><span class='compaction-bar' style='display:inline-block;"
        f"height:9px;width:{width}px;background:{color}'></span></span>"
        f"<span style='{FIXED}width:5em;text-align:right'>{row.tokens:,}</span>"
        f"<span style='{FIXED}width:16em;{CLIP}'>{html.escape(row.kinds)}</span>"
        f"<span style='flex:1;min-width:0;color:#57606a;{CLIP}'>{html.escape(row.preview)}</span>"
        "</div>"
    )
