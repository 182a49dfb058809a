"""Importers: other agents' session files as strict Messages API lists, losing nothing.

``load(path)`` tells the format from the content (or takes ``format=``) and returns an
``ImportedSession``: the strict list plus every repair and skip, each naming file and place, and
the compactions the recording agent did itself. Formats, one module each: Claude Code project
files (``claude_code``), Codex CLI rollouts (``codex_cli``), SWE-agent ``.traj`` (``swe_agent``),
mini-swe-agent ``.traj.json`` (``mini_swe_agent``), OpenHands saved trajectories and V1 SDK event
lists (``openhands``), and plain chat lists in the Anthropic or OpenAI shape (``chat``). All end in
``strict.normalize``. Input files are opened for reading only. A JSON document is streamed
(``document``), never held whole as text; JSON Lines are read line by line (``lines``: a byte-order
mark dropped, bytes that are not UTF-8 reported). ``NotASession`` names a file that is none of these.
Deliberately left out: an OpenHands V1 conversation as its folder of one-event files (join them
into one JSON list first).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from compaction.importers.chat import anthropic_to_raw, openai_to_raw, read_chat
from compaction.importers.claude_code import read_claude_code
from compaction.importers.codex_cli import read_codex
from compaction.importers.detect import FORMATS, document_format, first_record, later_record, lines_format
from compaction.importers.document import read_document, streamed_document
from compaction.importers.lines import json_records, text_lines
from compaction.importers.mini_swe_agent import read_mini_swe_agent
from compaction.importers.openhands import read_openhands
from compaction.importers.problems import RULES, NotASession, Problem
from compaction.importers.session import EarlierCompaction, ImportedSession
from compaction.importers.strict import MISSING_RESULT, normalize
from compaction.importers.swe_agent import read_swe_agent

SUFFIXES = (".jsonl", ".traj", ".json")

__all__ = [
    "FORMATS",
    "MISSING_RESULT",
    "RULES",
    "EarlierCompaction",
    "ImportedSession",
    "NotASession",
    "Problem",
    "from_claude_code",
    "from_swe_agent",
    "load",
    "load_session",
    "normalize",
    "session_files",
    "sessions_in",
]


def load(path: str | os.PathLike, format: str | None = None) -> ImportedSession:
    """One session file, its format told from its content unless ``format`` (one of FORMATS) is given."""
    path = Path(path)
    file = path.name
    if not path.is_file():
        raise NotASession(str(path), "no such file" if not path.exists() else "not a file")
    if format == "claude-code":
        return read_claude_code(path)
    if format == "codex":
        return read_codex(path)
    data = None  # the parsed document, once a first line that is not JSON has sent us to parse it
    if format is None:
        try:
            record, more = first_record(path)
        except UnicodeDecodeError:
            raise NotASession(file, "not text") from None
        kind = lines_format(record) if more or not _is_document(record) else None
        if kind is None and more and isinstance(record, dict) and not _is_document(record):
            kind = lines_format(later_record(path))  # a first record that cannot tell (a snapshot)
        if record is None and more:  # a document over several lines, or JSON Lines with a broken first line
            data = streamed_document(path)
            if data is None:
                kind = lines_format(later_record(path))
        if kind == "claude-code":
            return read_claude_code(path)
        if kind == "codex":
            return read_codex(path)
        if kind == "chat-lines":
            return _chat_lines(path)
    if data is None:
        data = read_document(path)
    kind = format or document_format(data, file)
    if kind == "swe-agent":
        return read_swe_agent(data, file=file)
    if kind == "mini-swe-agent":
        return read_mini_swe_agent(data, file=file)
    if kind == "openhands":
        return read_openhands(data, file=file)
    return _chat(data, file, kind)


def _is_document(record) -> bool:
    return isinstance(record, list) or (
        isinstance(record, dict) and bool({"history", "messages"} & set(record))
    )


def _chat(data, file: str, kind: str) -> ImportedSession:
    system = ""
    if isinstance(data, dict):
        system = data.get("system") if isinstance(data.get("system"), str) else ""
        data = data.get("messages")
    if not isinstance(data, list):
        raise NotASession(file, "a chat list needs a list of messages")
    items = [(f"messages[{i}]", m) for i, m in enumerate(data)]
    return _forced(items, file, kind, system)


def _chat_lines(path: Path) -> ImportedSession:
    problems: list[Problem] = []
    lines = text_lines(path, path.name, problems)
    items = [(f"line {number}", record) for number, record in json_records(lines, path.name, problems)]
    session = _forced(items, path.name, "chat", "")
    session.problems[:0] = problems  # the lines' own problems first, in line order
    return session


def _forced(items: list, file: str, kind: str, system: str) -> ImportedSession:
    if kind == "chat":
        return read_chat(items, file=file, system=system)
    problems: list[Problem] = []
    if kind == "openai":
        raw, extra = openai_to_raw(items, file, problems)
        system = "\n\n".join(filter(None, [system, extra]))
    elif kind == "anthropic":
        raw = anthropic_to_raw(items, file, problems)
    else:
        raise ValueError(f"unknown format {kind!r}; one of {', '.join(FORMATS)}")
    messages = normalize(raw, file=file, problems=problems)
    return ImportedSession(
        file, f"{kind}-{'chat' if kind == 'openai' else 'messages'}", messages, problems, system=system
    )


def session_files(folder: str | os.PathLike) -> list[Path]:
    """Files under ``folder`` that may hold a session (.jsonl, .traj, .json), in path order."""
    root = Path(folder)
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SUFFIXES)


def sessions_in(folder: str | os.PathLike) -> list[tuple[str, list[dict]]]:
    """(file name, messages) for every session file under ``folder``, in path order; [] if absent."""
    if not Path(folder).is_dir():
        return []
    out = []
    for path in session_files(folder):
        try:
            out.append((path.name, load(path).messages))
        except NotASession:
            continue
    return out


def load_session(path: str | os.PathLike) -> list[dict]:
    """One session file as a strict list (``load(path).messages``)."""
    return load(path).messages


def from_claude_code(path_or_lines: str | os.PathLike | Iterable[str]) -> list[dict]:
    """A Claude Code session file (path or lines) as a strict list; ``read_claude_code`` has the problems."""
    return read_claude_code(path_or_lines).messages


def from_swe_agent(path: str | os.PathLike) -> list[dict]:
    """The history of a SWE-agent .traj file as a strict list."""
    return load(path, "swe-agent").messages
