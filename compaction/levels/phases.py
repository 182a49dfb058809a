"""Level 2, part one: where a phase of work ends.

A session is read as steps: each assistant message and the results that answer it. A step is a
``read``, a ``search``, an ``edit``, a ``test`` run or ``other``, from its tool calls. A phase ends
(1) at the first edit after at least two reads, searches or test runs (research -> implementation),
(2) after a test run that turns green (after an edit, or after the same command failed), (3) where
work on a new file begins, once the phase has edited other files. An earlier phase summary (see
``compaction.levels.phase_summary``) ends a phase too; the next one starts after its note.
Deliberately left out: phases inside one step, and any judgement of what the work was about; the
last phase is ``open`` until one of the three rules closes it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from compaction.core.messages import Message, text_of, tool_result_blocks, tool_use_blocks
from compaction.levels.condense import failing_tests

SUMMARY_HEAD = re.compile(r"^## \w+ phase complete")
MIN_RESEARCH_STEPS = 2  # reads, searches or test runs before an edit that make a research phase


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


# Anthropic's text editor tool (docs.anthropic.com/en/docs/agents-and-tools/tool-use/text-editor-tool):
# commands view, create, str_replace, insert (and undo_edit in older versions), each with a ``path``
TEXT_EDITOR_TOOLS = ("str_replace_based_edit_tool", "str_replace_editor")


def action_of(name: str, args: dict) -> tuple[str, str | None]:
    """The kind of work a tool call does and the file it is about: ``("read", "a.py")``."""
    name = name.lower()
    path = args.get("path") or args.get("file_path") or args.get("notebook_path") or args.get("filename")
    if name in TEXT_EDITOR_TOOLS:  # Anthropic's text editor tool: one tool, the work named by ``command``
        return ("read" if args.get("command") == "view" else "edit"), path
    if name in ("read_file", "read", "view", "open", "goto", "scroll_up", "scroll_down"):
        return "read", path
    if name in ("write_file", "edit_file", "write", "edit", "multiedit", "notebookedit", "create", "insert"):
        return "edit", path
    if name in ("grep", "glob", "search", "ls", "find", "find_file", "search_file", "search_dir"):
        return "search", path
    command = str(args.get("command", ""))
    if re.match(r"\s*(grep|rg|find|ls|tree|git grep|find_file|search_file|search_dir)\b", command):
        return "search", None  # checked before tests: a grep of run_tests.py is a search
    swe = re.match(r"\s*(open|create|edit|insert)\b\s*(\S*)", command)  # SWE-agent's file commands
    if swe:
        path = swe[2].strip("\"'") if swe[1] in ("open", "create") and "." in swe[2] else None
        return ("read" if swe[1] == "open" else "edit"), path
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
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise TypeError(f"steps: messages must be a list of message dicts, not {type(messages).__name__}")
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise TypeError(f"steps: messages[{i}] must be a dict, not {type(message).__name__}")
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
        elif step.kind == "edit" and edited and step.files and not set(step.files) & edited:
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
