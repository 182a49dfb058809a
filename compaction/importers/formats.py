"""The one table of formats: a name, how its content is told (``detect``), and how it is read (``read``).

Every row's ``detect(source) -> bool`` looks at a ``Source`` (its shape, its first records, its
document); every ``read(source) -> list[ImportedSession]`` returns the sessions it holds (one,
or one per instance for an evaluation's output). ``recognise`` asks the rows in table order and
takes the first that says yes; a row whose ``detect`` is None is read only when named (``--format``,
``load(..., format=)``). A new format is one module with ``detect`` and ``read``, and one row here.
When no row recognises a file, ``NotASession`` says why the content is none of them, names the
formats tried, and how to name one. Deliberately left out: guessing from file names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from compaction.importers import (
    chat,
    claude_code,
    codex_cli,
    mini_swe_agent,
    openhands,
    openhands_conversation,
    openhands_output,
    swe_agent,
)
from compaction.importers.problems import NotASession
from compaction.importers.session import ImportedSession
from compaction.importers.source import HEAD, Source


@dataclass(frozen=True)
class Format:
    """One row: the format's name, what it is, how it is told and how it is read."""

    name: str
    what: str
    detect: Callable[[Source], bool] | None
    read: Callable[[Source], list[ImportedSession]]


TABLE = (
    Format("codex", "Codex CLI rollout (.jsonl)", codex_cli.detect, codex_cli.read),
    Format(
        "openhands-output",
        "OpenHands evaluation or resolver output.jsonl (a session per line)",
        openhands_output.detect,
        openhands_output.read,
    ),
    Format(
        "claude-code",
        "Claude Code transcript or sub-agent file (.jsonl)",
        claude_code.detect,
        claude_code.read,
    ),
    Format(
        "openhands-conversation",
        "OpenHands V1 conversation folder (base_state.json, events/)",
        openhands_conversation.detect,
        openhands_conversation.read,
    ),
    Format(
        "mini-swe-agent", "mini-swe-agent trajectory (.traj.json)", mini_swe_agent.detect, mini_swe_agent.read
    ),
    Format("swe-agent", "SWE-agent trajectory (.traj)", swe_agent.detect, swe_agent.read),
    Format(
        "openhands", "OpenHands saved trajectory or V1 event list (.json)", openhands.detect, openhands.read
    ),
    Format("chat", "chat messages, Anthropic or OpenAI shape (.json, .jsonl)", chat.detect, chat.read),
    Format("anthropic", "chat messages read as the Anthropic shape", None, chat.read_anthropic),
    Format("openai", "chat messages read as the OpenAI chat shape", None, chat.read_openai),
)
FORMATS = tuple(row.name for row in TABLE)
ROWS = {row.name: row for row in TABLE}


def recognise(source: Source) -> Format:
    """The first row whose ``detect`` recognises ``source``; NotASession naming the formats tried."""
    for row in TABLE:
        if row.detect is not None and row.detect(source):
            return row
    tried = ", ".join(row.name for row in TABLE if row.detect is not None)
    raise NotASession(
        source.name, f"{_why_not(source)}; tried {tried}; name one with --format to read it as that"
    )


def read_sessions(source: Source, format: str | None = None) -> list[ImportedSession]:
    """Every session in ``source``, in the format named or the one its content tells."""
    if format is not None and format not in ROWS:
        raise ValueError(f"unknown format {format!r}; one of {', '.join(FORMATS)}")
    row = ROWS[format] if format is not None else recognise(source)
    return row.read(source)


def _why_not(source: Source) -> str:
    """What the content is, in words, when it is no session of any format."""
    if source.shape == "folder":
        return "a folder that is no OpenHands conversation (no base_state.json and events/)"
    data = source.as_document()
    if source.shape == "lines" and data is None:
        return (
            f"JSON Lines, but none of its first {HEAD} records is a record of a known format"
            if source.head
            else ("not JSON or JSON Lines: no line of the first ones parses")
        )
    return _document_why(data)


def _document_why(data: Any) -> str:
    if isinstance(data, dict):
        if openhands.is_openhands([data]):
            return "one OpenHands event; a conversation is its folder (base_state.json and events/) or a list"
        keys = ", ".join(sorted(map(str, data))[:6]) or "none"
        return f"a JSON object with none of 'history' or 'messages' (keys: {keys})"
    return "JSON, but not a list of messages or events, a .traj or a trajectory"
