"""Strategies with memory: the offline agent keeps its own notes, and what that buys and costs.

``X + memory`` is strategy ``X`` with the memory tool offered to the agent (``compaction.agent.memory``
on a fresh folder of the run): the offline agent views its memory first, notes what it finds, and
reads its notes back after a compaction took them (``compaction.offline.scripted.memory``). Only a
live run can take notes, so these strategies run on the offline sessions only; a recording's
replies are fixed.

A memory-using agent reads its notes before it answers (the documentation: "Claude automatically
checks its memory directory before starting tasks",
https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool). So a strategy with
memory is scored on its final context *plus one read of every note file* (``read_notes``), and that
read is priced as one request more: the final context with the notes after it. ``usage`` says what
memory put into the session: its calls, the turns that only used memory, and the tokens of its
calls and results. Deliberately left out: any budget or pruning of the notes (the agent reads back
the newest lines only; the final read reads everything).
"""

from __future__ import annotations

from collections.abc import Sequence

from compaction.agent.memory import MemoryFolder
from compaction.core.messages import assistant, blocks, tool_result_blocks, tool_use, tool_use_blocks, user
from compaction.core.tokens import estimate_tokens
from compaction.evaluate.cost import Request
from compaction.evaluate.strategy_names import MEMORY_SUFFIX as SUFFIX  # noqa: F401 - named here too
from compaction.evaluate.strategy_names import split  # noqa: F401 - the rule's home, light for the options

NAME = "memory"


def read_notes(memory: MemoryFolder, room: int | None = None) -> list[dict]:
    """The agent reading its notes before it answers: a view of each file, within ``room`` tokens.

    Files are read smallest first, each whole when its call and answer fit in what is left of
    ``room``, else its first lines that fit (the notes are newest first), else not at all.
    None: everything.
    """
    files = sorted(
        (p.stat().st_size, p.relative_to(memory.root).as_posix())
        for p in memory.root.rglob("*")
        if p.is_file() and not p.is_symlink() and not p.name.startswith(".")
    )
    left = room if room is not None else float("inf")
    calls: list[dict] = []
    for _, name in files:
        found = _fitting(memory, {"command": "view", "path": f"/memories/{name}"}, left)
        if found is not None:
            calls.append(tool_use(f"toolu_notes{len(calls):02d}", NAME, found[0]))
            left -= found[1]
    if not calls:
        return []
    return [assistant("Reading my notes before I answer.", *calls), user(*[memory.run(c) for c in calls])]


def _cost(memory: MemoryFolder, view: dict) -> int:
    """Tokens of one view call and its answer."""
    call = tool_use("toolu_notes00", NAME, view)
    pair = [assistant(call), user(memory.run(call))]
    return estimate_tokens(pair, "tiktoken")


def _fitting(memory: MemoryFolder, view: dict, room: float) -> tuple[dict, int] | None:
    """(``view`` whole, or with the most first lines, whose call and answer fit in ``room``; tokens)."""
    whole = _cost(memory, view)
    if whole <= room:
        return view, whole
    text = (memory.root / view["path"].removeprefix("/memories/")).read_text(encoding="utf-8")
    low, high = 0, len(text.splitlines())  # low lines fit (0: none); more than high do not
    while low < high:
        middle = (low + high + 1) // 2
        if _cost(memory, {**view, "view_range": [1, middle]}) <= room:
            low = middle
        else:
            high = middle - 1
    if not low:
        return None
    cut = {**view, "view_range": [1, low]}
    return cut, _cost(memory, cut)


def usage(session: Sequence[dict], requests: Sequence[Request] = ()) -> dict[str, int]:
    """What memory put into a session: calls, memory-only turns, tokens of its calls and results.

    ``sent``: the tokens of memory calls and results summed over every agent request (``requests``):
    what the notes cost while they stay in the context, one request after another.
    """
    ids: set[str] = set()
    turns = inputs = 0
    for message in session:
        uses = tool_use_blocks(message)
        mine = [u for u in uses if u.get("name") == NAME]
        ids |= {u["id"] for u in mine}
        turns += bool(mine) and len(mine) == len(uses)
        inputs += sum(estimate_tokens([{"role": "assistant", "content": [u]}], "tiktoken") for u in mine)
    results = [b for m in session for b in tool_result_blocks(m) if b.get("tool_use_id") in ids]
    answered = sum(estimate_tokens([{"role": "user", "content": [b]}], "tiktoken") for b in results)
    sent = sum(
        _tokens_of(block)
        for request in requests
        if not request.summary
        for message in request.messages
        for block in blocks(message)
        if block.get("id") in ids or block.get("tool_use_id") in ids
    )
    return {"calls": len(ids), "turns": turns, "call_tokens": inputs, "result_tokens": answered, "sent": sent}


def _tokens_of(block: dict) -> int:
    """The tokens of one block, as a message of its own."""
    role = "assistant" if block.get("type") == "tool_use" else "user"
    return estimate_tokens([{"role": role, "content": [block]}], "tiktoken")
