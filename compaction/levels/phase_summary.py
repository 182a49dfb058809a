"""Level 2, part two: a finished phase replaced by a summary of at most 300 tokens.

``summarize_phase`` writes Markdown in the guide's shape ("## Research phase complete"): the
decisions the agent stated with their reasons, the failing tests with their messages, the files with
line numbers, the latest result of each test command, the lines changed, and the agent's last
sentence word for word (where it was, so that it carries on instead of starting over).
``compact_phases`` writes the whole list to a transcript, then swaps each finished phase (from
``compaction.levels.phases.detect_phases``) for its summary and a note.
Deliberately left out: judging which findings matter (the summary is extractive, not a model's),
step-by-step tool detail, file contents, and dead ends (failed calls, empty searches).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from compaction.core.messages import Message, text, text_of, tool_result_blocks, tool_use_blocks
from compaction.core.tokens import count_text
from compaction.core.transcript import write_transcript
from compaction.levels.condense import failures
from compaction.levels.locations import line_ranges, references
from compaction.levels.phases import action_of, detect_phases, steps

MAX_SUMMARY_TOKENS = 300
_NUMBERED = re.compile(r"^ *(\d+)\t(.*)$", re.M)


def edited_line(messages: Sequence[Message], path: str, old_text: str) -> int | None:
    """The line number where ``old_text`` starts, from the newest numbered read of ``path``."""
    first = (old_text or "").strip().splitlines()[:1]
    reads = {  # tool_use_id of a read of this path
        b["id"]
        for m in messages
        for b in tool_use_blocks(m)
        if action_of(b.get("name", ""), b.get("input") or {}) == ("read", path)
    }
    for message in reversed(messages):
        for block in tool_result_blocks(message):
            if first and block.get("tool_use_id") in reads:
                for number, line in _NUMBERED.findall(text_of(block.get("content"))):
                    if first[0] in line:
                        return int(number)
    return None


# words that mark a statement as a decision with its reason
REASON = re.compile(r"(?i)\b(because|so|since|decid\w*|will|instead|found it|the cause)\b")


def statement(message: Message) -> str:
    """What the assistant said in a step, on one line, without the offline agent's step marker."""
    return re.sub(r"\s*\[step \d+\]$", "", " ".join(text_of(message.get("content")).split()))


def phase_facts(messages: Sequence[Message], start: int, end: int) -> dict[str, list[str]]:
    """What a phase summary keeps, by heading: decisions, findings, files, tests, changes, last step."""
    facts: dict[str, list[str]] = {
        "Decisions": [],
        "Key findings": [],
        "Files": [],
        "Tests": [],
        "Changes": [],
    }
    files: dict[str, set[int]] = {}  # path -> line numbers cited for it
    tests: dict[str, str] = {}  # test command -> its latest result
    for step in steps(messages[:end]):
        if step.index < start or step.kind == "summary":
            continue
        said = statement(messages[step.index])
        if REASON.search(said):
            facts["Decisions"].append(said[:240])
        answers = tool_result_blocks(messages[step.index + 1]) if step.index + 1 < end else []
        outputs = {b.get("tool_use_id"): b for b in answers}
        for use in tool_use_blocks(messages[step.index]):
            args = use.get("input") or {}
            kind, path = action_of(use.get("name", ""), args)
            result = outputs.get(use.get("id")) or {}
            output = text_of(result.get("content"))
            if kind == "test" and _test_line(output):
                tests[str(args.get("command", "tests"))] = _test_line(output)
                found = failures(output)
                facts["Key findings"] = [f"`{n}` fails: {e}" if e else f"`{n}` fails" for n, e in found]
            elif result.get("is_error") or not output.strip():
                continue  # a dead end: the call failed or found nothing
            elif kind == "search":  # the files it found, with the lines it cited
                for cited, lines in references(output).items():
                    if lines:
                        files.setdefault(cited, set()).update(lines)
            elif kind == "read" and path:
                files.setdefault(path, set())
            elif kind == "edit":
                line = edited_line(messages[:end], path, args.get("old_text", ""))
                facts["Changes"].append(f"{path}:{line}" if line else str(path))
    facts["Files"] = [f"{p}: {_ranges(n)}" if n else p for p, n in sorted(files.items())]
    facts["Tests"] = [f"`{c}`: {r}" for c, r in tests.items()]
    facts["Decisions"] = list(dict.fromkeys(facts["Decisions"]))
    last = [m for m in messages[start:end] if m.get("role") == "assistant"][-1:]
    said = " ".join(text_of(last[0].get("content")).split()) if last else ""
    facts["Last step"] = [said[:240]] if said else []  # verbatim: where the agent was when the phase ended
    return facts


