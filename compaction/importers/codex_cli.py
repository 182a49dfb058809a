"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as strict lists.

One JSON record per line, ``{"timestamp", "type", "payload"}``: a ``RolloutItem`` of openai/codex
(``codex-rs/protocol/src/protocol.rs``; the items in ``codex-rs/protocol/src/models.rs``, at
152e7cae; described with its sources in kvsankar/agent-history docs/CODEX-FORMAT.md). Records of
type ``response_item`` carry what the model saw: ``message`` (role ``user`` or ``assistant``,
content as ``input_text``/``output_text`` parts or a string; ``developer`` and ``system`` messages
are the instructions, kept as the system text); the calls ``function_call``, ``custom_tool_call``,
``local_shell_call`` (its ``action`` is the input) and ``tool_search_call``, each a tool call, and
their ``*_output`` records with the same ``call_id``, its result; a ``web_search_call`` runs on
the server and its results are not in the rollout, so it is the assistant's text naming the
search, as is an ``image_generation_call`` (its prompt, not the image). A ``compacted`` record is
a compaction Codex did (``EarlierCompaction``, its ``message`` the summary), and the full history
before it is replayed. ``session_meta``, ``turn_context`` and ``event_msg`` records (the UI's copy
of the turn), encrypted ``reasoning`` and ``compaction`` items and ``ghost_snapshot`` (undo state)
are counted and left out. The file is read line by line, once. Deliberately left out: the
``replacement_history`` a ``compacted`` record may carry (the history before it is replayed).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from compaction.core.messages import text, tool_result, tool_use
from compaction.importers.lines import json_records, line_losses, text_lines
from compaction.importers.nesting import loads
from compaction.importers.problems import NotASession, Problem, not_a_record
from compaction.importers.session import ImportedSession, imported
from compaction.importers.source import Source

LOCAL = ("session_meta", "turn_context", "event_msg")
TYPES = (*LOCAL, "compacted", "response_item")
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")
LEFT_OUT_ITEMS = ("reasoning", "compaction", "ghost_snapshot")  # encrypted, or never sent
SAID_ITEMS = ("web_search_call", "image_generation_call")  # no result in the rollout: said as text


def claims(record: Any) -> bool:
    """True for one parsed line of a Codex rollout (a rollout item type with a ``payload``)."""
    return (
        isinstance(record, dict) and record.get("type") in TYPES and isinstance(record.get("payload"), dict)
    )


def detect(source: Source) -> bool:
    """True when one of a JSON Lines file's first records is a Codex rollout record."""
    return source.shape == "lines" and any(claims(r) for r in source.head)


def read(source: Source) -> list[ImportedSession]:
    """A Codex CLI rollout with every repair and skip it took."""
    file = source.name
    problems: list[Problem] = []
    ignored: Counter = Counter()
    raw: list[dict] = []
    system: list[str] = []
    compactions: list[dict] = []
    records = 0
    for number, record in json_records(text_lines(source.path, file, problems), file, problems):
        records += 1
        where = f"line {number}"
        kind = record.get("type") if isinstance(record, dict) else None
        payload = record.get("payload") if isinstance(record, dict) else None
        if kind in LOCAL:
            ignored[kind] += 1
        elif kind == "compacted" and isinstance(payload, dict):
            ignored["compacted"] += 1
            compactions.append({"where": where, "trigger": "", "summary": str(payload.get("message") or "")})
            raw.append({"mark": len(compactions) - 1})
        elif kind == "response_item" and isinstance(payload, dict):
            _item(payload, where, file, raw, system, problems, ignored)
        else:
            problems.append(Problem(file, where, "unknown_record", not_a_record(record)))
    if not any("role" in m for m in raw):
        raise NotASession(file, "no response_item messages or calls")
    session = imported(
        raw,
        file=file,
        format="codex",
        problems=problems,
        records=records + line_losses(problems),
        ignored=ignored,
        system_records=len(system),
        compactions=compactions,
        system="\n\n".join(system),
    )
    return [session]


def _item(payload: dict, where: str, file: str, raw: list, system: list, problems: list, ignored: Counter):
    kind = payload.get("type")
    if kind == "message":
        role, said = payload.get("role"), _text(payload.get("content"))
        if role in ("developer", "system"):
            system.append(said)
        elif role in ("user", "assistant"):
            raw.append({"role": role, "content": [text(said)] if said.strip() else [], "where": where})
        else:
            problems.append(Problem(file, where, "malformed_record", f"a message with role {role!r}"))
    elif kind in CALLS:
        raw.append({"role": "assistant", "content": [_call(payload, kind)], "where": where})
    elif kind in OUTPUTS:
        content = _output(payload.get("output", payload.get("tools")))
        result = tool_result(str(payload.get("call_id") or ""), content)
        raw.append({"role": "user", "where": where, "content": [result]})
    elif kind in SAID_ITEMS:
        raw.append({"role": "assistant", "content": [text(_said(payload, kind))], "where": where})
    elif kind in LEFT_OUT_ITEMS:
        ignored[kind] += 1
    else:
        problems.append(Problem(file, where, "unknown_record", f"response_item of type {kind!r}"))


def _call(payload: dict, kind: str) -> dict:
    """A call item as a tool_use: arguments read from their JSON text, or kept as the text they are."""
    if kind == "local_shell_call":
        name, arguments = "local_shell", payload.get("action")
    elif kind == "tool_search_call":
        name, arguments = "tool_search", payload.get("arguments", payload.get("query"))
    else:
        name, arguments = payload.get("name"), payload.get("arguments", payload.get("input"))
    try:
        args = loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:  # not JSON, or nested too deep to read: kept as the text it is
        args = {"input": arguments}
    args = args if isinstance(args, dict) else {"input": args}
    call_id = payload.get("call_id") or payload.get("id") or "call"
    return tool_use(str(call_id), str(name or "tool"), args)


def _said(payload: dict, kind: str) -> str:
    """A server-side item whose results the rollout does not hold, as the text that names it."""
    status = f" ({payload['status']})" if payload.get("status") else ""
    if kind == "web_search_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        what = action.get("query") or action.get("url") or json.dumps(action, ensure_ascii=False)
        return f"[web search{status}: {what}]"
    return f"[image generated{status}: {payload.get('revised_prompt') or 'no prompt recorded'}]"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _output(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return output["content"]
    return json.dumps(output, ensure_ascii=False)
