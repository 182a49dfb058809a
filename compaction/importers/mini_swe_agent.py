"""mini-swe-agent ``.traj.json`` files: ``messages`` in the OpenAI chat shape.

The file is ``{"info": ..., "messages": [...], "trajectory_format": "mini-swe-agent-1.1"}``
(mini-swe-agent docs, "Output files"). With a tool-calling model the assistant messages carry
``tool_calls`` and the observations are ``role: tool`` messages. Otherwise the command is the one
fenced block of the assistant's text (```` ```bash ```` in v1, ```` ```mswea_bash_command ```` in
v2) and the next user message is its output: that pair becomes a ``bash`` tool_use and its
tool_result, so the compaction layers see the output as a tool result. The run ends with an
``exit`` message (SWE-agent/mini-swe-agent at a83fcae8: ``agents/default.py`` stops at it;
``environments/local.py`` writes one when a command's output starts with
``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``, holding the rest of that output as the submission): after
a command it is that command's output, its result; after no command (a step, cost or time limit,
repeated format errors) the model never saw it, and it is counted as left out. Either way its exit
status is the session's ``ended``. Deliberately left out: ``info`` (costs, the submission again)
and each message's ``extra``.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from compaction.core.messages import text, tool_result, tool_use
from compaction.importers.chat import openai_to_raw
from compaction.importers.problems import NotASession, Problem
from compaction.importers.session import ImportedSession, imported
from compaction.importers.source import Source

COMMAND = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)```", re.S)


def is_mini_swe_agent(data: Any) -> bool:
    """True for a parsed mini-swe-agent trajectory (its format tag, or its version in ``info``)."""
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return False
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    return str(data.get("trajectory_format", "")).startswith("mini-swe-agent") or "mini_version" in info


def detect(source: Source) -> bool:
    """True for a JSON document that is a mini-swe-agent trajectory."""
    return is_mini_swe_agent(source.as_document())


def read(source: Source) -> list[ImportedSession]:
    """A mini-swe-agent trajectory as a strict list, with every repair it took."""
    data, file = source.document(), source.name
    if not is_mini_swe_agent(data):
        raise NotASession(file, "a mini-swe-agent trajectory needs 'messages' and 'trajectory_format'")
    problems: list[Problem] = []
    ignored: Counter = Counter()
    items, ended = _ending(data["messages"], ignored)
    raw, system = openai_to_raw(items, file, problems)
    if not any(b.get("type") == "tool_use" for m in raw for b in m["content"] if isinstance(b, dict)):
        raw = _commands_as_calls(raw)
    system_records = sum(
        1 for _, m in items if isinstance(m, dict) and m.get("role") in ("system", "developer")
    )
    session = imported(
        raw,
        file=file,
        format="mini-swe-agent",
        problems=problems,
        records=len(data["messages"]),
        ignored=ignored,
        system_records=system_records,
        system=system,
        ended=ended,
    )
    return [session]


def _ending(messages: list, ignored: Counter) -> tuple[list[tuple[str, Any]], str]:
    """(where, message) pairs with each ``exit`` read as what it is; the last exit status."""
    items: list[tuple[str, Any]] = []
    ended = ""
    for i, m in enumerate(messages):
        if not (isinstance(m, dict) and m.get("role") == "exit"):
            items.append((f"messages[{i}]", m))
            continue
        extra = m.get("extra") if isinstance(m.get("extra"), dict) else {}
        ended = str(extra.get("exit_status") or m.get("content") or "exit")
        before = items[-1][1] if items and isinstance(items[-1][1], dict) else {}
        calls = before.get("tool_calls") if before.get("role") == "assistant" else None
        if calls and isinstance(calls[-1], dict):  # the submitting command's output: its result
            items.append(
                (
                    f"messages[{i}]",
                    {"role": "tool", "tool_call_id": calls[-1].get("id"), "content": m.get("content")},
                )
            )
        elif before.get("role") == "assistant" and COMMAND.search(str(before.get("content") or "")):
            items.append((f"messages[{i}]", {"role": "user", "content": m.get("content")}))
        else:
            ignored[f"exit ({ended})"] += 1
    return items, ended


def _commands_as_calls(raw: list[dict]) -> list[dict]:
    """Each assistant text with one command block, answered by the next user message: a call and result."""
    out: list[dict] = []
    for i, m in enumerate(raw):
        said = "\n".join(b["text"] for b in m["content"] if b.get("type") == "text")
        commands = COMMAND.findall(said) if m["role"] == "assistant" else []
        answered = i + 1 < len(raw) and raw[i + 1]["role"] == "user"
        if len(commands) == 1 and answered:
            call = tool_use(f"command_{i}", "bash", {"command": commands[0].strip()})
            out.append({**m, "content": [*m["content"], call]})
            reply = "\n".join(b.get("text", "") for b in raw[i + 1]["content"] if b.get("type") == "text")
            raw[i + 1] = {**raw[i + 1], "content": [tool_result(f"command_{i}", reply or "(no output)")]}
        else:
            out.append(m if m["content"] else {**m, "content": [text("(no content)")]})
    return out