def _ranges(numbers: set[int]) -> str:
    return line_ranges(sorted(numbers)[:8])


def _test_line(output: str) -> str:
    total = re.findall(r"^.*\b\d+ (?:passed|failed)\b.*$|^(?:OK|FAILED \(.*\))$", output, re.M)
    return total[-1].strip("= ") if total else ""


def summarize_phase(messages: Sequence[Message], start: int, end: int, *, kind: str | None = None) -> str:
    """A Markdown summary of messages ``start`` to ``end`` in at most 300 tokens."""
    if not (0 <= start < end <= len(messages)):
        raise ValueError(f"summarize_phase: need 0 <= start < end <= {len(messages)}, got {start}, {end}")
    edits = [s for s in steps(messages[:end]) if s.index >= start and s.kind == "edit"]
    kind = kind or ("implementation" if edits else "research")
    facts = phase_facts(messages, start, end)
    while True:
        lines = [f"## {kind.capitalize()} phase complete (messages {start}-{end - 1})"]
        for heading, items in facts.items():
            lines += [f"- {heading}: " + "; ".join(items)] if items else []
        summary = "\n".join(lines)
        longest = max(facts, key=lambda h: len(facts[h]))
        if count_text(summary, "tiktoken") <= MAX_SUMMARY_TOKENS or len(facts[longest]) <= 1:
            return summary
        facts[longest] = facts[longest][:-1]  # drop the least recent or least cited item


def _user_words(messages: Sequence[Message]) -> list[str]:
    """What the user said in their own words (not tool results) in these messages."""
    return [
        " ".join(str(b.get("text", "")).split())[:200]
        for m in messages
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "text" and str(b.get("text", "")).strip()
    ] + [
        " ".join(m["content"].split())[:200]
        for m in messages
        if m.get("role") == "user" and isinstance(m.get("content"), str)
    ]


def compact_phases(
    messages: Sequence[Message], *, transcript_dir: str | Path, keep_recent: int = 0
) -> list[Message]:
    """A new list where each finished phase (all but the ``keep_recent`` newest) is its summary.

    The whole list is written to a transcript first. A phase becomes two messages: the summary
    (assistant) and a note naming the transcript and quoting what the user said in that phase (user),
    so roles keep alternating and no tool_use loses its result.
    """
    if keep_recent < 0:
        raise ValueError(f"compact_phases: keep_recent must be >= 0, got {keep_recent}")
    finished = [p for p in detect_phases(messages) if p.reason != "open"]
    finished = finished[: len(finished) - keep_recent] if keep_recent else finished
    finished = [
        p
        for p in finished
        if messages[p.start].get("role") == "assistant"
        and (p.end == len(messages) or messages[p.end].get("role") == "assistant")
    ]
    if not finished:
        return list(messages)
    path = write_transcript(messages, transcript_dir)
    shown = path if not Path(transcript_dir).is_absolute() else path.name
    out: list[Message] = []
    cursor = 0
    for phase in finished:
        out += messages[cursor : phase.start]
        summary = summarize_phase(messages, phase.start, phase.end, kind=phase.kind)
        note = f"[Phase ended: {phase.reason}. Messages {phase.start}-{phase.end - 1} are in {shown}.]"
        said = _user_words(messages[phase.start : phase.end])
        note += "".join(f"\nUser said then: {s!r}" for s in said)
        out += [{"role": "assistant", "content": [text(summary)]}, {"role": "user", "content": [text(note)]}]
        cursor = phase.end
    return out + list(messages[cursor:])
