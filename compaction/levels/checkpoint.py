"""Level 3: a session checkpoint in Markdown, written to disk and read back to start a new session.

``build_checkpoint`` reads a whole session: each finished phase becomes a Completed item (what was
found, what was fixed and verified), the open phase and any test still failing become In progress
items, the statements in which the agent gave a reason become Key decisions, and every file the
agent wrote or edited is listed with the lines it changed. ``to_markdown`` and ``load`` are exact
inverses for any checkpoint whose items are single lines. ``resume_messages`` opens a new session
from a checkpoint and a task. Deliberately left out: merging two checkpoints, and files changed by
``bash`` commands (only ``write_file`` and ``edit_file`` calls are seen).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compaction.core.messages import Message, text_of, tool_result_blocks, tool_use_blocks
from compaction.levels.condense import failures
from compaction.levels.phase_summary import REASON, edited_line, phase_facts, statement
from compaction.levels.phases import action_of, detect_phases

# section title -> (Checkpoint field, how an item is written)
SECTIONS = {
    "Completed": ("completed", "- [x] "),
    "In Progress": ("in_progress", "- [ ] "),
    "Key Decisions": ("decisions", "{n}. "),
    "Files Modified": ("files_modified", "- "),
}
WRITERS = ("write_file", "write", "create")  # tools that write a whole file
NONE = "(none)"  # an empty section; never a bullet, so it cannot be mistaken for an item


@dataclass
class Checkpoint:
    """Where a session stands: done, in progress, decided, and which files changed."""

    turn: int
    task: str = ""
    completed: list[str] = field(default_factory=list)
    in_progress: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)

    def to_markdown(self) -> str:
        """The checkpoint as Markdown: a title, the task, and four sections."""
        lines = [f"## Session Checkpoint (Turn {self.turn})", "", f"Task: {_one_line(self.task)}"]
        for title, (name, bullet) in SECTIONS.items():
            items = getattr(self, name)
            lines += ["", f"### {title}"]
            lines += [bullet.format(n=n) + _one_line(i) for n, i in enumerate(items, 1)] or [NONE]
        return "\n".join(lines) + "\n"

    def write(self, path: str | Path) -> Path:
        """Write the Markdown to ``path`` (folders made as needed) and return the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_markdown(), encoding="utf-8")
        return path


def _one_line(value: str) -> str:
    return " ".join(str(value).split())


def from_markdown(markdown: str) -> Checkpoint:
    """Parse what ``to_markdown`` wrote; a missing title or section is an error that names it."""
    title = re.search(r"^## Session Checkpoint \(Turn (\d+)\)$", markdown, re.M)
    if not title:
        raise ValueError("not a checkpoint: the title '## Session Checkpoint (Turn N)' is missing")
    task = re.search(r"^Task: ?(.*)$", markdown, re.M)
    checkpoint = Checkpoint(int(title[1]), task[1] if task else "")
    for heading, (name, bullet) in SECTIONS.items():
        section = re.search(rf"^### {heading}\n(.*?)(?=^### |\Z)", markdown, re.M | re.S)
        if not section:
            raise ValueError(f"not a checkpoint: the section '### {heading}' is missing")
        pattern = r"^\d+\. " if "{n}" in bullet else "^" + re.escape(bullet)
        items = [re.sub(pattern, "", row) for row in section[1].splitlines() if re.match(pattern, row)]
        setattr(checkpoint, name, items)
    return checkpoint


