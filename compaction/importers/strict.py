"""From loosely ordered API-shaped messages to the strict form ``validate`` accepts, losing nothing.

``normalize`` takes raw messages (``{"role", "content", "where"}``, ``where`` naming the place in
the source file) and: drops empty text and reports blocks the list does not carry; merges
consecutive same-role messages (parallel results arrive as separate records); renames tool-call ids
the API would refuse (repeated ids, characters outside ``[a-zA-Z0-9_-]``, see the API's error
``tool_use.id: String should match pattern`` quoted in maximhq/bifrost#5097) together with their
results; puts each call's result first in the next user message; answers a call with no recorded
result by a marked error result; keeps a result with no call as text. Every repair is a
``Problem``. Deliberately left out: images inside orphan results (their text is kept).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from typing import Any

from compaction.core.messages import text, text_of, tool_result, tool_use, validate
from compaction.importers.problems import Problem

KEPT_BLOCKS = ("text", "tool_use", "tool_result", "image", "document", "thinking", "redacted_thinking")
MISSING_RESULT = "[no result was recorded for this tool call]"
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
STARTS_WITH_ASSISTANT = "[the recorded session starts with an assistant message]"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a str holds a pair as one character: these are halves


def normalize(
    raw: list[dict],
    *,
    file: str = "",
    problems: list[Problem] | None = None,
    marks: dict | None = None,
    used: set | None = None,
) -> list[dict]:
    """Turn raw API-shaped messages into a strict list; repairs go to ``problems`` (see module doc).

    A raw item ``{"mark": key}`` (no role) sets ``marks[key]`` to the index of the first message
    after it in the output: where an earlier compaction sits in the strict list. ``used`` receives
    the ``where`` of every raw message that gave the list a block (the records read as messages).
    """
    found = problems if problems is not None else []
    merged = _merge(raw, file, found)
    if used is not None:
        used.update(w for m in merged for w in m["wheres"] if w)
    if merged and merged[0]["role"] != "user":
        found.append(Problem(file, merged[0]["wheres"][0], "leading_assistant"))
        merged.insert(0, {"role": "user", "content": [text(STARTS_WITH_ASSISTANT)], "wheres": [""]})
    out: list[dict] = []
    seen: set[str] = set()  # tool_use ids given out so far
    pending: dict[str, deque] = {}  # original id -> new ids of the message just before, in order
    pending_where: dict[str, str] = {}  # new id -> where its call was
    for message in merged:
        for key in message.get("marks", ()):
            if marks is not None:
                marks[key] = len(out)
        if message["role"] == "assistant":
            content, pending, pending_where = _calls(message, seen, file, found)
            out.append({"role": "assistant", "content": content or [text("(no content)")]})
        else:
            out.append({"role": "user", "content": _answer(message, pending, pending_where, file, found)})
            pending, pending_where = {}, {}
    if pending:
        out.append({"role": "user", "content": _answer(None, pending, pending_where, file, found)})
    validate(out)
    return out


def _merge(raw: list[dict], file: str, found: list[Problem]) -> list[dict]:
    """Clean blocks and merge consecutive messages of one role; each block keeps where it came from."""
    merged: list[dict] = []
    waiting: list = []  # marks for the next message
    for message in raw:
        if "mark" in message:
            waiting.append(message["mark"])
            continue
        where = message.get("where", "")
        kept = []
        for block in _as_blocks(message.get("content")):
            clean = _clean(block)
            if clean is None and _worth_reporting(block):
                kind = block.get("type") if isinstance(block, dict) else type(block).__name__
                found.append(Problem(file, where, "unsupported_block", f"a '{kind}' block was dropped"))
            for kind in _dropped_inside(block) if clean is not None else ():
                detail = f"a '{kind}' block inside a tool result was dropped (its text and images are kept)"
                found.append(Problem(file, where, "unsupported_block", detail))
            if clean is not None:
                clean, lone = without_lone_surrogates(clean)
                if lone:
                    found.append(Problem(file, where, "lone_surrogate", f"{lone} replaced by U+FFFD"))
                kept.append(clean)
        if not kept:
            continue
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"].extend(kept)
            merged[-1]["wheres"].extend([where] * len(kept))
            merged[-1]["marks"].extend(waiting)
        else:
            merged.append(
                {"role": message["role"], "content": kept, "wheres": [where] * len(kept), "marks": waiting}
            )
        waiting = []
    return merged


def _calls(message: dict, seen: set[str], file: str, found: list[Problem]):
    """An assistant message's blocks with every tool_use id valid and unique; the ids to answer next."""
    content: list[dict] = []
    pending: dict[str, deque] = defaultdict(deque)
    where_of: dict[str, str] = {}
    for block, where in zip(message["content"], message["wheres"], strict=True):
        if block["type"] == "tool_result":
            content.append(text(_orphan_text(block)))
            found.append(
                Problem(
                    file,
                    where,
                    "orphan_tool_result",
                    f"result for {block['tool_use_id']!r} was in an assistant message; kept as text",
                )
            )
            continue
        if block["type"] != "tool_use":
            content.append(block)
            continue
        new_id = unique_id(block["id"], seen)
        if new_id != block["id"]:
            found.append(Problem(file, where, "renamed_id", f"tool call {block['id']!r} -> {new_id!r}"))
        seen.add(new_id)
        pending[block["id"]].append(new_id)
        where_of[new_id] = where
        content.append({**block, "id": new_id})
    return content, dict(pending), where_of


