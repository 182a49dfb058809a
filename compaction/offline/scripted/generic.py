"""The generic plan: a task and tools the course's scenarios do not know, played over the tools offered.

When a request's tools are not the textstats plan's (``scenario``), the offline model still answers as
a model does for any client (the SDK's tool runner, an agent framework, a practitioner's own loop): it
calls only tools the request offers, with inputs their ``input_schema`` accepts (``schema``), reads
each result before the next call, and ends with ``end_turn`` after a bounded number of turns. The plan
follows from the task's words and the tools alone, deterministically:

* the task is the newest user text that names a target, else a summary's Primary Request (after a
  compaction), else the first user text;
* its targets are the file paths and `backquoted` terms it names (``focus.focus_terms``), at most
  ``MAX_CALLS``; each goes to the offered tool that shares the most words with the task and has a
  property to put it in (a path in a property named like a path, a term in one named like a query),
  the tool's other required properties made from the schema and the task's key words;
* a task that names no target calls each tool that shares a word with the task once, its string
  properties filled with the task's key words ("What is the weather in Paris?" gives ``get_weather``
  the location ``Paris``); when no tool shares a word, each tool that reads (``READING``) is called
  once to look around; a task no such tool serves is answered without a call;
* one call a turn; the next turn says what came back (its lines and the names it defines, or its error);
* before the answer, a result the context no longer shows (cleared or compacted away) is fetched once
  more when its tool reads (its name or description has a word of ``READING``), so the answer is made
  from what is in front of the model; the answer lists each target with what its result showed.

Progress lives in the conversation, as for the textstats plan (``state``): each turn ends with the
marker ``[plan step N]`` (``[plan step N re-read]`` for the fetches before the answer), which a summary's
Current Work carries over a compaction. It differs from textstats' ``[step N]`` so that nothing reading
that plan takes a generic conversation for its own. Bound: ``MAX_CALLS`` calls, one turn of re-reads,
one answer. Deliberately left out: following what a result mentions (the plan is fixed by the task and
the tools), parallel calls, server tools and Anthropic-defined tool types (only custom tools, whose
schema is in the request), and any understanding of a result beyond its lines and definitions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compaction.core.messages import blocks, text, text_of, tool_result_blocks, tool_use, tool_use_blocks
from compaction.core.placeholders import is_placeholder
from compaction.core.summary_prompt import SECTIONS
from compaction.offline.scripted import ids, schema
from compaction.offline.scripted.focus import PATH_RE, focus_terms
from compaction.offline.scripted.state import own_texts
from compaction.offline.scripted.summarizer import HEADER_RE, previous_sections

MARKER_RE = re.compile(r"\[plan step (\d+)( re-read)?\]")
MAX_CALLS = 8
READING = frozenset("read get view cat open show list search fetch find grep look load query print".split())
PATH_SLOTS = ("path", "file", "filename", "uri", "url", "location", "target", "name")
TERM_SLOTS = ("query", "pattern", "search", "term", "keyword", "text", "expression", "q", "name")
STOP = frozenset(
    "a an and are as at be by can could do does for from how i in into is it its me my of on or please "
    "say show tell that the their them then there these they this those to up was what when where which "
    "who why will with would you your".split()
)
WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
DEFINES_RE = re.compile(
    r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|fn|func)\s+([A-Za-z_]\w*)", re.M
)
GONE_RE = re.compile(r"^\[[^\]\n]*\bcleared\b[^\]\n]*\]$", re.IGNORECASE)  # "[tool result cleared ...]"


@dataclass(frozen=True)
class Call:
    """One call of the plan: the tool, its input, and what it is about (a path, a term, key words)."""

    tool: str
    input: dict
    target: str


def marker(step: int, reread: bool = False) -> str:
    """The marker text of a generic turn: ``[plan step 2]`` or ``[plan step 3 re-read]``."""
    return f"[plan step {step}{' re-read' if reread else ''}]"


def words(value: str) -> list[str]:
    """The words of a text in order, as written (``read_file`` gives ``read``, ``file``)."""
    return WORD_RE.findall(value.replace("_", " "))


def _lower(value: str) -> set[str]:
    return {w.lower() for w in words(value)} - STOP


def tool_words(tool: dict) -> set[str]:
    """The words of a tool's name and description, lowercased, without stop words."""
    return _lower(f"{tool.get('name', '')} {tool.get('description') or ''}")