def load(path: str | Path) -> Checkpoint:
    """Read a checkpoint file written by ``Checkpoint.write``."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    return from_markdown(path.read_text(encoding="utf-8"))


def _completed(messages: Sequence[Message], phase) -> str:
    facts = phase_facts(messages, phase.start, phase.end)
    tests = facts["Tests"][-1:] if facts["Tests"] else []
    if phase.kind == "implementation":
        done = "Changed " + ", ".join(facts["Changes"] or ["files"])
        return done + (f"; verified: {tests[0]}" if tests else "")
    if phase.kind == "verification":
        return f"Verified: {tests[0]}" if tests else "Verified the changes"
    failing = [f.split("`")[1] for f in facts["Key findings"] if "`" in f]
    if failing:
        files = sorted({f.split("::")[0] for f in failing})
        return f"Researched: {len(failing)} failing tests in {', '.join(files)}"
    return "Researched " + (", ".join(f.split(":")[0] for f in facts["Files"][:4]) or "the project")


def _last_failures(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """The failing tests of the newest test run, or [] when it passed or no test ran."""
    runs = [  # tool_use_id of each test run, in order
        b["id"]
        for m in messages
        for b in tool_use_blocks(m)
        if action_of(b.get("name", ""), b.get("input") or {})[0] == "test"
    ]
    results = {
        b.get("tool_use_id"): text_of(b.get("content")) for m in messages for b in tool_result_blocks(m)
    }
    return failures(results.get(runs[-1], "")) if runs else []


def files_modified(messages: Sequence[Message]) -> list[str]:
    """Each file the agent wrote or edited, in order, with the lines its edits changed."""
    changed: dict[str, list[str]] = {}  # path -> what happened to it, in order
    opened = None  # the newest file read or changed: an edit that names no file (SWE-agent's) changes it
    for i, message in enumerate(messages):
        for use in tool_use_blocks(message):
            args = use.get("input") or {}
            kind, path = action_of(use.get("name", ""), args)
            path = path or (opened if kind == "edit" else None)
            opened = path if kind in ("read", "edit") and path else opened
            if kind != "edit" or not path:
                continue
            old = args.get("old_text") or args.get("old_string") or args.get("old_str") or args.get("search")
            if old:
                line = edited_line(messages[:i], path, old)
                what = f"line {line}" if line else "edited"
            else:
                writes = str(use.get("name", "")).lower() in WRITERS or args.get("command") == "create"
                what = "written" if writes else "edited"
            changed.setdefault(path, []).append(what)
    return [f"{p} ({', '.join(dict.fromkeys(what))})" for p, what in changed.items()]


def build_checkpoint(messages: Sequence[Message], *, turn: int | None = None) -> Checkpoint:
    """A checkpoint of a session: finished phases, open work, decisions and modified files."""
    if not isinstance(messages, Sequence) or not messages:
        raise ValueError("build_checkpoint: messages must be a non-empty list of messages")
    turn = sum(m.get("role") == "assistant" for m in messages) if turn is None else turn
    first = messages[0]
    task = text_of(first.get("content")) if first.get("role") == "user" else ""
    phases = detect_phases(messages)
    completed = [_completed(messages, p) for p in phases if p.reason != "open"]
    in_progress = [
        f"Make `{name}` pass" + (f" ({error})" if error else "") for name, error in _last_failures(messages)
    ]
    said = [_one_line(text_of(m.get("content"))) for m in messages if m.get("role") == "assistant"]
    said = [s for s in said if s]
    if phases and phases[-1].reason == "open" and said:
        in_progress.append(f"Current work: {said[-1][:300]}")
    decisions = [statement(m) for m in messages if m.get("role") == "assistant"]
    decisions = list(dict.fromkeys(d[:240] for d in decisions if REASON.search(d)))
    lists = [[_one_line(item) for item in items] for items in (completed, in_progress, decisions)]
    return Checkpoint(
        turn, _one_line(task), *lists, files_modified(messages)
    )  # one-line items: exact round trip


def resume_messages(checkpoint: Checkpoint, task: str) -> list[Message]:
    """The first message of a new session that carries on from ``checkpoint`` with ``task``."""
    if not isinstance(checkpoint, Checkpoint):
        raise TypeError(f"resume_messages: checkpoint must be a Checkpoint, not {type(checkpoint).__name__}")
    if not isinstance(task, str) or not task.strip():
        raise ValueError("resume_messages: task must be a non-empty string")
    intro = "This session carries on from an earlier one. Its checkpoint:"
    body = f"{intro}\n\n{checkpoint.to_markdown()}\nContinue with: {task.strip()}"
    return [{"role": "user", "content": body}]
