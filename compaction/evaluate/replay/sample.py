"""The course's own long session, written in Claude Code's file format, to replay like your own.

``claude_code_records`` turns a strict message list into the records a Claude Code 2.x project file
holds (the record types as ``compaction.importers.claude_code`` cites them): one line per record,
each with a ``uuid`` and the ``parentUuid`` of the record before it; an assistant message split
into one record per content block, and parallel tool results as separate user records. Around
the messages sit the records that are not messages: a ``file-history-snapshot`` first (no
``uuid``), a local command the user ran before the task (``/model``: a caveat marked ``isMeta``,
the command and its output, user records the model is sent), a hook's ``progress`` record after
each tool call (on the chain: the next record's parent), and a ``turn_duration`` system record at
the end. ``rewind_at`` adds a branch the user rewound: a reply and a correction that hang off the
chain and must not be replayed. ``write_sample`` writes the offline agent's session
(``agent.sample_session``) that way. Deliberately left out: timestamps, costs, the working
directory and the other fields a reader of the file does not need.
"""

from __future__ import annotations

import json
from pathlib import Path

from compaction.agent.loop import sample_session
from compaction.core.messages import blocks

REWOUND_REPLY = "I will rewrite the whole library from scratch."
REWOUND_USER = "No, stop: keep the library as it is and fix only the bugs."
SESSION_ID = "c0a5e000-0000-4000-8000-000000000015"
LOCAL_COMMAND = (  # what the user typed before the task: a caveat, the command, its output
    (
        "<local-command-caveat>Caveat: the messages below came from local commands.</local-command-caveat>",
        True,
    ),
    (
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>",
        False,
    ),
    ("<local-command-stdout>Set model to the default</local-command-stdout>", False),
)


def claude_code_records(messages: list[dict], *, rewind_at: int | None = None) -> list[dict]:
    """Claude Code records for ``messages``; a rewound branch after message ``rewind_at`` if given."""
    records: list[dict] = []
    parent: str | None = None

    def link(kind: str, after: str | None, **fields) -> str:
        uuid = f"{kind[0]}{len(records):05d}"
        records.append({"type": kind, "uuid": uuid, "parentUuid": after, "sessionId": SESSION_ID, **fields})
        return uuid

    def add(role: str, content, after: str | None, **flags) -> str:
        return link(role, after, message={"role": role, "content": content}, **flags)

    for said, meta in LOCAL_COMMAND:
        parent = add("user", said, parent, **({"isMeta": True} if meta else {}))
    for i, message in enumerate(messages):
        content = blocks(message)
        if message["role"] == "assistant":
            parts = [[b] for b in content]  # one record per block, as Claude Code streams them
        else:
            results = [[b] for b in content if b.get("type") == "tool_result"]
            rest = [b for b in content if b.get("type") != "tool_result"]
            parts = results + ([rest] if rest else [])  # parallel results arrive one record each
        for part in parts:
            parent = add(message["role"], part, parent)
            if part[0].get("type") == "tool_use":  # a PreToolUse hook ran: its progress sits on the chain
                hook = {
                    "type": "hook_progress",
                    "hookEvent": "PreToolUse",
                    "hookName": f"PreToolUse:{part[0]['name']}",
                }
                parent = link("progress", parent, data=hook, toolUseID=part[0]["id"])
        if i == rewind_at:  # the user tried something, then rewound to here
            tried = add("assistant", [{"type": "text", "text": REWOUND_REPLY}], parent)
            add("user", [{"type": "text", "text": REWOUND_USER}], tried)
    link("system", parent, subtype="turn_duration", durationMs=1_000 * len(messages))
    prompt = records[len(LOCAL_COMMAND)]["uuid"]
    snapshot = {"messageId": prompt, "trackedFileBackups": {}}
    records.insert(0, {"type": "file-history-snapshot", "messageId": prompt, "snapshot": snapshot})
    return records


def write_sample(path: str | Path, *, turns: int = 80, rewind_at: int | None = 40, seed: int = 0) -> Path:
    """Write the offline agent's ``turns``-turn session as a Claude Code project file; its path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    records = claude_code_records(sample_session(turns, seed), rewind_at=rewind_at)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return out