def task_of(messages: list) -> tuple[str, int]:
    """(the task, the index of the message that holds it); ``("", 0)`` for a conversation without one."""
    fallback = ("", 0)
    for i in range(len(messages) - 1, -1, -1):
        for block in reversed(blocks(messages[i])):
            said = block.get("text") if block.get("type") == "text" else None
            if not isinstance(said, str) or not said.strip():
                continue
            if HEADER_RE.search(said):  # a summary: the user's request is its first section
                return "\n".join(previous_sections(said).get(SECTIONS[0], [])), i
            if messages[i].get("role") == "user" and not said.lstrip().startswith("["):
                if focus_terms(said):
                    return said.strip(), i
                fallback = (said.strip(), i)
    return fallback


def last_marker(messages: list) -> tuple[int, bool] | None:
    """The newest generic marker as (step, is_reread), or None before the first step."""
    for message in reversed(messages):
        for said in reversed(list(own_texts([message]))):
            found = MARKER_RE.findall(said)
            if found:
                return int(found[-1][0]), bool(found[-1][1])
    return None


def custom_tools(tools: list) -> list[dict]:
    """The offered tools the plan may call: custom tools with a name and a schema the offline model reads."""
    usable = []
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        if tool.get("type") not in (None, "custom") or not isinstance(tool.get("input_schema"), dict):
            continue
        try:
            schema.problem(tool["input_schema"], {})
        except schema.Unsupported:
            continue
        usable.append(tool)
    return usable


def _affinity(name: str, slots: tuple[str, ...]) -> int:
    """How well a property name suits a kind of target: higher is better, 0 for not at all."""
    lowered = name.lower()
    return max(
        (len(slots) - k for k, slot in enumerate(slots) if slot in lowered.split("_") or slot == lowered),
        default=0,
    )


def _key_words(task: str, tool: dict) -> str:
    """The task's words that neither the tool's own words nor stop words cover, as written: at most three."""
    own = tool_words(tool)
    keys = [w for w in words(task) if w.lower() not in STOP and w.lower() not in own]
    return " ".join(dict.fromkeys(keys[:3]))


def _input(tool: dict, slot: str | None, target: str, keys: str) -> dict | None:
    """The tool's input with ``target`` in ``slot`` and key words in its other strings; None if refused."""

    def prefer(name: str | None, sub: dict) -> list:
        if name is not None and name == slot:
            return [target]
        return [keys] if keys and name is not None else []

    made = schema.make(tool["input_schema"], prefer)
    if made is schema.NOTHING or not isinstance(made, dict):
        return None
    if slot is not None and made.get(slot) != target:
        return None
    return made


def _for_target(target: str, tools: list[dict], task: str) -> Call | None:
    """The best call for one target: the tool sharing most words with the task that takes it."""
    slots = PATH_SLOTS if PATH_RE.fullmatch(target) else TERM_SLOTS
    asked = _lower(task)
    best: tuple[tuple, Call] | None = None
    for k, tool in enumerate(tools):
        properties = tool["input_schema"].get("properties") or {}
        ranked = sorted(properties, key=lambda p: -_affinity(p, slots))
        slot = ranked[0] if ranked else None
        fit = _affinity(slot, slots) if slot else 0
        shared = len(tool_words(tool) & asked)
        if slot is None or not (shared or fit):
            continue
        made = _input(tool, slot, target, _key_words(task, tool))
        if made is None:
            continue
        score = (shared, fit, -k)
        if best is None or score > best[0]:
            best = (score, Call(tool["name"], made, target))
    return best[1] if best else None


def plan_calls(task: str, tools: list) -> list[Call]:
    """The plan's calls for a task over the offered tools, in order, at most ``MAX_CALLS``."""
    usable = custom_tools(tools)
    targets = focus_terms(task)
    if targets:
        found = [_for_target(t, usable, task) for t in targets]
        return [c for c in found if c is not None][:MAX_CALLS]
    asked = _lower(task)
    chosen = [t for t in usable if tool_words(t) & asked] or [t for t in usable if tool_words(t) & READING]
    calls = []
    for tool in chosen:
        keys = _key_words(task, tool)
        made = _input(tool, None, keys, keys)
        if made is not None:
            calls.append(Call(tool["name"], made, keys or tool["name"]))
    return calls[:MAX_CALLS]


