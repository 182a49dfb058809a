"""Importers: real agent sessions (Claude Code JSONL, SWE-agent .traj) as strict Messages API lists.

``from_claude_code`` reads a Claude Code session file (one JSON record per line). Records of type
``user``/``assistant`` carry the API message in ``message``; summary, system, meta (``isMeta``) and
sidechain (sub-agent) records are skipped. ``from_swe_agent`` reads the ``history`` of a .traj
file: ``system`` entries are skipped, ``tool_calls`` become ``tool_use`` blocks and ``role: tool``
entries their ``tool_result``; in the older text format an assistant's ``action`` becomes a
``bash`` tool_use answered by the observation that follows it.

Both then go through ``normalize``: empty and unsupported blocks dropped, consecutive same-role
messages merged (parallel results arrive as separate records), tool results moved first, results
without a matching tool_use dropped, a tool_use without a result answered by a marked error result,
leading assistant messages dropped. The result passes ``validate``. Deliberately left out: the
system prompt, timestamps and costs, and the tree of branches (records are read in file order).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from compaction.messages import text, tool_result, tool_use, validate

KEPT_BLOCKS = ("text", "tool_use", "tool_result", "image", "document", "thinking", "redacted_thinking")
MISSING_RESULT = "[no result was recorded for this tool call]"


def from_claude_code(path_or_lines: str | os.PathLike | Iterable[str]) -> list[dict]:
    """A Claude Code session file (path or lines) as a list of strict-form messages."""
    if isinstance(path_or_lines, (str, os.PathLike)):
        lines: Iterable[str] = Path(path_or_lines).read_text(encoding="utf-8").splitlines()
    else:
        lines = path_or_lines
    raw = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {number} is not JSON: {exc.msg}") from None
        if not isinstance(record, dict):
            continue
        message = record.get("message")
        if (
            record.get("type") not in ("user", "assistant")
            or record.get("isMeta")
            or record.get("isSidechain")
            or not isinstance(message, dict)
            or message.get("role") != record["type"]
        ):
            continue
        raw.append({"role": message["role"], "content": message.get("content")})
    return normalize(raw)


def from_swe_agent(path: str | os.PathLike) -> list[dict]:
    """The history of a SWE-agent .traj file as a list of strict-form messages."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    history = data.get("history") if isinstance(data, dict) else None
    if not isinstance(history, list):
        raise ValueError(f"{Path(path).name}: a .traj file needs a 'history' list")
    raw: list[dict] = []
    for i, entry in enumerate(history):
        role, content = entry.get("role"), _entry_text(entry.get("content"))
        if role == "assistant":
            said = [text(content)] if content.strip() else []
            calls = [_swe_tool_use(c) for c in entry.get("tool_calls") or []]
            if not calls and entry.get("action") and _observed(history, i):
                calls = [tool_use(f"action_{i}", "bash", {"command": str(entry["action"]).strip()})]
            raw.append({"role": "assistant", "content": said + calls})
        elif role == "tool":
            ids = entry.get("tool_call_ids") or []
            raw.append({"role": "user", "content": [tool_result(ids[0], content)] if ids else content})
        elif role == "user":
            prev = history[i - 1] if i else {}
            if prev.get("role") == "assistant" and not prev.get("tool_calls") and prev.get("action"):
                raw.append({"role": "user", "content": [tool_result(f"action_{i - 1}", content)]})
            else:
                raw.append({"role": "user", "content": content})
    return normalize(raw)


def load_session(path: str | os.PathLike) -> list[dict]:
    """One session file as a strict list: ``.jsonl`` is Claude Code, ``.traj`` is SWE-agent."""
    suffix = Path(path).suffix
    if suffix == ".jsonl":
        return from_claude_code(path)
    if suffix == ".traj":
        return from_swe_agent(path)
    raise ValueError(f"{path}: not a session file (expected .jsonl or .traj)")


