"""The scripted agent with the memory tool: it looks first, notes what it finds, and reads its notes back.

When a request offers the memory tool (``{"type": "memory_20250818", "name": "memory"}``), the scripted
agent behaves as the documentation describes a memory-using model ("Claude automatically checks its
memory directory before starting tasks", https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool):

- **It looks first.** With no memory call and no step marker in its context, its turn only views
  ``/memories``. If that listing shows no ``task.md``, the first step's turn also creates
  ``/memories/task.md`` (the user's request word for word, then a progress list) and
  ``/memories/findings.md``.
- **It notes as it works.** Every turn that plays a step first notes what the results just received
  showed, newest first (``insert`` at line 1 of ``findings.md``): a shell command's pass/fail
  counts and failures (``compaction.core.outcomes.command_entry``, the ledger's rule: what running
  it again would not give back once the code changed), the short answer of any other tool, a
  changed file with the changed lines and the reason the agent gave, a failed call. When a work
  item is done it adds ``- done: <item> (through step N)`` under ``## Progress`` in ``task.md``
  (``str_replace`` on that heading). A file read, a listing or a search is not noted: the files
  are still there to read or search again. Before a final answer, a turn of its own writes the last
  notes; the answer comes on the next turn.
- **It reads back.** When its context shows a step marker but no call that created or read
  ``task.md`` (a compaction or a window dropped them, and with them the request it noted), or the
  first listing showed notes of an earlier session, its turn views ``task.md`` and the newest
  ``READ_BACK`` lines of ``findings.md``; it keeps its last marker, so the plan goes on where it was.
  In a new session with no marker, the progress it read back names the step to go on after.
  Clearing tool results alone never triggers a read-back: it leaves the calls, with the notes in
  their inputs, in place.

Stateless like the rest of the agent: each result is noted in the turn right after it arrived, and
everything else follows from the messages. The scenario (``scenario.respond``) is played on the tools
other than memory; without the memory tool offered, nothing here runs.
Deliberately left out: ``delete`` and ``rename`` (the handler has them; this agent never needs them),
a budget for the notes beyond reading back the newest lines, and notes about file contents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from compaction.core.actions import changes as file_changes
from compaction.core.changes import cut
from compaction.core.messages import blocks, text, text_of, tool_inputs, tool_names, tool_use, tool_use_blocks
from compaction.core.outcomes import command_entry, command_priority, first_line
from compaction.offline.scripted import ids, state

TYPE, NAME = "memory_20250818", "memory"  # SDK BetaMemoryTool20250818Param
ROOT = "/memories"
TASK, FINDINGS = f"{ROOT}/task.md", f"{ROOT}/findings.md"
PROGRESS = "## Progress (newest first)\n"
FINDINGS_HEAD = "# Findings (newest first)\n"
READ_BACK = 20  # lines of findings.md read back: the newest ones
KEEP = 2  # command_priority of a shell outcome worth a note: pass/fail counts, a failure
MAX_NOTES = 4  # findings noted in one turn, at most
THROUGH_RE = re.compile(r"\(through step (\d+)\)")
Turn = tuple[list[dict], str]
Play = Callable[..., Turn]


def is_memory_tool(tool: object) -> bool:
    """True for the memory tool's definition in a request's ``tools``."""
    return isinstance(tool, dict) and tool.get("type") == TYPE


def offered(tools: list) -> bool:
    """True when the request offers the memory tool."""
    return any(is_memory_tool(t) for t in tools)


def memory_uses(messages: list) -> list[dict]:
    """Every memory tool_use block the context still shows, in order."""
    return [u for m in messages for u in tool_use_blocks(m) if u.get("name") == NAME]


def _results(messages: list) -> dict[str, dict]:
    return state.results_by_id(messages)


def _viewed(messages: list, path: str) -> list[dict]:
    """The results of every visible ``view`` of ``path``, oldest first (missing results left out)."""
    results = _results(messages)
    uses = [u for u in memory_uses(messages) if (u.get("input") or {}).get("command") == "view"]
    return [results[u["id"]] for u in uses if (u["input"].get("path") == path and u["id"] in results)]


def notes_say(messages: list, words: str) -> bool:
    """True when a visible, successful view of the notes holds ``words`` (spacing and case ignored)."""
    words = " ".join(words.split()).lower()
    return any(
        words in " ".join(_plain(text_of(r.get("content"))).split()).lower()
        for r in _viewed(messages, TASK)
        if not r.get("is_error")
    )


def _plain(viewed: str) -> str:
    """A view's text without the line numbers in front of each line."""
    return state.NUMBERED_LINE_RE.sub("", viewed)


