"""OpenHands evaluation and resolver output (``output.jsonl``): one session per instance, one per line.

An evaluation writes one ``EvalOutput`` per line (All-Hands-AI/OpenHands at 156d0686,
``evaluation/utils/shared.py``: ``instance_id``, ``instruction``, ``history``, ``metrics``,
``error``, ``test_result``); the issue resolver one ``ResolverOutput`` (``openhands/resolver/
resolver_output.py``: ``issue``, ``history``, ``git_patch``, ``success``, ...). ``history`` is the
event list ``openhands`` reads, or in the older format a list of (action, observation) pairs,
read in that order. Each line is its own session, named by its instance id (or the issue's
repository and number, or its line); a line that holds no event is named with its reason (its
``error`` when it has one) and the others are read. Problems a line brings itself (not JSON) go
with the first session read. Deliberately left out: the outcome fields (``test_result``,
``git_patch``, ``metrics``), which say how the run was judged, not what the model saw.
"""

from __future__ import annotations

from typing import Any

from compaction.importers.lines import json_records, text_lines
from compaction.importers.openhands import events_session
from compaction.importers.problems import NotASession, Problem
from compaction.importers.session import ImportedSession
from compaction.importers.source import Source


def claims(record: Any) -> bool:
    """True for one line of an evaluation's or the resolver's output: a ``history`` and who it is for."""
    return (
        isinstance(record, dict)
        and isinstance(record.get("history"), list)
        and ("instance_id" in record or isinstance(record.get("issue"), dict))
    )


def detect(source: Source) -> bool:
    """True when one of a JSON Lines file's first records is an evaluation or resolver output."""
    return source.shape == "lines" and any(claims(r) for r in source.head)


def read(source: Source) -> list[ImportedSession]:
    """One session per line that holds events, in line order."""
    file = source.name
    problems: list[Problem] = []
    sessions: list[ImportedSession] = []
    for number, record in json_records(text_lines(source.path, file, problems), file, problems):
        where = f"line {number}"
        if not claims(record):
            problems.append(Problem(file, where, "unknown_record", "not an instance's output (no 'history')"))
            continue
        events = _events(record["history"])
        name = instance_name(record, number)
        if not events:
            why = f"instance {name} has no events" + (
                f" (error: {record['error']})" if record.get("error") else ""
            )
            problems.append(Problem(file, where, "malformed_record", why))
            continue
        try:
            sessions.append(events_session(events, file=file, instance=name))
        except NotASession as exc:
            problems.append(Problem(file, where, "malformed_record", f"instance {name}: {exc.reason}"))
    if not sessions:
        why = "no instance with events" + (f" ({len(problems)} lines not read)" if problems else "")
        raise NotASession(file, why)
    sessions[0].problems[:0] = problems  # the file's own problems, said once
    sessions[0].records += sum(1 for p in problems if p.skipped)
    return sessions


def instance_name(record: dict, line: int) -> str:
    """An output line's name: its instance id, the resolved issue's ``owner/repo#number``, or its line."""
    if record.get("instance_id") not in (None, ""):
        return str(record["instance_id"])
    issue = record.get("issue") if isinstance(record.get("issue"), dict) else {}
    if issue.get("number") is not None:
        return f"{issue.get('owner', '')}/{issue.get('repo', '')}#{issue['number']}".lstrip("/")
    return f"line {line}"


def _events(history: list) -> list:
    """The event list, the older (action, observation) pairs laid out in order."""
    events: list = []
    for item in history:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(e, dict) for e in item):
            events.extend(item)
        else:
            events.append(item)
    return events