def sessions_in(folder: str | os.PathLike) -> list[tuple[str, list[dict]]]:
    """(file name, messages) for every session file under ``folder``, in path order; [] if absent."""
    root = Path(folder)
    if not root.is_dir():
        return []
    files = sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".traj") and p.is_file())
    return [(p.name, load_session(p)) for p in files]


def _observed(history: list, i: int) -> bool:
    return i + 1 < len(history) and history[i + 1].get("role") == "user"


def _entry_text(content: Any) -> str:
    if isinstance(content, list):  # newer versions: [{"type": "text", "text": ...}]
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def _swe_tool_use(call: dict) -> dict:
    function = call.get("function") or {}
    try:
        args = json.loads(function.get("arguments") or "{}")
    except json.JSONDecodeError:
        args = {"arguments": function.get("arguments")}
    return tool_use(
        str(call.get("id")),
        str(function.get("name") or "tool"),
        args if isinstance(args, dict) else {"arguments": args},
    )


def normalize(raw: list[dict]) -> list[dict]:
    """Turn loosely ordered API-shaped messages into the strict form (see the module docstring)."""
    merged: list[dict] = []
    for message in raw:
        kept = [b for b in (_clean(b) for b in _as_blocks(message["content"])) if b]
        if not kept:
            continue
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"].extend(kept)
        else:
            merged.append({"role": message["role"], "content": kept})
    while merged and merged[0]["role"] != "user":
        merged.pop(0)
    out: list[dict] = []
    seen: set[str] = set()  # tool_use ids so far (must be unique)
    pending: list[str] = []  # tool_use ids of the previous assistant message
    for message in merged:
        if message["role"] == "assistant":
            content = [
                b
                for b in message["content"]
                if b["type"] != "tool_result" and (b["type"] != "tool_use" or b["id"] not in seen)
            ]
            pending = [b["id"] for b in content if b["type"] == "tool_use"]
            seen.update(pending)
            out.append({"role": "assistant", "content": content or [text("(no content)")]})
            continue
        out.append({"role": "user", "content": _answer(message["content"], pending)})
        pending = []
    if pending:
        out.append({"role": "user", "content": _answer([], pending)})
    validate(out)
    return out


def _answer(content: list[dict], pending: list[str]) -> list[dict]:
    """Tool results for ``pending`` first (one each, missing ones marked), then everything else."""
    found: dict[str, dict] = {}  # tool_use_id -> its first result
    for b in content:
        if b["type"] == "tool_result" and b["tool_use_id"] in pending:
            found.setdefault(b["tool_use_id"], b)
    results = [found.get(i) or tool_result(i, MISSING_RESULT, is_error=True) for i in pending]
    rest = [b for b in content if b["type"] not in ("tool_result", "tool_use")]
    return results + rest or [text("(no content)")]


def _as_blocks(content: Any) -> list:
    if isinstance(content, str):
        return [text(content)]
    return content if isinstance(content, list) else []


def _clean(block: Any) -> dict | None:
    """A block in the form the API takes, or None when it is empty or unsupported."""
    if not isinstance(block, dict) or block.get("type") not in KEPT_BLOCKS:
        return None
    kind = block["type"]
    if kind == "text":
        return text(block["text"]) if isinstance(block.get("text"), str) and block["text"].strip() else None
    if kind == "tool_use":
        ok = isinstance(block.get("id"), str) and block["id"] and isinstance(block.get("name"), str)
        tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
        return tool_use(block["id"], block["name"], tool_input) if ok else None
    if kind == "tool_result":
        if not isinstance(block.get("tool_use_id"), str):
            return None
        content = block.get("content", "")
        if isinstance(content, list):
            content = [b for b in (_clean(b) for b in content) if b and b["type"] in ("text", "image")]
        elif not isinstance(content, str):
            content = "" if content is None else json.dumps(content, ensure_ascii=False)
        return tool_result(block["tool_use_id"], content, is_error=block.get("is_error") is True)
    return dict(block)
