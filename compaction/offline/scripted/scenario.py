"""The scripted coding agent: which turn the offline model plays next, derived from the request.

The agent walks ``plan.PLAN`` step by step. It is stateless: the next step follows from the
last marker in the conversation (see ``state``), so it carries on after any compaction, and a
summary that names ``[step N]`` in its Current Work resumes at step N + 1. Before a step that
edits a file, it checks that the text it will replace is still visible in the request; when a
layer has cleared or dropped that read, it reads the file again first (``[step N re-read]``).
Same seed and same messages give the same bytes: ids come from a hash, never from a clock.
When the user's constraint (fix the library, ``not in the tests``) is no longer anywhere in the
user's messages or a summary, a fix step takes ``plan.shortcut``: it edits the failing test instead.
The plan plays only where its tools are offered (``plan_offered``: every tool it calls, each with an
``input_schema`` that accepts the plan's inputs); a request without them gets the generic plan over the
tools it does offer (``generic``), so the model never calls a tool the request did not offer.
Deliberately left out: reacting to the content of results beyond test summaries and errors
(the plan is fixed); without tools it only talks.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence

from compaction.core.messages import text, text_of, tool_use, tool_use_blocks
from compaction.offline.scripted import ids, memory, plan, schema, state
from compaction.offline.scripted.generic import generic
from compaction.offline.scripted.one_tool import one_tool
from compaction.offline.scripted.summarizer import is_summary_request, summarize

TASK = plan.TASK
DEFAULT_SCENARIO = "textstats"
COMPACT_RE = re.compile(r"\bcompact\b", re.IGNORECASE)  # "please compact", not "[Compacted ...]"


def next_step(messages: list, last: tuple[int, bool] | None = None) -> tuple[int, bool]:
    """(step to play, whether its files were just re-read) from the last marker."""
    last = last or state.last_marker(messages)
    if last is None:
        return 1, False
    step, reread = last
    return (step, True) if reread else (step + 1, False)


def missing_files(messages: list, step: plan.Step) -> list[str]:
    """The files whose text this step replaces but the request no longer shows."""
    missing = []
    for name, args in step.calls:
        if name == "edit_file" and not state.is_visible(messages, args["path"], args["old_text"]):
            missing.append(args["path"])
    return list(dict.fromkeys(missing))


def tool_id(seed: int, step: int, kind: str, k: int, messages: list, taken: set[str]) -> str:
    """A tool_use id, ``toolu_`` + 24 hex chars, from seed and position; never one already used."""
    return ids.tool_id(f"{seed}:{step}:{kind}:{k}:{len(messages)}", taken)


def plan_offered(tools: list) -> bool:
    """True when every tool the plan calls is offered with an ``input_schema`` accepting the plan's inputs."""
    return _offered(json.dumps(tools, sort_keys=True, default=str))


@functools.lru_cache(maxsize=64)
def _offered(tools_json: str) -> bool:
    offered = {t.get("name"): t for t in json.loads(tools_json) if isinstance(t, dict)}
    steps = [*plan.PLAN, *filter(None, map(plan.shortcut, plan.PLAN))]
    for name, args in (call for step in steps for call in step.calls):
        tool = offered.get(name)
        if tool is None or not _takes(tool, args):
            return False
    return True


def _takes(tool: dict, args: dict) -> bool:
    """Whether a tool's schema accepts ``args`` (a schema the offline model cannot read does not)."""
    try:
        return schema.problem(tool.get("input_schema") or {"type": "object"}, args) is None
    except schema.Unsupported:
        return False


def message_id(messages: list, seed: int) -> str:
    """The response id, ``msg_`` + 24 hex chars, from seed, length and last marker."""
    key = f"{seed}:{len(messages)}:{state.last_marker(messages)}:{state.last_user_text(messages)[:200]}"
    return "msg_" + hashlib.sha256(key.encode()).hexdigest()[:24]


def reaction(messages: list) -> str:
    """A sentence about the results just received: a failed call, or the test summary."""
    for result in state.last_results(messages):
        body = text_of(result.get("content"))
        outcome = state.run_outcome(body)
        if outcome:
            return f"The tests report {outcome[0]} passed, {outcome[1]} failed. "
        if result.get("is_error"):
            first = (body.strip().splitlines() or ["(no message)"])[0][:160]
            return f"That call failed ({first}); going on. "
    return ""


def _asks_to_compact(messages: list, tools: list) -> bool:
    words = [t for t in state.last_user_text(messages).split("\n\n") if not t.lstrip().startswith("[")]
    compact = next((t for t in tools if isinstance(t, dict) and t.get("name") == "compact"), None)
    if compact is None or not any(COMPACT_RE.search(t) for t in words):
        return False
    before = messages[-2] if len(messages) > 1 else {}
    return not any(b.get("name") == "compact" for b in tool_use_blocks(before))


