"""Which format a session file is in, told from its content (the name is only a tiebreak).

JSON Lines: a first record with a ``type`` and Claude Code's keys (``uuid``, ``message``,
``leafUuid``, ``sessionId``) is Claude Code; one with a ``payload`` and a Codex record type is a
Codex CLI rollout; ``{"role": ...}`` lines are a chat list. A JSON document with ``history`` is
SWE-agent, with ``trajectory_format: mini-swe-agent*`` mini-swe-agent, a list of events with a
``source`` and an ``action``/``observation`` (or a V1 ``kind``) OpenHands, a list (or
``{"messages": [...]}``) a chat list in the Anthropic or OpenAI shape. Anything else is
``NotASession`` with the reason. Only the first line is read to tell JSON Lines from a document.
"""

from __future__ import annotations

import os
from itertools import islice
from pathlib import Path
from typing import Any

from compaction.importers.claude_code import claims
from compaction.importers.codex_cli import TYPES as CODEX_TYPES
from compaction.importers.mini_swe_agent import is_mini_swe_agent
from compaction.importers.nesting import loads
from compaction.importers.openhands import is_openhands
from compaction.importers.problems import NotASession

FORMATS = ("claude-code", "codex", "swe-agent", "mini-swe-agent", "openhands", "anthropic", "openai")
LONG_LINE = 1 << 18  # bytes: a first line this long, alone in its file, is a document


def first_record(path: str | os.PathLike) -> tuple[Any, bool]:
    """The first non-empty line parsed as JSON (None if it is not), and whether more lines follow.

    A first line longer than ``LONG_LINE`` that is the file's only line is not parsed here: it is a
    document on one line, which ``document.read_document`` streams (``(None, False)``).
    """
    with open(path, "rb") as f:
        while line := f.readline(LONG_LINE):
            if not line.strip():
                continue
            if len(line) == LONG_LINE and not line.endswith(b"\n"):
                while (part := f.readline(1 << 16)) and not part.endswith(b"\n"):
                    pass  # to the end of the long line, holding a part at a time
                if not any(rest.strip() for rest in f):
                    return None, False
                f.seek(0)
                line = next(line for line in f if line.strip())
            return _parsed(line), any(rest.strip() for rest in f)
    raise NotASession(Path(path).name, "the file is empty")


def later_record(path: str | os.PathLike, lines: int = 50) -> Any:
    """The first of the next ``lines`` non-empty lines after the first whose format can be told."""
    first = None
    with open(path, "rb") as f:
        rest = (line for line in f if line.strip())
        next(rest, None)
        for line in islice(rest, lines):
            record = _parsed(line)
            if isinstance(record, dict) and lines_format(record):
                return record
            first = record if first is None and isinstance(record, dict) else first
    return first


def _parsed(line: bytes) -> Any:
    try:
        return loads(line.decode("utf-8-sig", errors="replace"))  # -sig: a byte-order mark is no record
    except ValueError:  # not JSON, or nested too deep to parse: no record to tell the format by
        return None


def lines_format(record: Any) -> str | None:
    """'claude-code', 'codex' or 'chat-lines' when a first line looks like one of them, else None."""
    if not isinstance(record, dict):
        return None
    if record.get("type") in CODEX_TYPES and isinstance(record.get("payload"), dict):
        return "codex"
    if claims(record):
        return "claude-code"
    if isinstance(record.get("role"), str):
        return "chat-lines"
    return None


def document_format(data: Any, file: str) -> str:
    """'swe-agent', 'mini-swe-agent', 'openhands' or 'chat' for a parsed JSON document; else NotASession."""
    if isinstance(data, dict):
        if "history" in data:
            return "swe-agent"
        if is_mini_swe_agent(data):
            return "mini-swe-agent"
        if isinstance(data.get("messages"), list):
            return "chat"
        if is_openhands([data]):
            why = "one OpenHands event; a conversation is a list of them (join event-*.json into one list)"
            raise NotASession(file, why)
        keys = ", ".join(sorted(map(str, data))[:6]) or "none"
        raise NotASession(file, f"a JSON object with none of 'history' or 'messages' (keys: {keys})")
    if is_openhands(data):
        return "openhands"
    if isinstance(data, list) and data and all(isinstance(m, dict) and "role" in m for m in data):
        return "chat"
    raise NotASession(file, "JSON, but not a list of messages or events, a .traj or a trajectory")
