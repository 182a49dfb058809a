"""The offline summarizer: an extractive summary in the nine sections of the course's prompt.

A request is a summary request when its last user message ends with a text block starting with
``compaction.summarize.NO_TOOLS_HEAD``. The answer is ``<analysis>`` (a few counts) and then
``<summary>`` with the sections of ``compaction.summarize.SECTIONS``, filled only from what the
conversation holds: the first user text, the tool calls made (files read, edited, written), the
results that failed, the agent's own words, and the scripted plan for what is still pending.
A previous summary found in the input is carried over (its request, files, errors, messages).
Only Current Work quotes the ``[step N]`` marker, so the scenario resumes from it.
Deliberately left out: any judgement; nothing is paraphrased, it is all copied and truncated.
"""

from __future__ import annotations

import re

from compaction.messages import blocks, text_of
from compaction.offline import plan, state
from compaction.summarize import NO_TOOLS_HEAD, SECTIONS

HEADER_RE = re.compile(r"^(\d)\. (" + "|".join(re.escape(s) for s in SECTIONS) + r"):\s*$", re.MULTILINE)
LANGUAGES = {".py": "Python", ".md": "Markdown", ".txt": "plain text", ".json": "JSON", ".toml": "TOML"}


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


def _short(value: str, limit: int) -> str:
    value = " ".join(str(value).split())
    return value if len(value) <= limit else value[: limit - 3] + "..."


def _neutral(value: str) -> str:
    """Markers made inert, ``[step 4]`` -> ``(step 4)``, for every section but Current Work."""
    return state.MARKER_RE.sub(lambda m: f"(step {m.group(1)}{m.group(2) or ''})", value)


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
    facts = _facts(convo)
    last = state.last_marker(convo)
    sections = {
        "Primary Request and Intent": previous.get(SECTIONS[0])
        or (user_texts[0][:2000].strip().splitlines() if user_texts else ["(none)"]),
        "Key Technical Concepts": _dedupe(previous.get(SECTIONS[1], []) + facts["concepts"]),
        "Files and Code Sections": _merge_files(previous.get(SECTIONS[2], []), facts["files"]),
        "Errors and Fixes": _dedupe(previous.get(SECTIONS[3], []) + facts["errors"]) or ["- none so far"],
        "Problem Solving": _dedupe(previous.get(SECTIONS[4], []) + facts["steps"])[-20:] or ["- nothing yet"],
        "All User Messages": _dedupe(
            previous.get(SECTIONS[5], []) + [f"- {_short(_neutral(t), 300)}" for t in user_texts]
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


def _facts(convo: list) -> dict:
    """What the tool calls and the agent's turns of ``convo`` show."""
    results = state.results_by_id(convo)
    files: dict[str, list[str]] = {}  # path -> what was done to it, in order
    concepts, errors, steps, current = [], [], [], []
    turns = calls = failed = 0
    failing_run = None  # index in errors of the last failing test run, to attach the fixes to
    for m in convo:
        if m.get("role") != "assistant":
            continue
        turns += 1
        said = " ".join(str(b.get("text", "")) for b in blocks(m) if b.get("type") == "text").strip()
        if said:
            steps.append(f"- {_short(_neutral(said), 200)}")
        current = [f"- {_short(said, 400)}"] if said else []
        for use in (b for b in blocks(m) if b.get("type") == "tool_use"):
            calls += 1
            name, args = use.get("name", "?"), use.get("input") or {}
            target = str(
                args.get("path") or args.get("command") or args.get("pattern") or args.get("focus") or ""
            )
            current.append(f"- called {name}: {_short(target, 160)}")
            concepts.append(f"- the {name} tool")
            path = args.get("path")
            if isinstance(path, str):
                for suffix, language in LANGUAGES.items():
                    if path.endswith(suffix):
                        concepts.append(f"- {language}")
                files.setdefault(path, []).append(_action(name, args))
                if name in ("edit_file", "write_file") and failing_run is not None:
                    errors[failing_run] += f"; then edited {path}"
            result = results.get(use.get("id"))
            body = text_of(result.get("content")) if result else ""
            outcome = state.run_outcome(body) if name == "bash" else None
            if result and result.get("is_error") and not outcome:
                failed += 1
                first = (body.strip().splitlines() or ["(no message)"])[0]
                errors.append(f"- {name} {_short(target, 80)} failed: {_short(first, 160)}")
            if outcome:
                concepts.append("- the project's own test runner, python run_tests.py")
                names = [ln[len("FAILED ") :] for ln in body.splitlines() if ln.startswith("FAILED ")]
                if outcome[1]:
                    errors.append(
                        f"- `{_short(target, 80)}`: {outcome[0]} passed, {outcome[1]} failed "
                        f"({', '.join(names[:8])})"
                    )
                    failing_run = len(errors) - 1
                elif failing_run is not None:
                    errors.append(f"- `{_short(target, 80)}`: {outcome[0]} passed, 0 failed after the fixes")
                    failing_run = None
    return {
        "files": files,
        "concepts": _dedupe(concepts),
        "errors": errors,
        "steps": steps[-12:],
        "current": current,
        "turns": turns,
        "calls": calls,
        "failed": failed,
    }


def _action(name: str, args: dict) -> str:
    if name == "edit_file":
        old, new = str(args.get("old_text", "")), str(args.get("new_text", ""))
        if new.startswith(old):
            added = (new[len(old) :].strip().splitlines() or [""])[0]
            anchor = (old.strip().splitlines() or [""])[-1]
            return f"edited: added `{_short(added, 90)}` after `{_short(anchor, 60)}`"
        pairs = zip(old.splitlines(), new.splitlines(), strict=False)
        first = next(((a, b) for a, b in pairs if a != b), (old.strip(), new.strip()))
        return f"edited: `{_short(first[0], 80)}` -> `{_short(first[1], 80)}`"
    if name == "write_file":
        return f"written ({len(str(args.get('content', '')).splitlines())} lines)"
    return "read" if name == "read_file" else name


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
