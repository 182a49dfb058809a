"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as strict lists.

One JSON record per line, ``{"timestamp", "type", "payload"}`` (the format as described, with its
sources in openai/codex, in kvsankar/agent-history docs/CODEX-FORMAT.md). Records of type
``response_item`` carry what the model saw: ``message`` (role ``user`` or ``assistant``, content
as ``input_text``/``output_text`` parts or a string; ``developer`` and ``system`` messages are the
instructions, kept as the system text), ``function_call``/``custom_tool_call`` (``name``,
``arguments`` as a JSON string or ``input``, ``call_id``) and their ``*_output`` (``call_id``,
``output``). ``session_meta``, ``turn_context``, ``event_msg`` and ``compacted`` records, and
``reasoning`` items (encrypted), are counted and left out. The file is read line by line, once.
Deliberately left out: ``local_shell_call``, ``web_search_call`` and other items the description
does not detail (reported as unknown records).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from compaction.core.messages import text, tool_result, tool_use
from compaction.importers.lines import json_records, text_lines
from compaction.importers.nesting import loads
from compaction.importers.problems import NotASession, Problem, not_a_record
from compaction.importers.session import ImportedSession
from compaction.importers.strict import normalize

LOCAL = ("session_meta", "turn_context", "event_msg", "compacted")
CALLS = ("function_call", "custom_tool_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
TYPES = (*LOCAL, "response_item")


def read_codex(path: str | os.PathLike) -> ImportedSession:
    """A Codex CLI rollout file with every repair and skip it took."""
    file = Path(path).name
    problems: list[Problem] = []
    ignored: Counter = Counter()
    raw: list[dict] = []
    system: list[str] = []
    for number, record in json_records(text_lines(path, file, problems), file, problems):
        where = f"line {number}"
        kind = record.get("type") if isinstance(record, dict) else None
        payload = record.get("payload") if isinstance(record, dict) else None
        if kind in LOCAL:
            ignored[kind] += 1
        elif kind == "response_item" and isinstance(payload, dict):
            _item(payload, where, file, raw, system, problems, ignored)
        else:
            problems.append(Problem(file, where, "unknown_record", not_a_record(record)))
    if not raw:
        raise NotASession(file, "no response_item messages or calls")
    messages = normalize(raw, file=file, problems=problems)
    return ImportedSession(
        file, "codex", messages, problems, system="\n\n".join(system), ignored=dict(ignored)
    )


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
        arguments = payload.get("arguments", payload.get("input"))
        try:
            args = loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError:  # not JSON, or nested too deep to read: kept as the text it is
            args = {"input": arguments}
        args = args if isinstance(args, dict) else {"input": args}
        call = tool_use(str(payload.get("call_id") or "call"), str(payload.get("name") or "tool"), args)
        raw.append({"role": "assistant", "content": [call], "where": where})
    elif kind in OUTPUTS:
        raw.append(
            {
                "role": "user",
                "where": where,
                "content": [tool_result(str(payload.get("call_id") or ""), _output(payload.get("output")))],
            }
        )
    elif kind == "reasoning":
        ignored["reasoning"] += 1
    else:
        problems.append(Problem(file, where, "unknown_record", f"response_item of type {kind!r}"))


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