def _ids(seed: int, messages: list, taken: set[str], count: int) -> list[str]:
    """``count`` tool_use ids from seed and position (``ids.tool_id``), none of them already taken."""
    out: list[str] = []
    for k in range(count):
        out.append(ids.tool_id(f"memory:{seed}:{len(messages)}:{k}", taken | set(out)))
    return out


def _calls(inputs: list[dict], seed: int, messages: list, taken: set[str]) -> list[dict]:
    ids = _ids(seed, messages, taken, len(inputs))
    return [tool_use(i, NAME, args) for i, args in zip(ids, inputs, strict=True)]


def _view(path: str, lines: int | None = None) -> dict:
    args = {"command": "view", "path": path}
    return {**args, "view_range": [1, lines]} if lines else args


def _read_back() -> list[dict]:
    return [_view(TASK), _view(FINDINGS, READ_BACK)]


def _shows_task(uses: list[dict]) -> bool:
    """True when the context still shows task.md being created or read (its result may be cleared)."""
    shown = [(u.get("input") or {}) for u in uses]
    return any(i.get("path") == TASK and i.get("command") in ("create", "view") for i in shown)


def _earlier_notes(messages: list, uses: list[dict]) -> bool:
    """True when the first listing showed a task.md that was not read since."""
    first = uses[0]
    if (first.get("input") or {}) != _view(ROOT) or any(
        (u.get("input") or {}).get("path") == TASK for u in uses[1:]
    ):
        return False
    result = _results(messages).get(first["id"])
    return bool(result) and not result.get("is_error") and TASK in text_of(result.get("content"))


def _needs_notes(messages: list, uses: list[dict]) -> bool:
    """True when no task.md exists yet, as far as the context shows: the agent creates its notes."""
    if any((u.get("input") or {}).get("command") == "create" for u in uses):
        return False
    listed = [r for r in _viewed(messages, ROOT) if not r.get("is_error")]
    if listed and TASK not in text_of(listed[-1].get("content")):
        return True
    read = _viewed(messages, TASK)
    return bool(read) and bool(read[-1].get("is_error"))


def _task_words(messages: list) -> str:
    """The user's request: the text of the first message when it is the user's."""
    first = messages[0] if messages else {}
    said = text_of(first.get("content")) if first.get("role") == "user" else ""
    return said.strip() or "(the request is no longer in my context)"


def _insert(notes: list[str]) -> dict:
    """An insert at the top of findings.md, under its heading: newest first."""
    return {"command": "insert", "path": FINDINGS, "insert_line": 1, "insert_text": "\n".join(notes)}


def _new_notes(messages: list) -> list[dict]:
    return [
        {"command": "create", "path": TASK, "file_text": f"# Task\n{_task_words(messages)}\n\n{PROGRESS}"},
        {"command": "create", "path": FINDINGS, "file_text": FINDINGS_HEAD},
    ]