def result_of(messages: list, call: Call) -> tuple[str, bool] | None:
    """(text, is_error) of the newest result the context still shows for ``call``; None if none."""
    for i in range(len(messages) - 2, -1, -1):
        for use in tool_use_blocks(messages[i]):
            if use.get("name") != call.tool or use.get("input") != call.input:
                continue
            for result in tool_result_blocks(messages[i + 1]):
                if result.get("tool_use_id") == use.get("id"):
                    body = text_of(result.get("content"))
                    if is_placeholder(body) or GONE_RE.match(body.strip()):
                        return None
                    return body, bool(result.get("is_error"))
    return None


def describe(body: str, is_error: bool) -> str:
    """What a result showed, in a few words: its error, or its lines and the names it defines."""
    lines = [line for line in body.splitlines() if line.strip()]
    if is_error:
        return "failed: " + (lines[0].strip()[:120] if lines else "(no message)")
    if not lines:
        return "empty"
    defined = list(dict.fromkeys(DEFINES_RE.findall(body)))
    count = f"{len(body.splitlines())} line{'s' if len(body.splitlines()) != 1 else ''}"
    if defined:
        return f"{count}, defines {', '.join(defined[:6])}" + (" and more" if len(defined) > 6 else "")
    return f"{count}, starting `{lines[0].strip()[:80]}`"


def _reads(call: Call, tools: list[dict]) -> bool:
    tool = next((t for t in tools if t.get("name") == call.tool), None)
    return tool is not None and bool(tool_words(tool) & READING)


def generic(
    messages: list, *, tools: list, seed: int = 0, taken: set[str] | None = None
) -> tuple[list[dict], str]:
    """The generic plan's next turn: (content blocks, stop_reason)."""
    task, start = task_of(messages)
    calls = plan_calls(task, tools)
    last = last_marker(messages[start:])
    step = 1 if last is None else (last[0] if last[1] else last[0] + 1)
    used = {b.get("id") for m in messages for b in tool_use_blocks(m)} | (taken or set())
    previous = calls[step - 2] if 2 <= step <= len(calls) + 1 and not (last and last[1]) else None
    seen = result_of(messages, previous) if previous else None
    said = f"{previous.target}: {describe(*seen)}. " if previous and seen else ""
    if step <= len(calls):
        call = calls[step - 1]
        key = f"generic:{seed}:{step}:{len(messages)}"
        blocks_ = [text(f"{said}Calling {call.tool} for {call.target}. {marker(step)}")]
        return blocks_ + [tool_use(ids.tool_id(key, used), call.tool, call.input)], "tool_use"
    done = len(calls) + 1
    missing = [c for c in calls if result_of(messages, c) is None and _reads(c, custom_tools(tools))]
    if missing and not (last and last[1]):
        names = ", ".join(c.target for c in missing)
        say = f"{said}Before I answer I need {names} again: the context no longer shows what came back. "
        content = [text(say + marker(done, True))]
        for k, call in enumerate(missing):
            content.append(
                tool_use(
                    ids.tool_id(f"generic:{seed}:{done}:re:{k}:{len(messages)}", used), call.tool, call.input
                )
            )
        return content, "tool_use"
    return [text(_answer(messages, calls, task, tools) + " " + marker(done))], "end_turn"


def _answer(messages: list, calls: list[Call], task: str, tools: list) -> str:
    if not calls:
        offered = ", ".join(t.get("name", "?") for t in tools if isinstance(t, dict)) or "none"
        return (
            "This is the offline model's generic plan: the task names no file or `term`, no offered tool "
            f"shares a word with it and none reads, so I called none (tools offered: {offered})."
        )
    lines = [f"Done: {len(calls)} call{'s' if len(calls) != 1 else ''}. What came back:"]
    for call in calls:
        seen = result_of(messages, call)
        shown = describe(*seen) if seen else "its result is no longer in my context"
        lines.append(f"- {call.target} ({call.tool}): {shown}")
    return "\n".join(lines)
