"""Plain lists of chat messages: the Anthropic Messages API shape or the OpenAI chat shape.

Anthropic: ``[{"role": "user"|"assistant", "content": str | [blocks]}]``, or a request body
``{"system": ..., "messages": [...]}``. OpenAI chat: ``system``/``developer`` messages (kept as the
system text), ``assistant`` messages with ``tool_calls`` (``function.arguments`` is a JSON string),
``tool`` messages answering them by ``tool_call_id``, and content as a string or a list of parts;
the legacy ``function_call``/``function`` pair too. Either may be a JSON array, an object with a
``messages`` list, or JSON Lines with one message per line. ``openai_to_raw`` also serves
mini-swe-agent, whose messages are in the OpenAI shape. Deliberately left out: audio parts and
``refusal`` parts (reported as unsupported blocks).
"""

from __future__ import annotations

from typing import Any

from compaction.core.messages import text, tool_result, tool_use
from compaction.importers.lines import json_records, line_losses, text_lines
from compaction.importers.nesting import loads
from compaction.importers.problems import NotASession, Problem
from compaction.importers.session import ImportedSession, imported
from compaction.importers.source import Source

OPENAI_ROLES = ("system", "developer", "tool", "function")
OPENAI_PARTS = ("image_url", "input_text", "input_image", "refusal")


def is_openai(messages: list) -> bool:
    """True when a message list uses the OpenAI chat shape (a role, key or part only it has)."""
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") in OPENAI_ROLES or "tool_calls" in m or "tool_call_id" in m or "function_call" in m:
            return True
        content = m.get("content")
        if isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") in OPENAI_PARTS for p in content
        ):
            return True
    return False


def detect(source: Source) -> bool:
    """True for chat messages: JSON Lines of ``{"role": ...}``, a list of them, or ``{"messages": [...]}``."""
    data = source.as_document()
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return True
    if isinstance(data, list):
        return bool(data) and all(isinstance(m, dict) and "role" in m for m in data)
    return source.shape == "lines" and any(
        isinstance(r, dict) and isinstance(r.get("role"), str) for r in source.head
    )


def read(source: Source) -> list[ImportedSession]:
    """A chat list in whichever of the two shapes it uses."""
    return [_read(source, None)]


def read_anthropic(source: Source) -> list[ImportedSession]:
    """A chat list read as the Anthropic shape, whatever it looks like."""
    return [_read(source, "anthropic")]


def read_openai(source: Source) -> list[ImportedSession]:
    """A chat list read as the OpenAI chat shape, whatever it looks like."""
    return [_read(source, "openai")]


def _read(source: Source, shape: str | None) -> ImportedSession:
    """(where, message) items from JSON Lines or a document, read in ``shape`` (None: told by content)."""
    file, problems, system = source.name, [], ""
    if source.shape == "lines" and source.as_document() is None:
        lines = text_lines(source.path, file, problems)
        items = [(f"line {n}", record) for n, record in json_records(lines, file, problems)]
        records = len(items) + line_losses(problems)
    else:
        data = source.document()
        if isinstance(data, dict):
            system = data.get("system") if isinstance(data.get("system"), str) else ""
            data = data.get("messages")
        if not isinstance(data, list):
            raise NotASession(file, "a chat list needs a list of messages")
        items = [(f"messages[{i}]", m) for i, m in enumerate(data)]
        records = len(items)
    messages = [m for _, m in items]
    if shape == "openai" or (shape is None and is_openai(messages)):
        raw, extra = openai_to_raw(items, file, problems)
        fmt = "openai-chat"
    else:
        raw, extra, fmt = anthropic_to_raw(items, file, problems), "", "anthropic-messages"
    system_records = sum(
        1 for m in messages if isinstance(m, dict) and m.get("role") in ("system", "developer")
    )
    return imported(
        raw,
        file=file,
        format=fmt,
        problems=problems,
        records=records,
        system_records=system_records if fmt == "openai-chat" else 0,
        system="\n\n".join(filter(None, [system, extra])),
    )


def anthropic_to_raw(items: list[tuple[str, Any]], file: str, problems: list[Problem]) -> list[dict]:
    """Messages already in the API shape, with the unreadable ones reported."""
    raw = []
    for where, m in items:
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            role = m.get("role") if isinstance(m, dict) else None
            problems.append(
                Problem(file, where, "malformed_record", f"not a user or assistant message ({role!r})")
            )
            continue
        raw.append({"role": m["role"], "content": m.get("content"), "where": where})
    return raw


def openai_to_raw(items: list[tuple[str, Any]], file: str, problems: list[Problem]) -> tuple[list[dict], str]:
    """OpenAI chat messages as raw API-shaped messages, and the system text."""
    raw: list[dict] = []
    system: list[str] = []
    last_function: str | None = None  # id given to the latest legacy function_call
    for where, m in items:
        role = m.get("role") if isinstance(m, dict) else None
        if role in ("system", "developer"):
            system.append(_text(m.get("content")))
        elif role == "user":
            raw.append(
                {"role": "user", "content": _parts(m.get("content"), where, file, problems), "where": where}
            )
        elif role == "assistant":
            content = _parts(m.get("content"), where, file, problems)
            for call in m.get("tool_calls") or []:
                content.append(openai_call(call))
            if isinstance(m.get("function_call"), dict):
                last_function = f"function_{len(raw)}"
                content.append(openai_call({"id": last_function, "function": m["function_call"]}))
            raw.append({"role": "assistant", "content": content, "where": where})
        elif role == "tool":
            call_id = str(m.get("tool_call_id") or "")
            result = tool_result(call_id, _text(m.get("content")))
            raw.append({"role": "user", "content": [result], "where": where})
        elif role == "function" and last_function:
            raw.append(
                {
                    "role": "user",
                    "content": [tool_result(last_function, _text(m.get("content")))],
                    "where": where,
                }
            )
            last_function = None
        else:
            problems.append(Problem(file, where, "malformed_record", f"a message with role {role!r}"))
    return raw, "\n\n".join(s for s in system if s)


def openai_call(call: dict) -> dict:
    """An OpenAI `tool_calls` entry (`function.arguments` a JSON string) as a tool_use block."""
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    arguments = function.get("arguments")
    try:
        args = loads(arguments) if isinstance(arguments, str) else arguments or {}
    except ValueError:  # not JSON, or nested too deep
        args = {"arguments": arguments}
    name = str(function.get("name") or call.get("name") or "tool")
    return tool_use(
        str(call.get("id") or "call"), name, args if isinstance(args, dict) else {"arguments": args}
    )


def _parts(content: Any, where: str, file: str, problems: list[Problem]) -> list:
    """OpenAI content (a string, None, or parts) as Messages API blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [text(content)] if content.strip() else []
    blocks = []
    for part in content if isinstance(content, list) else [content]:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("text", "input_text") and isinstance(part.get("text"), str):
            if part["text"].strip():
                blocks.append(text(part["text"]))
        elif kind == "image_url" and isinstance(part.get("image_url"), dict):
            blocks.append(
                {"type": "image", "source": {"type": "url", "url": str(part["image_url"].get("url"))}}
            )
        else:
            problems.append(Problem(file, where, "unsupported_block", f"a {kind!r} part was dropped"))
    return blocks


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)