def findings(messages: list) -> list[str]:
    """The notes worth keeping from the results the last message holds (memory results left out)."""
    names, inputs = tool_names(messages), tool_inputs(messages)
    said = " ".join(
        state.MARKER_RE.sub("", str(b.get("text", ""))).strip()
        for b in blocks(messages[-2] if len(messages) > 1 else {})
        if b.get("type") == "text"
    )
    notes = []
    for result in state.last_results(messages):
        name = names.get(result.get("tool_use_id"))
        args = inputs.get(result.get("tool_use_id")) or {}
        if name in (None, NAME):
            continue
        body, failed = text_of(result.get("content")), bool(result.get("is_error"))
        changes = [] if failed else file_changes(name, args)
        if changes and changes != ["read"]:
            notes.append(f"- changed {args.get('path')}: {'; '.join(changes)}; why: {cut(said, 120)}")
        elif failed and name != "bash":
            target = args.get("path") or args.get("pattern") or json.dumps(args, sort_keys=True)
            notes.append(f"- {name} {cut(str(target), 80)} failed: {cut(first_line(body), 160)}")
        elif name not in ("read_file", "glob"):
            command = args["command"] if name == "bash" else f"{name} {json.dumps(args, sort_keys=True)}"
            entry, bad = command_entry(str(command), body, failed)
            if command_priority(entry, bad) >= (KEEP if name == "bash" else 1):
                notes.append(entry)
    return notes[:MAX_NOTES]


def _progress(messages: list, content: list[dict], item: Callable[[int], str | None] | None) -> dict | None:
    """A str_replace noting a finished work item, when the step now played starts another one."""
    last = state.last_marker(messages)
    now = state.last_marker([{"role": "assistant", "content": content}])
    if item is None or last is None or now is None or now[0] <= last[0]:
        return None
    done, next_item = item(last[0]), item(now[0])
    if done is None or done == next_item:
        return None
    line = f"- done: {done} (through step {last[0]})\n"
    if any(line in str((u.get("input") or {}).get("new_str", "")) for u in memory_uses(messages)):
        return None  # noted already, in a turn that only noted (before a final answer)
    return {"command": "str_replace", "path": TASK, "old_str": PROGRESS, "new_str": PROGRESS + line}


def _resumed(messages: list) -> list:
    """The messages the scenario is shown: with no marker, the step the notes read back name, as a marker."""
    if state.last_marker(messages) is not None or len(messages) < 2:
        return messages
    read = [r for r in _viewed(messages, TASK) if not r.get("is_error")]
    found = THROUGH_RE.findall(text_of(read[-1].get("content"))) if read else []
    if not found:
        return messages
    step = max(int(n) for n in found)
    last = messages[-2]
    resumed = {**last, "content": [*blocks(last), text(f"Going on after {state.marker(step)}.")]}
    return [*messages[:-2], resumed, messages[-1]]


def respond(
    play: Play,
    messages: list,
    *,
    tools: list,
    seed: int = 0,
    taken: set[str] | None = None,
    item: Callable[[int], str | None] | None = None,
) -> Turn:
    """The next turn of the scenario ``play`` as a memory-using agent: a memory turn, or its turn with notes.

    ``item`` names the work item of a step (for the progress notes); None for a scenario without items.
    """
    others = [t for t in tools if not is_memory_tool(t)]
    taken = state.tool_use_ids(messages) | set(taken or ())
    last = state.last_marker(messages)

    def own_turn(say: str, inputs: list[dict]) -> Turn:  # a turn of memory calls only, the marker kept
        words = f"{say} {state.marker(*last)}" if last else say
        return [text(words), *_calls(inputs, seed, messages, taken)], "tool_use"

    uses = memory_uses(messages)
    if not uses and last is None:
        return own_turn("I'll check my memory directory before I start.", [_view(ROOT)])
    if last is not None and not _shows_task(uses):
        return own_turn("My context no longer shows my notes: reading them back.", _read_back())
    if _earlier_notes(messages, uses):
        return own_turn("My memory holds notes from an earlier session: reading them first.", _read_back())
    content, stop = play(_resumed(messages), tools=others, seed=seed, taken=taken)
    inputs = _new_notes(messages) if _needs_notes(messages, uses) else []
    noted = findings(messages)
    if noted:
        inputs.append(_insert(noted))
    progress = _progress(messages, content, item)
    inputs += [progress] if progress else []
    if not inputs:
        return content, stop
    taken |= {b["id"] for b in content if b.get("type") == "tool_use"}
    if stop != "tool_use":  # note first, answer on the next turn (which has nothing new to note)
        return own_turn("Noting what the last results showed before I answer.", inputs)
    said = [b for b in content if b.get("type") == "text"]
    return [*said, *_calls(inputs, seed, messages, taken), *[b for b in content if b not in said]], stop
