"""The ``one_tool`` scenario: three calls of whichever tool is offered, then a final answer.

For clients that bring their own tool, such as the SDK's tool runner with one ``@beta_tool``: the
model calls the first tool of the request three times, one call a turn, with an input made from
the tool's ``input_schema`` (each required string ``"item N"``, number N, boolean true), and then
says it is done. Like ``textstats`` it is stateless: each turn's text ends with a ``[step N]``
marker, and the next step follows from the last marker, in the conversation or in a summary's
Current Work, so it carries on after a compaction. Deliberately left out: reading the results.
"""

from __future__ import annotations

import hashlib

from compaction.core.messages import text, tool_use
from compaction.offline.scripted import state

CALLS = 3


def _input(tool: dict, step: int) -> dict:
    schema = tool.get("input_schema") or {}
    properties = schema.get("properties") or {}
    values = {"string": f"item {step}", "integer": step, "number": step, "boolean": True}
    return {
        name: values.get((properties.get(name) or {}).get("type", "string"), f"item {step}")
        for name in schema.get("required") or []
    }


def one_tool(
    messages: list, *, tools: list, seed: int = 0, taken: set[str] | None = None
) -> tuple[list[dict], str]:
    """The next turn: (content blocks, stop_reason)."""
    offered = [t for t in tools if isinstance(t, dict) and t.get("name")]
    last = state.last_marker(messages)
    step = last[0] + 1 if last else 1
    if not offered or step > CALLS:
        return [text(f"Done: the tool was called {CALLS} times. {state.marker(CALLS + 1)}")], "end_turn"
    tool = offered[0]
    used = state.tool_use_ids(messages) | (taken or set())
    salt = 0
    while True:
        key = f"one_tool:{seed}:{step}:{len(messages)}:{salt}"
        tool_id = "toolu_" + hashlib.sha256(key.encode()).hexdigest()[:24]
        if tool_id not in used:
            break
        salt += 1
    say = text(f"Call {step} of {CALLS} to {tool['name']}. {state.marker(step)}")
    return [say, tool_use(tool_id, tool["name"], _input(tool, step))], "tool_use"
