"""Rows of a message list: what one row says about one message, and its HTML.

A row gives the message's number, its role, the block types with tools named (``text,
tool_use:read_file``; a ``!`` marks a tool result the tool reported as an error), its tokens, a
one-line preview, and the words of any placeholder or marker it holds, in full. Each row opens (an
HTML ``<details>``) onto the message's content, block by block, cut at a few thousand characters,
so a learner reads a placeholder, a marker's path and preview or a summary's sections without
printing the list. Deliberately left out: editing, and any JavaScript of our own.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from compaction.core.messages import blocks, text_of, to_json, tool_names
from compaction.presentation.palette import CHANGES, LINES, ROLES
from compaction.views.widgets.marks import is_summary, placeholder_words
from compaction.views.widgets.measure import Meter

BLOCK_CHARS = 1_500  # characters of one block shown when a row is opened
SUMMARY_CHARS = 6_000  # a summary is read whole, up to this
BAR_PX = 120  # the width of a full bar
FOLD_ROWS = 200  # a fold draws at most this many rows (the first and last halves): notebooks stay small
NOTE = "font:12px monospace;padding:3px 6px;margin:1px 0"
CLIP = "overflow:hidden;text-overflow:ellipsis;white-space:nowrap"
WRAP = "white-space:normal;overflow-wrap:anywhere"  # the kinds column: never cut
FIXED = "flex:none;"
BOLD = "font-weight:bold;white-space:nowrap"  # a column that keeps its width in a narrow pane
LINE = "display:flex;gap:8px;align-items:center;font:12px monospace;padding:1px 4px"


@dataclass(frozen=True)
class Row:
    """What one row shows about one message."""

    index: int  # the message's number in the list it came from
    role: str
    kinds: str  # "text, tool_use:read_file"
    tokens: int
    preview: str
    placeholder: bool  # holds a placeholder, a marker or a summary
    words: tuple[str, ...] = ()  # the placeholders' and markers' own words, or a summary's opening
    content: str = ""  # what opening the row shows


def holds_placeholder(message: dict) -> bool:
    """True when a message holds a snip or micro placeholder, a persisted-output marker or a summary."""
    return bool(placeholder_words(message)) or is_summary(message)


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


def _cut(value: str, limit: int) -> str:
    return value if len(value) <= limit else f"{value[:limit]}\n… {len(value) - limit:,} more characters"


def message_content(message: dict, names: dict[str, str] | None = None) -> str:
    """The message's content as a learner reads it: one paragraph per block, long ones cut."""
    names = names or {}
    if is_summary(message):
        return _cut(
            "\n\n".join(text_of([b]) for b in blocks(message) if b.get("type") == "text"), SUMMARY_CHARS
        )
    parts = []
    for block in blocks(message):
        kind = block.get("type", "?")
        if kind == "text":
            parts.append(f"[text]\n{_cut(str(block.get('text', '')), BLOCK_CHARS)}")
        elif kind == "tool_use":
            args = json.dumps(block.get("input") or {}, ensure_ascii=False, indent=1)
            parts.append(
                f"[tool_use {block.get('name', '?')} {block.get('id', '')}]\n{_cut(args, BLOCK_CHARS)}"
            )
        elif kind == "tool_result":
            error = " error" if block.get("is_error") else ""
            name = names.get(block.get("tool_use_id"), "?")
            content = block.get("content", "")
            value = text_of(content) if isinstance(content, (str, list)) else str(content)
            parts.append(f"[tool_result of {name}{error}]\n{_cut(value, BLOCK_CHARS)}")
        elif kind in ("thinking", "redacted_thinking"):
            parts.append(
                f"[{kind}]\n{_cut(str(block.get('thinking') or block.get('data') or ''), BLOCK_CHARS)}"
            )
        else:
            parts.append(f"[{kind}]")
    return "\n\n".join(parts)


