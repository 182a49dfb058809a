"""Level 2: find where a phase of work ends and replace the finished phase with a short summary.

A session is read as steps: each assistant message and the results that answer it. A step is a
``read``, a ``search``, an ``edit``, a ``test`` run or ``other``, from its tool calls. A phase ends
(1) at the first edit after at least two reads, searches or test runs (research -> implementation),
(2) after a test run that turns green (after an edit, or after the same command failed), (3) where
work on a new file begins, once the phase has edited other files. ``summarize_phase`` writes at
most 300 tokens of Markdown: the decisions the agent stated with their reasons, the failing tests,
the files with line numbers, the latest test results and the lines changed. ``compact_phases``
swaps each finished phase for its summary, after writing the whole list to a transcript.
Deliberately left out: judging which findings matter (the summary is extractive, not a model's),
step-by-step tool detail, file contents, and dead ends (failed calls, empty searches); the open
(last) phase is never summarized.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compaction.condense import failing_tests, failures, line_ranges, references
from compaction.messages import Message, text, text_of, tool_result_blocks, tool_use_blocks
from compaction.tokens import count_text
from compaction.transcript import write_transcript

SUMMARY_HEAD = re.compile(r"^## \w+ phase complete")
MAX_SUMMARY_TOKENS = 300
MIN_RESEARCH_STEPS = 2  # reads, searches or test runs before an edit that make a research phase
_NUMBERED = re.compile(r"^ *(\d+)\t(.*)$", re.M)


@dataclass(frozen=True)
class Step:
    """One assistant message (at ``index``) and its results: what kind of work, on which files."""

    index: int
    kind: str  # "read" | "search" | "edit" | "test" | "other" | "summary"
    files: tuple[str, ...]
    test_status: str | None = None  # "green" | "red" | None (not a test run, or unreadable)
    test_command: str | None = None  # the command of the test run, to compare runs of the same suite


@dataclass(frozen=True)
class Phase:
    """Messages ``start`` to ``end`` (exclusive): a phase of one ``kind``, ended for ``reason``."""

    kind: str  # "research" | "implementation" | "verification" (tests turned green, nothing edited)
    start: int
    end: int
    reason: str  # "first edit after research", "tests turned green", "moved on to ...", "open"


def action_of(name: str, args: dict) -> tuple[str, str | None]:
    """The kind of work a tool call does and the file it is about: ``("read", "a.py")``."""
    name = name.lower()
    path = args.get("path") or args.get("file_path") or args.get("notebook_path")
    if name in ("read_file", "read", "view", "open"):
        return "read", path
    if name in ("write_file", "edit_file", "write", "edit", "multiedit", "notebookedit"):
        return "edit", path
    if name in ("grep", "glob", "search", "ls", "find"):
        return "search", path
    command = str(args.get("command", ""))
    if re.match(r"\s*(grep|rg|find|ls|tree|git grep)\b", command):  # before tests: grep run_tests.py
        return "search", None
    read = re.match(r"\s*(cat|head|tail|less|sed -n \S+)\s+(\S+)", command)
    if read:
        return "read", read[2]
    if re.search(r"run_tests|pytest|unittest|\bnpm test\b|\btox\b", command):
        return "test", None
    return "other", None


def suite_status(output: str) -> str | None:
    """``"red"`` when a test run shows failures, ``"green"`` when it shows only passes, else None."""
    if failing_tests(output) or re.search(r"\b[1-9]\d* (failed|errors?)\b|^FAILED \(", output, re.M):
        return "red"
    if re.search(r"\b\d+ passed\b|^OK\b", output, re.M):
        return "green"
    return None


def steps(messages: Sequence[Message]) -> list[Step]:
    """Every assistant message as a step, in order."""
    out = []
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        if SUMMARY_HEAD.match(text_of(message.get("content")).strip()):
            out.append(Step(i, "summary", ()))
            continue
        answers = tool_result_blocks(messages[i + 1]) if i + 1 < len(messages) else []
        outputs = {b.get("tool_use_id"): text_of(b.get("content")) for b in answers}
        kinds, files, status, command = [], [], None, None
        for use in tool_use_blocks(message):
            kind, path = action_of(use.get("name", ""), use.get("input") or {})
            kinds.append(kind)
            files += [path] if path else []
            if kind == "test":
                status = suite_status(outputs.get(use.get("id"), "")) or status
                command = " ".join(str((use.get("input") or {}).get("command", "")).split())
        rank = ("edit", "test", "read", "search", "other")
        kind = min(kinds, key=rank.index) if kinds else "other"
        out.append(Step(i, kind, tuple(dict.fromkeys(files)), status, command))
    return out


def detect_phases(messages: Sequence[Message]) -> list[Phase]:
    """The phases of a session, in order; the last one is ``open`` (still going on)."""
    phases: list[Phase] = []
    start: int | None = None
    edited: set[str] = set()  # files edited in the current phase
    looks: list[Step] = []  # read, search and test steps since the last edit of this phase
    last_status: dict[str | None, str] = {}  # test command -> "red" | "green", its latest result

    def close(end: int, reason: str) -> None:
        nonlocal start, edited, looks
        if start is not None and end > start and reason:
            kind = "implementation" if edited else "research"
            kind = "verification" if kind == "research" and reason == "tests turned green" else kind
            phases.append(Phase(kind, start, end, reason))
        start, edited, looks = end, set(), []

    for step in steps(messages):
        if step.kind == "summary":  # an earlier summary: the next phase starts after its note
            close(step.index, "")
            start = step.index + 2
            continue
        start = step.index if start is None else start
        if step.kind == "edit" and not edited and len(looks) >= MIN_RESEARCH_STEPS:
            close(step.index, "first edit after research")
        elif step.kind == "edit" and edited and not set(step.files) & edited:
            close(looks[0].index if looks else step.index, f"moved on to {', '.join(step.files)}")
        if step.kind == "edit":
            edited |= set(step.files)
            looks = []
        elif step.kind in ("read", "search", "test"):
            looks.append(step)
        if step.test_status == "green" and (edited or last_status.get(step.test_command) == "red"):
            close(min(step.index + 2, len(messages)), "tests turned green")
        if step.test_status:
            last_status[step.test_command] = step.test_status
    if start is not None and start < len(messages):
        phases.append(Phase("implementation" if edited else "research", start, len(messages), "open"))
    return phases


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
