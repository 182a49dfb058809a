"""OpenHands event streams (a saved trajectory, or a V1 SDK conversation) as strict lists.

V0 (All-Hands-AI/OpenHands at 156d0686c46aafb0fa9d291da6421fb6f64dddc0): ``save_trajectory_path``
(config.template.toml) and the web UI's download write a JSON list of events, each made by
``event_to_dict`` (openhands/events/serialization/event.py): ``id``, ``timestamp``, ``source``
(``user``/``agent``/``environment``), ``cause`` (the id of the action an observation answers),
``tool_call_metadata`` (openhands/events/tool.py: ``tool_call_id``, ``function_name`` and the
whole ``model_response``), then either ``action`` with ``args`` or ``observation`` with
``content`` and ``extras`` (type names in openhands/core/schema/action.py and observation.py).
How events become model messages follows openhands/memory/conversation_memory.py: a
``message`` action is text for its source; a tool action of the agent (``run``, ``read``,
``edit``, ``think``, ...) is a tool call, the calls of one model response form one assistant
message (grouped by ``model_response.id``), and the observation is its result; ``finish`` is
the agent's closing text (its thought and the model's own text; a bare call to ``finish``, as
the model made it, said as text, since no result follows the end). A call's text and input come
from the recorded ``model_response`` when the event holds it, else from ``thought`` and ``args``
without bookkeeping fields.

V1 (OpenHands/software-agent-sdk at 611629e6999ad398dc49c761721eefe18d5e6bd9,
openhands-sdk/openhands/sdk/event/): every event has a ``kind``. ``SystemPromptEvent`` is the
system text, ``MessageEvent`` an ``llm_message``, ``ActionEvent`` a ``tool_call`` grouped by
``llm_response_id``, and ``ObservationEvent``/``UserRejectObservation``/``AgentErrorEvent``
answer a ``tool_call_id``. The SDK stores one event per file (``events/event-*.json``); this
reads them as a JSON list; ``openhands_conversation`` reads the folder itself.

An observation pairs with its call by tool-call id, else by ``cause``/``action_id``; an
``error`` or ``user_rejected`` observation, a command with ``success: false``, and a V1
observation with ``is_error`` are error results. A condensation (OpenHands' own compaction) is
an ``EarlierCompaction``; the full history is replayed. State changes, recalls, null events
and other bookkeeping are counted in ``ignored``; an event of unknown type is a Problem.
Deliberately left out: what OpenHands renders from templates (recalled workspace context and
microagent knowledge, the exit-code and working-directory lines it appends to command output)
and reasoning or thinking content.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from compaction.core.messages import text, tool_result, tool_use
from compaction.importers.nesting import loads
from compaction.importers.problems import NotASession, Problem
from compaction.importers.session import ImportedSession, imported
from compaction.importers.source import Source
from compaction.importers.strict import call_as_text

TOOL_ACTIONS = frozenset(
    {
        "run",
        "run_ipython",
        "read",
        "write",
        "edit",
        "browse",
        "browse_interactive",
        "call_tool_mcp",
        "delegate",
        "think",
        "task_tracking",
    }
)
LEFT_OUT_ACTIONS = frozenset(
    {
        "change_agent_state",
        "null",
        "recall",
        "condensation_request",
        "reject",
        "pause",
        "resume",
        "stop",
        "start",
        "push",
        "send_pr",
        "loop_recovery",
    }
)
LEFT_OUT_OBSERVATIONS = frozenset({"agent_state_changed", "null", "recall", "condense", "loop_detection"})
ERROR_OBSERVATIONS = frozenset({"error", "user_rejected"})
# every observation type of openhands/core/schema/observation.py; any other is reported, and kept
KNOWN_OBSERVATIONS = frozenset(
    {"read", "write", "edit", "browse", "run", "run_ipython", "chat", "delegate", "message", "error"}
    | {"success", "null", "think", "agent_state_changed", "user_rejected", "condense", "recall", "mcp"}
    | {"download", "task_tracking", "loop_detection"}
)
BOOKKEEPING = frozenset(
    {
        "thought",
        "security_risk",
        "confirmation_state",
        "is_confirmed",
        "impl_source",
        "blocking",
        "hidden",
        "is_static",
        "cwd",
        "include_extra",
        "kernel_init_code",
        "return_axtree",
        "browsergym_send_msg_to_user",
        "keep_prompt",
        "task_completed",
        "timestamp",
        "wait_for_response",
    }
)
V1_RESULTS = ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent")


@dataclass
class _Step:
    """What one event contributes: said text, a call, a result, system text, a compaction, or nothing."""

    kind: str  # "say", "call", "result", "system", "compaction", "ignore", "unknown"
    role: str = ""
    blocks: list = field(default_factory=list)  # said text, or the text before a call
    call: dict | None = None
    group: str | None = None  # the model response a call came from
    call_id: str | None = None  # the call a result answers, when the event names it
    cause: Any = None  # the id of the event a result answers
    content: Any = ""
    is_error: bool = False
    detail: str = ""


def is_openhands(data: Any) -> bool:
    """True for a parsed list of OpenHands events (V0 ``action``/``observation``, or V1 ``kind``)."""
    first = next((e for e in data if isinstance(e, dict)), None) if isinstance(data, list) else None
    return (
        first is not None
        and "role" not in first
        and "source" in first
        and any(key in first for key in ("action", "observation", "kind"))
    )


def detect(source: Source) -> bool:
    """True for a JSON document that is a list of OpenHands events."""
    return is_openhands(source.as_document())


def read(source: Source) -> list[ImportedSession]:
    """A saved trajectory (one JSON list of events) as one session."""
    return [events_session(source.document(), file=source.name)]


def events_session(data: Any, *, file: str, places: list[str] | None = None, **fields) -> ImportedSession:
    """A parsed OpenHands event list as a strict list, with every repair and skip it took.

    ``places`` names each event where problems name it (an event's file); ``events[i]`` otherwise.
    """
    if not isinstance(data, list) or not data:
        raise NotASession(file, "an OpenHands trajectory needs a non-empty list of events")
    problems: list[Problem] = []
    ignored: Counter = Counter()
    turns = _Turns()
    system: list[str] = []
    compactions: list[dict] = []
    for i, event in enumerate(data):
        where = places[i] if places else f"events[{i}]"  # OpenHands' own id follows when it differs
        if (
            not places
            and isinstance(event, dict)
            and isinstance(event.get("id"), (int, str))
            and event["id"] != i
        ):
            where += f" (id {event['id']})"
        if not isinstance(event, dict):
            problems.append(Problem(file, where, "malformed_record", "an event that is not an object"))
            continue
        try:
            step = _v1(event) if "kind" in event else _v0(event)
        except (TypeError, AttributeError, ValueError) as exc:  # a field of an unexpected type
            problems.append(Problem(file, where, "malformed_record", f"an event not read ({exc})"))
            continue
        event_id = event.get("id") if isinstance(event.get("id"), (int, str)) else None
        if event_id is not None:
            turns.seen.add(event_id)
        if step.kind == "ignore":
            ignored[step.detail] += 1
        elif step.kind == "unknown":
            problems.append(Problem(file, where, "unknown_record", step.detail))

        elif step.kind == "system":
            system.append(step.detail)
        elif step.kind == "compaction":
            ignored["condensation"] += 1
            compactions.append({"where": where, "summary": step.detail})
            turns.mark(len(compactions) - 1)
        elif step.kind == "say":
            turns.say(step.role, step.blocks, where)
        elif step.kind == "call":
            turns.call(event_id, step, where)
        else:  # a result; one of a type OpenHands does not define is kept, and named
            if step.detail:
                problems.append(Problem(file, where, "unknown_kept", step.detail))
            turns.result(step, where)
    raw = turns.raw()
    if not any("role" in m for m in raw):
        raise NotASession(file, "no messages, tool calls or results among the events")
    return imported(
        raw,
        file=file,
        format="openhands",
        problems=problems,
        records=len(data),
        ignored=ignored,
        system_records=len(system),
        compactions=compactions,
        system="\n\n".join(system),
        **fields,
    )


class _Turns:
    """Raw messages in event order; the calls of one model response share one assistant turn."""

    def __init__(self):
        self.items: list[dict] = []  # raw messages, marks, and turns {"calls": [...], "results": [...]}
        self.open: dict | None = None  # the turn the next call of the same response joins
        self.turn_of_event: dict = {}  # action event id -> (its turn, its call's id)
        self.turn_of_call: dict[str, dict] = {}  # tool-call id -> the latest turn that made it
        self.seen: set = set()  # ids of the events read so far

    def say(self, role: str, blocks: list, where: str) -> None:
        self.items.append({"role": role, "content": blocks, "where": where})
        self.open = None

    def mark(self, key: int) -> None:
        self.items.append({"mark": key})
        self.open = None

    def call(self, event_id: Any, step: _Step, where: str) -> None:
        said = step.blocks  # a response's text is said once, before its first call
        if self.open is None or step.group is None or self.open["group"] != step.group:
            self.open = {"group": step.group, "calls": [], "results": []}
            self.items.append(self.open)
        else:
            said = []
        self.open["calls"].append({"role": "assistant", "content": [*said, step.call], "where": where})
        self.turn_of_call[step.call["id"]] = self.open
        if event_id is not None:
            self.turn_of_event[event_id] = (self.open, step.call["id"])

    def result(self, step: _Step, where: str) -> None:
        cause = step.cause if isinstance(step.cause, (int, str)) else None  # an id, or no usable one
        known = self.turn_of_event.get(cause) if cause is not None else None
        call_id = step.call_id or (known[1] if known else None)
        if call_id is None and (cause is None or cause in self.seen):
            # answers no call (the user's own command, an error after a message): plain text
            said = step.content if isinstance(step.content, list) else _blocks(step.content)
            self.items.append({"role": "user", "content": said, "where": where})
            self.open = None
            return
        turn = self.turn_of_call.get(call_id) if call_id else None
        block = tool_result(call_id or f"no_action_{cause}", step.content, is_error=step.is_error)
        message = {"role": "user", "content": [block], "where": where}
        if turn is not None:
            turn["results"].append(message)
        else:  # no call for it: strict.normalize keeps it as text and names the place
            self.items.append(message)
            self.open = None

    def raw(self) -> list[dict]:
        out: list[dict] = []
        for item in self.items:
            out.extend([*item["calls"], *item["results"]] if "calls" in item else [item])
        return out


def _v0(event: dict) -> _Step:
    """One V0 event (``event_to_dict``) as a step."""
    if "action" in event:
        return _v0_action(event)
    kind = event.get("observation")
    if not isinstance(kind, str):
        return _Step("unknown", detail="an event with neither a string 'action' nor 'observation'")
    if kind in LEFT_OUT_OBSERVATIONS:
        return _Step("ignore", detail=f"{kind} observation")
    metadata = event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else {}
    call_id = metadata.get("tool_call_id")
    content = event.get("content")
    if not isinstance(content, str):
        content = "" if content is None else json.dumps(content, ensure_ascii=False)
    error = kind in ERROR_OBSERVATIONS or event.get("success") is False
    return _Step(
        "result",
        call_id=str(call_id) if call_id else None,
        cause=event.get("cause"),
        content=content,
        is_error=error,
        detail="" if kind in KNOWN_OBSERVATIONS else f"observation {kind!r}, kept as a result",
    )


def _v0_action(event: dict) -> _Step:
    kind, source = event.get("action"), event.get("source")
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    metadata = event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else None
    if not isinstance(kind, str):
        return _Step("unknown", detail=f"action {kind!r}")
    if kind == "system":
        return _Step("system", detail=str(args.get("content") or ""))
    if kind == "message":
        images = [_image(u) for u in _listed(args.get("image_urls"))]
        blocks = _blocks(str(args.get("content") or "")) + images
        return _Step("say", role="user" if source == "user" else "assistant", blocks=blocks)
    if kind == "finish":
        return _v0_finish(args, source, metadata or {})
    if kind == "condensation":
        return _Step("compaction", detail=str(args.get("summary") or ""))
    if kind in LEFT_OUT_ACTIONS:
        return _Step("ignore", detail=f"{kind} action")
    if kind not in TOOL_ACTIONS and metadata is None:
        return _Step("unknown", detail=f"action {kind!r}")
    if source == "user" and metadata is None:  # the user ran it: OpenHands shows it as user text
        return _Step("say", role="user", blocks=_blocks(f"[the user ran {kind}] {_dump(_input(kind, args))}"))
    return _v0_call(event, kind, args, metadata or {})


def _v0_finish(args: dict, source: Any, metadata: dict) -> _Step:
    """The end of a conversation, as ``conversation_memory`` sends it: the closing text, never empty.

    OpenHands sends a ``finish`` as the finisher's text: its ``thought``, then the recorded model
    response's own text. When the model said nothing but called ``finish``, the call is what it
    said, kept as text (a call block would need a result, and none follows the end).
    """
    message = _response_message(metadata.get("model_response") or {})
    said = [str(args.get(k) or "") for k in ("thought", "final_thought")] + [_text(message.get("content"))]
    closing = "\n".join(dict.fromkeys(s for s in said if s.strip()))
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    if not closing and (calls or metadata.get("function_name")):
        recorded = (calls[0].get("function") or {}) if calls else {}
        name = str(recorded.get("name") or metadata.get("function_name") or "finish")
        closing = call_as_text(name, _arguments(recorded.get("arguments") or {}))
    role = "user" if source == "user" else "assistant"  # the user can finish too (/exit)
    return _Step("say", role=role, blocks=_blocks(closing))


def _v0_call(event: dict, kind: str, args: dict, metadata: dict) -> _Step:
    """A tool action as a call: from the recorded model response when the event holds it."""
    call_id = str(metadata.get("tool_call_id") or f"event_{event.get('id')}")
    name = str(metadata.get("function_name") or (args.get("name") if kind == "call_tool_mcp" else kind))
    response = metadata.get("model_response") if isinstance(metadata.get("model_response"), dict) else {}
    message = _response_message(response)
    recorded = next(
        (c for c in message.get("tool_calls") or [] if isinstance(c, dict) and c.get("id") == call_id), None
    )
    if recorded is not None:
        said = _text(message.get("content"))
        arguments = (recorded.get("function") or {}).get("arguments")
        tool_input = _arguments(arguments)
    else:
        said, tool_input = str(args.get("thought") or ""), _input(kind, args)
    group = response.get("id")
    return _Step(
        "call",
        blocks=_blocks(said),
        call=tool_use(call_id, name, tool_input),
        group=str(group) if group else None,
    )


def _v1(event: dict) -> _Step:
    """One V1 SDK event (a ``kind``) as a step."""
    kind = event.get("kind")
    if kind == "SystemPromptEvent":
        parts = [event.get("system_prompt"), event.get("dynamic_context")]
        return _Step("system", detail="\n\n".join(_text([p]) for p in parts if isinstance(p, dict)))
    if kind == "MessageEvent":
        message = event.get("llm_message") if isinstance(event.get("llm_message"), dict) else {}
        role = message.get("role")
        if role not in ("user", "assistant"):
            return _Step("unknown", detail=f"MessageEvent with role {role!r}")
        parts = [*_listed(message.get("content")), *_listed(event.get("extended_content"))]
        return _Step("say", role=role, blocks=_parts(parts))
    if kind == "ActionEvent":
        call = event.get("tool_call") if isinstance(event.get("tool_call"), dict) else {}
        call_id = str(call.get("id") or event.get("tool_call_id") or f"event_{event.get('id')}")
        name = str(call.get("name") or event.get("tool_name") or "tool")
        group = event.get("llm_response_id")
        return _Step(
            "call",
            blocks=_blocks(_text(event.get("thought"))),
            call=tool_use(call_id, name, _arguments(call.get("arguments"))),
            group=str(group) if group else None,
        )
    if kind in V1_RESULTS:
        return _v1_result(event, kind)
    if kind == "Condensation":
        return _Step("compaction", detail=str(event.get("summary") or ""))
    if isinstance(kind, str):
        return _Step("ignore", detail=kind)
    return _Step("unknown", detail=f"kind {kind!r}")


def _v1_result(event: dict, kind: str) -> _Step:
    call_id = event.get("tool_call_id")
    if kind == "AgentErrorEvent":
        content, error = str(event.get("error") or ""), True
    elif kind == "UserRejectObservation":
        content, error = str(event.get("rejection_reason") or ""), True
    else:
        observation = event.get("observation") if isinstance(event.get("observation"), dict) else {}
        parts = observation.get("content")
        parts = parts if isinstance(parts, list) else [{"type": "text", "text": _text(parts)}]
        content = _parts([*parts, *_listed(event.get("extended_content"))])
        if all(b["type"] == "text" for b in content):  # text only: one string, as the other importers give
            content = "\n".join(b["text"] for b in content)
        error = observation.get("is_error") is True
    return _Step(
        "result",
        call_id=str(call_id) if call_id else None,
        cause=event.get("action_id"),
        content=content or "",
        is_error=error,
    )


def _response_message(response: dict) -> dict:
    choices = response.get("choices") if isinstance(response.get("choices"), list) else []
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    return first.get("message") if isinstance(first.get("message"), dict) else {}


def _input(kind: str, args: dict) -> dict:
    """A V0 action's arguments without OpenHands' bookkeeping (an MCP call's own arguments)."""
    if kind == "call_tool_mcp" and isinstance(args.get("arguments"), dict):
        return dict(args["arguments"])
    return {k: v for k, v in args.items() if k not in BOOKKEEPING}


def _arguments(arguments: Any) -> dict:
    """Tool-call arguments (a JSON string or an object) as a tool_use input."""
    try:
        value = loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:  # not JSON, or nested too deep
        value = {"arguments": arguments}
    return value if isinstance(value, dict) else {"arguments": value}


def _parts(parts: Any) -> list:
    """SDK content parts (``text``, ``image`` with ``image_urls``, or plain text) as Messages API blocks."""
    blocks: list = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and part.get("type") == "image":
            blocks.extend(_image(u) for u in _listed(part.get("image_urls")))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            blocks.extend(_blocks(part["text"]))
        elif isinstance(part, str):  # content given as plain text
            blocks.extend(_blocks(part))
    return blocks


def _listed(value: Any) -> list:
    """A field that holds a list: a single value stands for a list of one, nothing for none."""
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


def _image(url: Any) -> dict:
    """An image block for a URL, or for a ``data:`` URL's base64 bytes."""
    url = str(url)
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _blocks(said: str) -> list:
    return [text(said)] if said.strip() else []


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
