"""The course's own long session, written in Claude Code's file format, to replay like your own.

``claude_code_records`` turns a strict message list into the records a Claude Code project file
holds: one line per record, each with a ``uuid`` and the ``parentUuid`` of the record before it;
an assistant message split into one record per content block, and parallel tool results as
separate user records, as Claude Code writes them. ``rewind_at`` adds a branch the user rewound:
a reply and a correction that hang off the chain and must not be replayed. ``write_sample``
writes the offline agent's session (``agent.sample_session``) that way. Deliberately left out:
timestamps, costs, session ids and the other fields a reader of the file does not need.
"""

from __future__ import annotations

import json
from pathlib import Path

from compaction.agent.loop import sample_session
from compaction.core.messages import blocks

REWOUND_REPLY = "I will rewrite the whole library from scratch."
REWOUND_USER = "No, stop: keep the library as it is and fix only the bugs."


def claude_code_records(messages: list[dict], *, rewind_at: int | None = None) -> list[dict]:
    """Claude Code records for ``messages``; a rewound branch after message ``rewind_at`` if given."""
    records: list[dict] = []
    parent: str | None = None

    def add(role: str, content, after: str | None) -> str:
        uuid = f"{role[0]}{len(records):05d}"
        records.append(
            {"type": role, "uuid": uuid, "parentUuid": after, "message": {"role": role, "content": content}}
        )
        return uuid

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
        if i == rewind_at:  # the user tried something, then rewound to here
            tried = add("assistant", [{"type": "text", "text": REWOUND_REPLY}], parent)
            add("user", [{"type": "text", "text": REWOUND_USER}], tried)
    return records


def write_sample(path: str | Path, *, turns: int = 80, rewind_at: int | None = 40, seed: int = 0) -> Path:
    """Write the offline agent's ``turns``-turn session as a Claude Code project file; its path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    records = claude_code_records(sample_session(turns, seed), rewind_at=rewind_at)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return out
