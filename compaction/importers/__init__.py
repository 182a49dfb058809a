"""Importers: other agents' session files as strict Messages API lists, losing nothing.

``load(path)`` is the one entry: it tells the format from the content (or takes ``format=``, one
of ``FORMATS``) and returns an ``ImportedSession``: the strict list plus every repair and skip,
each naming file and place, the compactions the recording agent did itself, and a tally of what
became of every record of the file. A file that holds several sessions (an OpenHands evaluation's
``output.jsonl``, one per instance) is read with ``load_all``, which ``load`` names when it meets
one. The formats are one table (``formats``), one module each: Claude Code transcripts and
sub-agent files (``claude_code``), Codex CLI rollouts (``codex_cli``), SWE-agent ``.traj``
(``swe_agent``), mini-swe-agent ``.traj.json`` (``mini_swe_agent``), OpenHands saved trajectories
and event lists (``openhands``), evaluation and resolver output (``openhands_output``) and V1
conversation folders (``openhands_conversation``), and plain chat lists in the Anthropic or
OpenAI shape (``chat``). All end in ``strict.normalize``. Input files are opened for reading only.
A JSON document is streamed (``document``), never held whole as text; JSON Lines are read line by
line (``lines``). ``session_paths`` lists the sessions of a folder (a Claude Code project's
sub-agents after their session). ``NotASession`` names a file that is none of these, and why.
"""

from __future__ import annotations

import os
from pathlib import Path

from compaction.importers.folders import session_paths
from compaction.importers.formats import FORMATS, TABLE, read_sessions
from compaction.importers.problems import RULES, NotASession, Problem
from compaction.importers.session import EarlierCompaction, ImportedSession
from compaction.importers.source import open_source
from compaction.importers.strict import MISSING_RESULT, normalize

__all__ = [
    "FORMATS",
    "MISSING_RESULT",
    "RULES",
    "TABLE",
    "EarlierCompaction",
    "ImportedSession",
    "NotASession",
    "Problem",
    "load",
    "load_all",
    "normalize",
    "session_paths",
    "sessions_in",
]


def load(path: str | os.PathLike, format: str | None = None) -> ImportedSession:
    """One session file or conversation folder; its format told from its content unless ``format`` says."""
    sessions = load_all(path, format)
    if len(sessions) > 1:
        why = f"not one session but {len(sessions)} ({sessions[0].format}, one per instance)"
        why += "; load_all reads them"
        raise NotASession(Path(path).name, why)
    return sessions[0]


def load_all(path: str | os.PathLike, format: str | None = None) -> list[ImportedSession]:
    """Every session a file (or conversation folder) holds, in order: one, or one per instance."""
    return read_sessions(open_source(path), format)


def sessions_in(folder: str | os.PathLike) -> list[tuple[str, list[dict]]]:
    """(label, messages) for every session under ``folder``, in path order; what is none is passed over."""
    if not Path(folder).is_dir():
        return []
    out = []
    for path in session_paths(folder):
        try:
            out += [(s.label, s.messages) for s in load_all(path)]
        except NotASession:
            continue
    return out
