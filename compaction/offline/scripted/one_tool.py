"""The ``one_tool`` scenario: three calls of whichever tool is offered, then a final answer.

For clients that bring their own tool, such as the SDK's tool runner with one ``@beta_tool``: the
model calls the first tool of the request three times, one call a turn, with an input its
``input_schema`` accepts (``schema.make``; each required string ``"item N"``, number N, boolean true
where the schema allows them), and then says it is done. A tool whose schema accepts no input it can
make is not called. Like ``textstats`` it is stateless: each turn's text ends with a ``[step N]``
marker, and the next step follows from the last marker, in the conversation or in a summary's
Current Work, so it carries on after a compaction. Deliberately left out: reading the results.
"""

from __future__ import annotations

from compaction.core.messages import text, tool_use
from compaction.offline.scripted import ids, schema, state

CALLS = 3


def _input(tool: dict, step: int) -> dict | None:
    """An input the tool's schema accepts, ``item N`` / N / true preferred; None when none is found."""

    def prefer(name: str | None, sub: dict) -> list:
        return [f"item {step}", step, True] if name is not None else []

    try:
        made = schema.make(tool.get("input_schema") or {"type": "object"}, prefer)
    except schema.Unsupported:
        return None
    return made if isinstance(made, dict) else None


def one_tool(
    messages: list, *, tools: list, seed: int = 0, taken: set[str] | None = None
) -> tuple[list[dict], str]:
    """The next turn: (content blocks, stop_reason)."""
    offered = [t for t in tools if isinstance(t, dict) and t.get("name")]
    last = state.last_marker(messages)
    step = last[0] + 1 if last else 1
    tool = offered[0] if offered else None
    made = _input(tool, step) if tool is not None and step <= CALLS else None
    if made is None:
        return [text(f"Done: the tool was called {CALLS} times. {state.marker(CALLS + 1)}")], "end_turn"
    used = state.tool_use_ids(messages) | (taken or set())
    tool_id = ids.tool_id(f"one_tool:{seed}:{step}:{len(messages)}", used)
    say = text(f"Call {step} of {CALLS} to {tool['name']}. {state.marker(step)}")
    return [say, tool_use(tool_id, tool["name"], made)], "tool_use"