def unique_id(original: str, seen: set[str]) -> str:
    """``original`` if the API takes it and it is unused; else a valid, unused variant of it."""
    base = original if ID_PATTERN.match(original) else re.sub(r"[^a-zA-Z0-9_-]", "_", original) or "call"
    candidate, n = base, 2
    while candidate in seen:
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def _answer(message: dict | None, pending: dict, where_of: dict, file: str, found: list[Problem]):
    """Results for the calls just before (in call order, missing ones marked), then everything else."""
    results: dict[str, dict] = {}  # new id -> its result
    rest: list[dict] = []
    for block, where in zip(message["content"], message["wheres"], strict=True) if message else ():
        if block["type"] == "tool_result":
            queue = pending.get(block["tool_use_id"])
            new_id = next((i for i in queue if i not in results), None) if queue else None
            if new_id is not None:
                results[new_id] = {**block, "tool_use_id": new_id}
                continue
            rest.append(text(_orphan_text(block)))
            found.append(
                Problem(
                    file,
                    where,
                    "orphan_tool_result",
                    f"no call {block['tool_use_id']!r} just before; kept as text",
                )
            )
        elif block["type"] == "tool_use":
            rest.append(text(call_as_text(block["name"], block["input"])))
            found.append(
                Problem(file, where, "orphan_tool_result", "a tool call in a user message; kept as text")
            )
        else:
            rest.append(block)
    ordered = []
    for ids in pending.values():
        for new_id in ids:
            if new_id not in results:
                found.append(
                    Problem(file, where_of.get(new_id, ""), "unanswered_tool_use", f"call {new_id!r}")
                )
            ordered.append(results.get(new_id) or tool_result(new_id, MISSING_RESULT, is_error=True))
    return ordered + rest or [text("(no content)")]


def call_as_text(name: str, arguments: Any) -> str:
    """A tool call said as text where no call block can stand: ``[tool call finish {}]``."""
    return f"[tool call {name} {json.dumps(arguments, ensure_ascii=False)}]"


def _orphan_text(block: dict) -> str:
    body = text_of(block.get("content")) if not isinstance(block.get("content"), str) else block["content"]
    return f"[result of tool call {block['tool_use_id']}]\n{body}".strip()


def without_lone_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` with each lone UTF-16 surrogate in its strings replaced by U+FFFD, and how many were.

    JSON can hold half of a surrogate pair as an escape (``"\\ud83d"``: an emoji cut in two when a
    tool's output was truncated); Python reads it as a character that UTF-8 cannot encode, so no
    request or transcript could carry it. Values without one are returned as they are.
    """
    if isinstance(value, str):
        fixed, count = _LONE_SURROGATE.subn("\ufffd", value)
        return (fixed, count) if count else (value, 0)
    if isinstance(value, (dict, list)):
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        total, out = 0, None
        for key, item in pairs:
            fixed, count = without_lone_surrogates(item)
            if count:
                out = out if out is not None else (dict(value) if isinstance(value, dict) else list(value))
                out[key], total = fixed, total + count
        return (out, total) if total else (value, 0)
    return value, 0


def _dropped_inside(block: Any) -> list[str]:
    """The types of the blocks in a tool result's content list that ``_clean`` leaves out (not empty text)."""
    content = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
    if not isinstance(content, list):
        return []
    return [  # text (empty text is noise) and images stay; a string is read as text
        b.get("type") if isinstance(b, dict) else type(b).__name__
        for b in content
        if not isinstance(b, str) and not (isinstance(b, dict) and b.get("type") in ("text", "image"))
    ]


def _input_object(value: Any) -> dict:
    """A tool call's input as the object the API takes: a JSON object given as text is read, else kept whole.

    Some harnesses store the arguments as the JSON text the model wrote; anything else that is not an
    object (a plain string, a list) is kept under ``"input"`` rather than lost.
    """
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return {} if value is None or value == "" else {"input": value}


def _as_blocks(content: Any) -> list:
    if isinstance(content, str):
        return [text(content)] if content.strip() else []
    return content if isinstance(content, list) else []


def _worth_reporting(block: Any) -> bool:
    """Empty text is noise; anything else that gets dropped is reported."""
    return not (isinstance(block, dict) and block.get("type") == "text")


def _clean(block: Any) -> dict | None:
    """A block in the form the API takes, or None when it is empty or unsupported."""
    if isinstance(block, str):
        return text(block) if block.strip() else None
    if not isinstance(block, dict) or block.get("type") not in KEPT_BLOCKS:
        return None
    kind = block["type"]
    if kind == "text":
        return text(block["text"]) if isinstance(block.get("text"), str) and block["text"].strip() else None
    if kind == "tool_use":
        if not isinstance(block.get("name"), str) or not block["name"]:
            return None
        raw_id = block.get("id")
        call_id = str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else ""
        return tool_use(call_id or "call", block["name"], _input_object(block.get("input")))
    if kind == "tool_result":
        use_id = block.get("tool_use_id")
        if isinstance(use_id, int) and not isinstance(use_id, bool):  # a number, as its call's id is read
            block = {**block, "tool_use_id": str(use_id)}
        elif not isinstance(use_id, str):
            return None
        content = block.get("content", "")
        if isinstance(content, list):
            content = [b for b in (_clean(b) for b in content) if b and b["type"] in ("text", "image")]
        elif not isinstance(content, str):
            content = "" if content is None else json.dumps(content, ensure_ascii=False)
        return tool_result(block["tool_use_id"], content, is_error=block.get("is_error") is True)
    return dict(block)
