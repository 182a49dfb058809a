"""The sessions of a folder, in an order a reader can follow: each session, then its sub-agents.

A Claude Code project folder (``~/.claude/projects/<project>/``) holds a file per session and
the sub-agents each one ran: beside it as ``agent-<id>.jsonl`` (their records name the session in
``sessionId``), or since 2.1 under ``<session>/subagents/`` (the claude_storage crate,
docs/advanced_topics.md). Each sub-agent is listed right after its session. Claude Code's own
metadata (``*.meta.json``, ``sessions-index.json``) and the ``tool-results`` it keeps beside a
session are no sessions and are not listed. An OpenHands V1 conversation folder is one session,
listed as the folder. Every other ``.jsonl``, ``.traj`` and ``.json`` file is listed in path order.
Deliberately left out: following symbolic links out of the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from compaction.importers.openhands_conversation import is_conversation
from compaction.importers.problems import NotASession
from compaction.importers.source import open_source

SUFFIXES = (".jsonl", ".traj", ".json")
METADATA = ("sessions-index.json",)  # Claude Code's own index of a project's sessions
KEPT_ASIDE = ("tool-results",)  # folders Claude Code keeps beside a session: outputs, not sessions


def session_paths(folder: str | os.PathLike) -> list[Path]:
    """Every session under ``folder``: files and conversation folders, sub-agents after their session."""
    found = sorted(_walk(Path(folder)), key=lambda p: p.as_posix())
    parents = {p.stem: p for p in found if p.suffix == ".jsonl" and not p.name.startswith("agent-")}
    after: dict[Path, list[Path]] = {}
    listed: list[Path] = []
    for path in found:
        parent = parents.get(parent_session(path)) or _flat_parent(path, parents)
        if parent is not None:
            after.setdefault(parent, []).append(path)
        else:
            listed.append(path)
    out: list[Path] = []
    for path in listed:
        out.append(path)
        out.extend(after.get(path, ()))
    return out


def parent_session(path: Path) -> str:
    """The session a sub-agent's file belongs to, by its place: ``<session>/subagents/agent-*.jsonl``."""
    if path.parent.name == "subagents" and path.name.startswith("agent-"):
        return path.parent.parent.name
    return ""


def _walk(folder: Path):
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if is_conversation(entry):
                yield entry
            elif entry.name not in KEPT_ASIDE:
                yield from _walk(entry)
        elif (
            entry.suffix in SUFFIXES and entry.name not in METADATA and not entry.name.endswith(".meta.json")
        ):
            yield entry


def _flat_parent(path: Path, parents: dict[str, Path]) -> Path | None:
    """The session file a flat ``agent-*.jsonl`` beside it belongs to (its records' ``sessionId``)."""
    if not (path.name.startswith("agent-") and path.suffix == ".jsonl") or parent_session(path):
        return None
    try:
        head = open_source(path).head
    except NotASession:
        return None
    ids = {r.get("sessionId") for r in head if isinstance(r, dict)}
    return next((parents[i] for i in ids if i in parents and parents[i].parent == path.parent), None)
