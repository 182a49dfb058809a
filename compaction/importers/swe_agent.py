"""SWE-agent ``.traj`` files: the ``history`` the model saw, in either of its two formats.

A ``.traj`` is one JSON object; ``history`` lists what was sent to the model and what it answered
(the ``trajectory`` key holds the same steps as thought, action and observation: SWE-agent's
docs, "Output files", docs/usage/trajectories.md). Newer versions record function calling:
an assistant entry has ``tool_calls`` (OpenAI shape) and each result is a ``role: tool`` entry
with ``tool_call_ids``. Older ones put the command in the text: an assistant entry's ``action``
becomes a ``bash`` tool_use answered by the next ``user`` entry, the observation. ``system``
entries are the system prompt. Ids reused across calls (marshmallow-1867 reuses 5 of 11) are
renamed by ``normalize``, so every call and result is kept. Deliberately left out: ``info``
(costs, the submitted patch) and the ``trajectory`` key when ``history`` is there.
"""

from __future__ import annotations

from typing import Any

from compaction.core.messages import text, tool_result, tool_use
from compaction.importers.chat import openai_call
from compaction.importers.problems import NotASession, Problem
from compaction.importers.session import ImportedSession, imported
from compaction.importers.source import Source


def detect(source: Source) -> bool:
    """True for a JSON document that is an object with a ``history`` (a SWE-agent .traj)."""
    data = source.as_document()
    return isinstance(data, dict) and "history" in data


def read(source: Source) -> list[ImportedSession]:
    """A .traj file as a strict list, with every repair it took."""
    return [_read(source.document(), source.name)]


def _read(data: Any, file: str) -> ImportedSession:
    history = data.get("history") if isinstance(data, dict) else None
    if not isinstance(history, list) or not history:
        raise NotASession(file, "a .traj file needs a non-empty 'history' list")
    problems: list[Problem] = []
    raw: list[dict] = []
    system: list[str] = []
    for i, entry in enumerate(history):
        where = f"history[{i}]"
        if not isinstance(entry, dict):
            problems.append(Problem(file, where, "malformed_record", "an entry that is not an object"))
            continue
        role, content = entry.get("role"), entry_text(entry.get("content"))
        if role == "system":
            system.append(content)
        elif role == "assistant":
            said = [text(content)] if content.strip() else []
            calls = [openai_call(c) for c in entry.get("tool_calls") or [] if isinstance(c, dict)]
            if not calls and entry.get("action") and _observed(history, i):
                calls = [tool_use(f"action_{i}", "bash", {"command": str(entry["action"]).strip()})]
            raw.append({"role": "assistant", "content": said + calls, "where": where})
        elif role == "tool":
            ids = entry.get("tool_call_ids") or []
            answer = [tool_result(str(ids[0]), content)] if ids else content
            raw.append({"role": "user", "content": answer, "where": where})
        elif role == "user":
            prev = history[i - 1] if i and isinstance(history[i - 1], dict) else {}
            if prev.get("role") == "assistant" and not prev.get("tool_calls") and prev.get("action"):
                raw.append(
                    {"role": "user", "content": [tool_result(f"action_{i - 1}", content)], "where": where}
                )
            else:
                raw.append({"role": "user", "content": content, "where": where})
        else:
            problems.append(Problem(file, where, "unknown_record", f"role {role!r}"))
    return imported(
        raw,
        file=file,
        format="swe-agent",
        problems=problems,
        records=len(history),
        system_records=len(system),
        system="\n\n".join(system),
    )


def _observed(history: list, i: int) -> bool:
    return i + 1 < len(history) and isinstance(history[i + 1], dict) and history[i + 1].get("role") == "user"


def entry_text(content: Any) -> str:
    """The text of an entry's content: a string, or newer versions' list of text parts."""
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)
