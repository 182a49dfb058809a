"""An OpenHands V1 conversation folder (``base_state.json`` and ``events/``) as one session.

The SDK persists a conversation as a folder (OpenHands/software-agent-sdk at 611629e6,
``openhands-sdk/openhands/sdk/conversation/persistence_const.py``): ``base_state.json`` (the
agent, its settings and the conversation's state) and ``events/event-<index>-<event id>.json``, one
event per file, the index at least five digits. The events are read in index order and replayed
as ``openhands`` reads a list of them; ``base_state.json`` is counted and left out (no message is
in it). An event file that is not JSON is skipped and named. Deliberately left out: event files
whose names do not follow the pattern (the SDK itself warns and passes over them; here they are
reported).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from compaction.importers.nesting import TooDeep, loads
from compaction.importers.openhands import events_session
from compaction.importers.problems import NotASession, Problem, json_error
from compaction.importers.session import ImportedSession
from compaction.importers.source import Source

BASE_STATE = "base_state.json"
EVENTS = "events"
EVENT_FILE = re.compile(r"^event-(?P<index>\d{5,})-(?P<id>[0-9a-fA-F-]{8,})\.json$")


def is_conversation(folder: Path) -> bool:
    """True for a folder that holds an OpenHands V1 conversation."""
    return folder.is_dir() and (folder / BASE_STATE).is_file() and (folder / EVENTS).is_dir()


def detect(source: Source) -> bool:
    """True for a folder with ``base_state.json`` and an ``events`` folder."""
    return source.shape == "folder" and is_conversation(source.path)


def read(source: Source) -> list[ImportedSession]:
    """The conversation's events, in index order, as one session."""
    name = source.name
    problems: list[Problem] = []
    indexed, events, places = [], [], []
    for path in sorted((source.path / EVENTS).iterdir()):
        match = EVENT_FILE.match(path.name)
        if match is None:
            if path.is_file():
                problems.append(
                    Problem(name, f"{EVENTS}/{path.name}", "unknown_record", "not an event file name")
                )
            continue
        indexed.append((int(match["index"]), path))
    for _, path in sorted(indexed):
        where = f"{EVENTS}/{path.name}"
        try:
            events.append(loads(path.read_text(encoding="utf-8-sig", errors="replace")))
            places.append(where)
        except TooDeep as exc:
            problems.append(Problem(name, where, "too_deep", str(exc)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(name, where, "not_json", json_error(exc)))
    if not events:
        raise NotASession(
            name, f"no readable event in {EVENTS}/" + (f" ({len(problems)} unreadable)" if problems else "")
        )
    session = events_session(events, file=name, places=places)
    session.problems[:0] = problems
    session.records += len(problems) + 1  # the unreadable files, and base_state.json
    session.ignored[BASE_STATE] = 1
    return [session]
