"""The offline summarizer: an extractive summary in the nine sections of the course's prompt.

A request is a summary request when its last user message ends with a text block starting with
``compaction.layers.summarize.NO_TOOLS_HEAD``. The answer is ``<analysis>`` (a few counts) and then
``<summary>`` with the sections of ``compaction.layers.summarize.SECTIONS``, filled only from what the
conversation holds: the first user text, the tool calls made (files read, edited, written), the
results that failed, the agent's own words, and the scripted plan for what is still pending.
A previous summary found in the input is carried over (its request, files, errors, messages).
Only Current Work quotes the ``[step N]`` marker, so the scenario resumes from it.
Deliberately left out: any judgement; nothing is paraphrased, it is all copied and truncated.
"""

from __future__ import annotations

import re

from compaction.core.messages import blocks
from compaction.core.summary_prompt import NO_TOOLS_HEAD, SECTIONS
from compaction.offline import plan, state
from compaction.offline.extract import facts as conversation_facts
from compaction.offline.extract import neutral, short

HEADER_RE = re.compile(r"^(\d)\. (" + "|".join(re.escape(s) for s in SECTIONS) + r"):\s*$", re.MULTILINE)


def is_summary_request(messages: list) -> bool:
    """True when the last user message ends with a text block that starts with NO_TOOLS_HEAD."""
    if not messages or messages[-1].get("role") != "user":
        return False
    content = blocks(messages[-1])
    return (
        bool(content)
        and content[-1].get("type") == "text"
        and str(content[-1]["text"]).lstrip().startswith(NO_TOOLS_HEAD)
    )


def previous_sections(text: str) -> dict[str, list[str]]:
    """The sections of a summary text: name -> its non-empty lines."""
    found = list(HEADER_RE.finditer(text))
    sections = {}
    for match, after in zip(found, found[1:] + [None], strict=False):
        end = after.start() if after else len(text)
        body = text[match.end() : end].split("</summary>")[0]
        sections[match.group(2)] = [line for line in body.strip().splitlines() if line.strip()]
    return sections


def _conversation(messages: list) -> list:
    """The messages without the summary prompt block at the very end."""
    last = blocks(messages[-1])[:-1]
    return messages[:-1] + ([{"role": "user", "content": last}] if last else [])


PLACEHOLDERS = {"- none so far", "- nothing yet", "- no files touched yet", "- none recorded"}


def _dedupe(lines: list[str]) -> list[str]:
    return [line for line in dict.fromkeys(lines) if line not in PLACEHOLDERS]


def summarize(messages: list) -> str:
    """The full answer to a summary request: ``<analysis>`` then ``<summary>`` with nine sections."""
    convo = _conversation(messages)
    user_texts, previous = [], {}
    for m in convo:
        if m.get("role") != "user":
            continue
        for b in blocks(m):
            if b.get("type") != "text" or not str(b.get("text", "")).strip():
                continue
            if HEADER_RE.search(b["text"]):
                previous = previous_sections(b["text"])
            elif not b["text"].lstrip().startswith("["):  # "[snip] ...", "[Restored ...": harness notes
                user_texts.append(b["text"])
    facts = conversation_facts(convo)
    last = state.last_marker(convo)
    sections = {
        "Primary Request and Intent": previous.get(SECTIONS[0])
        or (user_texts[0][:2000].strip().splitlines() if user_texts else ["(none)"]),
        "Key Technical Concepts": _dedupe(previous.get(SECTIONS[1], []) + facts["concepts"]),
        "Files and Code Sections": _merge_files(previous.get(SECTIONS[2], []), facts["files"]),
        "Errors and Fixes": _dedupe(previous.get(SECTIONS[3], []) + facts["errors"]) or ["- none so far"],
        "Problem Solving": _dedupe(previous.get(SECTIONS[4], []) + facts["steps"])[-20:] or ["- nothing yet"],
        "All User Messages": _dedupe(
            previous.get(SECTIONS[5], []) + [f"- {short(neutral(t), 300)}" for t in user_texts]
        ),
        "Pending Tasks": _pending(last) or previous.get(SECTIONS[6]) or ["- none recorded"],
        "Current Work": facts["current"] or previous.get(SECTIONS[7]) or ["- nothing started yet"],
        "Optional Next Step": _next(last)
        or previous.get(SECTIONS[8])
        or ["- continue from the last message"],
    }
    analysis = (
        f"- {len(convo)} messages: {facts['turns']} assistant turns, {facts['calls']} tool calls, "
        f"{facts['failed']} of them failed.\n"
        f"- {len(facts['files'])} files touched; {len(user_texts)} user messages"
        + ("; a previous summary was carried over." if previous else ".")
        + (f"\n- The work stopped at step {last[0]}." if last else "")
    )
    body = "\n\n".join(
        f"{i}. {name}:\n" + "\n".join(lines) for i, (name, lines) in enumerate(sections.items(), 1)
    )
    return f"<analysis>\n{analysis}\n</analysis>\n\n<summary>\n{body}\n</summary>"


def _merge_files(previous: list[str], files: dict[str, list[str]]) -> list[str]:
    """One entry per path, its actions as sub-items: earlier summaries' first, then this conversation's."""
    merged: dict[str, list[str]] = {}  # path -> actions, in order
    path = None
    for line in previous:
        if line.startswith("- ") and line.endswith(":"):
            path = line[2:-1]
            merged.setdefault(path, [])
        elif line.startswith("  - ") and path is not None:
            merged[path].append(line[4:])
    for path, actions in files.items():
        merged.setdefault(path, []).extend(actions)
    lines = []
    for path, actions in merged.items():
        lines.append(f"- {path}:")
        lines += [f"  - {a}" for a in _dedupe(actions)]
    return lines or ["- no files touched yet"]


def _pending(last: tuple[int, bool] | None) -> list[str]:
    if last is None:
        return []
    done_through = last[0] - (1 if last[1] else 0)
    items = _dedupe([s.item for s in plan.PLAN[done_through:]])
    return [f"- {item}" for item in items] or ["- none: every work item is done"]


def _next(last: tuple[int, bool] | None) -> list[str]:
    if last is None:
        return []
    step = last[0] if last[1] else last[0] + 1
    if step > len(plan.PLAN):
        return ["- none: report that the work is done"]
    return [f"- step {step}: {plan.PLAN[step - 1].say}"]