def _preview(message: dict, width: int = 90) -> str:
    """The words of a message in the order of its blocks: results that come first are shown first."""
    parts = [
        text_of([b])
        if b.get("type") == "text"
        else text_of(b.get("content"))
        if b.get("type") == "tool_result" and isinstance(b.get("content"), (str, list))
        else ""
        for b in blocks(message)
    ]
    parts = [p for p in parts if p.strip()] or [
        f"{b.get('name')}({to_json(b.get('input') or {})})" for b in blocks(message) if b.get("name")
    ]
    flat = " ".join(" ".join(parts).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def message_row(index: int, message: dict, meter: Meter, names: dict[str, str]) -> Row:
    """The Row of one message; ``index`` is its number in the list it came from."""
    words = tuple(placeholder_words(message))
    if is_summary(message):
        words = (text_of([b for b in blocks(message) if b.get("type") == "text"][:1]).split("\n\n")[0],)
    return Row(
        index,
        str(message.get("role")),
        block_kinds(message, names),
        meter.tokens(message),
        _preview(message),
        bool(words),
        words,
        message_content(message, names),
    )


def message_rows(messages: Sequence[dict], method: str = "tiktoken", meter: Meter | None = None) -> list[Row]:
    """One Row per message, tokens counted with ``method`` (cl100k by default)."""
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
    meter = meter or Meter(method)
    names = tool_names(messages)
    return [message_row(i, m, meter, names) for i, m in enumerate(messages)]


def bar(tokens: int, scale: int, color: str, *, faded: bool = False) -> str:
    """A bar ``tokens / scale`` of the full width (at least 1px for a message with any tokens)."""
    width = 0 if not scale else max(1 if tokens else 0, round(BAR_PX * tokens / scale))
    fade = "opacity:0.35;" if faded else ""
    return (
        f"<span class='compaction-bar' style='display:block;height:5px;width:{width}px;"
        f"background:{color};{fade}margin:1px 0'></span>"
    )


def row_html(
    row: Row,
    scale: int,
    *,
    number: str | None = None,
    before: int | None = None,
    mark: str = "",
) -> str:
    """One row as a ``<details>``: the line, the placeholder's words, and the content when opened.

    ``before`` (tokens the message had before the pass) draws a faded bar under the new one and
    ``before -> after`` as the count; ``mark`` is ``changed`` or ``added`` (the row's highlight).
    """
    color = ROLES.get(row.role, ROLES["other"])
    classes = "compaction-row" + (" compaction-placeholder" if row.placeholder else "")
    classes += f" compaction-{mark}" if mark else ""
    background = f"background:{CHANGES[mark]};" if mark else ""
    bars = (bar(before, scale, color, faded=True) if before is not None else "") + bar(
        row.tokens, scale, color
    )
    count = f"{before:,} → {row.tokens:,}" if before is not None else f"{row.tokens:,}"
    words = "".join(
        f"<div class='compaction-words' style='font:12px monospace;white-space:pre-wrap;padding:0 4px 2px "
        f"5.5em;color:{LINES['tokens']}'>{html.escape(_cut(w, 600))}</div>"
        for w in row.words
    )
    return (
        f"<details class='{classes}' style='{background}margin:0'>"
        "<summary style='display:block;list-style:none;cursor:pointer'>"
        f"<div style='{LINE}'>"
        f"<span style='{FIXED}width:3.5em;text-align:right'>{html.escape(number or str(row.index))}</span>"
        f"<span style='{FIXED}width:7.5em;color:{color};{BOLD}'>▸ {row.role}</span>"
        f"<span style='{FIXED}width:{BAR_PX + 4}px'>{bars}</span>"
        f"<span style='{FIXED}width:8.5em;text-align:right'>{count}</span>"
        f"<span style='{FIXED}width:20em;{WRAP}'>{html.escape(row.kinds)}</span>"
        f"<span style='flex:1;min-width:0;color:{LINES['muted']};{CLIP}'>{html.escape(row.preview)}</span>"
        f"</div>{words}</summary>"
        f"<pre class='compaction-content' style='font:12px monospace;white-space:pre-wrap;margin:2px 0 6px "
        f"5.5em;padding:4px;border-left:3px solid {color}'>{html.escape(row.content)}</pre>"
        "</details>"
    )


def fold_html(label: str, items: Sequence, draw: Callable[[Any], str]) -> str:
    """A fold that opens on a click; past ``FOLD_ROWS`` items only the first and last halves are drawn."""
    half = FOLD_ROWS // 2
    if len(items) <= FOLD_ROWS:
        body = "".join(draw(x) for x in items)
    else:
        skipped = f"<div style='{NOTE}'>… {len(items) - FOLD_ROWS:,} more messages not drawn</div>"
        body = "".join(draw(x) for x in items[:half]) + skipped + "".join(draw(x) for x in items[-half:])
    return (
        f"<details class='compaction-collapsed' style='background:{CHANGES['collapsed']};margin:1px 0'>"
        f"<summary style='{NOTE};cursor:pointer;color:{LINES['muted']}'>{html.escape(label)}</summary>"
        f"{body}</details>"
    )