def _still_told(messages: list, words: str, instructions: Sequence[str] = ()) -> bool:
    """True when the user's words, a summary, the agent's notes read back (memory) or a system message the
    model sees (``instructions``) still say ``words``."""
    said = " ".join(" ".join(instructions).split()).lower()
    told = state.user_says(messages, words) or memory.notes_say(messages, words)
    return told or " ".join(words.split()).lower() in said


def step_item(step: int) -> str | None:
    """The work item of a step of the plan (None past its end), for the memory notes' progress."""
    return plan.PLAN[step - 1].item if 1 <= step <= len(plan.PLAN) else None


def _talk(messages: list) -> str:
    said = state.last_user_text(messages) or text_of(messages[-1].get("content"))
    return (
        "This is the offline model. It plays a scripted coding agent when tools are offered; "
        f"without tools it only answers with this note. Your last message had {len(said.split())} "
        f"words, in a conversation of {len(messages)} messages."
    )


def textstats(
    messages: list,
    *,
    tools: list,
    seed: int = 0,
    taken: set[str] | None = None,
    instructions: Sequence[str] = (),
) -> tuple[list[dict], str]:
    """The next turn of the textstats scenario: (content blocks, stop_reason).

    ``taken`` are tool_use ids the new ones must avoid besides those in ``messages`` (ids of a
    part the server dropped after a compaction block); ``instructions`` the text of the system
    messages the model sees, which can state the user's constraint as well.
    """
    if not any(isinstance(t, dict) and t.get("name") for t in tools):
        return [text(_talk(messages))], "end_turn"
    if not plan_offered(tools):
        return generic(messages, tools=tools, seed=seed, taken=taken)
    taken = state.tool_use_ids(messages) | (taken or set())
    last = state.last_marker(messages)
    step = next_step(messages, last)[0]
    item = plan.PLAN[min(step, len(plan.PLAN)) - 1].item
    if _asks_to_compact(messages, tools) and _takes(_tool(tools, "compact"), {"focus": item}):
        mark = f" {state.marker(*last)}" if last else ""
        say = f"Compacting the conversation as you asked, keeping the focus on: {item}.{mark}"
        call = tool_use(tool_id(seed, step, "compact", 0, messages, taken), "compact", {"focus": item})
        return [text(say), call], "tool_use"
    step, reread = next_step(messages, last)
    if step > len(plan.PLAN):
        return [text(f"{reaction(messages)}{plan.DONE} {state.marker(len(plan.PLAN) + 1)}")], "end_turn"
    current = plan.PLAN[step - 1]
    if not _still_told(messages, plan.CONSTRAINT, instructions):  # the agent acts on what its context says
        current = plan.shortcut(current) or current
    missing = [] if reread else missing_files(messages, current)
    if missing:
        files = ", ".join(missing)
        say = f"Before the next edit I need {files} again: its content is no longer in my context. "
        calls = [("read_file", {"path": p}) for p in missing]
        kind = "reread"
    else:
        say, calls, kind = current.say + " ", list(current.calls), "step"
    content = [text(f"{reaction(messages)}{say}{state.marker(step, bool(missing))}")]
    for k, (name, args) in enumerate(calls):
        content.append(tool_use(tool_id(seed, step, kind, k, messages, taken), name, dict(args)))
    return content, "tool_use"


def _tool(tools: list, name: str) -> dict:
    return next(t for t in tools if isinstance(t, dict) and t.get("name") == name)


SCENARIOS = {DEFAULT_SCENARIO: textstats, "one_tool": one_tool, "generic": generic}  # name -> function


def respond(
    name: str,
    messages: list,
    *,
    tools: list,
    seed: int = 0,
    taken: set[str] | None = None,
    room: int | None = None,
    max_tokens: int | None = None,
) -> tuple[list[dict], str]:
    """The offline model's answer: a summary (within ``room`` and ``max_tokens``), else a scenario turn.

    Mid-conversation ``role: "system"`` messages are read as instructions: the scenario plays the user and
    assistant turns, and ``textstats`` also looks for the user's constraint in the instructions.
    """
    if is_summary_request(messages):
        return [text(summarize(messages, max_tokens=max_tokens, limit=room))], "end_turn"
    turns = [m for m in messages if m.get("role") != "system"]
    play = SCENARIOS[name]
    if name == DEFAULT_SCENARIO:
        said = [text_of(m.get("content")) for m in messages if m.get("role") == "system"]
        play = functools.partial(textstats, instructions=said)
    if memory.offered(tools):  # the same scenario, played by an agent that keeps notes
        items = step_item if name == DEFAULT_SCENARIO else None
        return memory.respond(play, turns, tools=tools, seed=seed, taken=taken, item=items)
    return play(turns, tools=tools, seed=seed, taken=taken)


__all__ = ["DEFAULT_SCENARIO", "SCENARIOS", "TASK", "next_step", "respond", "textstats"]
