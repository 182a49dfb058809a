"""The state ledger: what the history shows without a model, attached to every summary.

A summary is only as good as the model that writes it, and a model drops specifics (a test
count, the file it created, the error it fixed). The ledger is computed from the messages alone:

- **User instructions**: the user's constraining sentences (``compaction.layers.instructions``);
- **Files**: each file created, edited (the changed lines, whole), removed or read, from any agent's
  calls: a file tool's input, or a shell command (``cat > f``, ``sed -i``, ``apply_patch``, ...;
  ``compaction.core.actions``); a file created again is listed once, as it was last written;
- **Commands**: each shell command, whatever its tool is called, with its outcome: exit status,
  pass/fail counts, the failures or the first error line, a short output whole, or the lines of a
  longer one the agent used later;
- **Errors**: each failed call, and what followed it: the files edited, the run that passed.

Its size is bounded (``max_tokens``); when everything does not fit, entries go in this order,
lowest priority first and the oldest first within a priority: files only read and commands with
nothing to show, then commands with an output, then test runs and failed commands, file changes,
errors, instructions. The header says how many entries and tokens it holds
and how many were left out, so its size is reported wherever it is shown. A ledger found in the
history (from an earlier compaction) is carried over, its entries before the new ones.
Deliberately left out: anything that needs judgement (why a change was made, what comes next):
that is the summary's job.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compaction.core.actions import file_actions, shell_command
from compaction.core.messages import blocks, text_of
from compaction.core.outcomes import command_entry, command_priority, errors_and_fixes, tool_calls
from compaction.core.placeholders import is_cleared
from compaction.core.tokens import count_text
from compaction.core.used import LaterUse
from compaction.layers.instructions import user_instructions

READ = "files read: "
LEDGER_HEAD = "[State ledger, computed from the history without a model:"
SECTIONS = ("User instructions", "Files", "Commands", "Errors")
MAX_TOKENS = 1_000
MAX_FIX_FILES = 5  # files edited after a failure named in its error entry

_HEADER = re.compile(r"^(" + "|".join(SECTIONS) + r"):$")
_CREATED = re.compile(r"^- (.+?): created \(")
# section -> priority (higher survives longer); files only read, and commands, go by their own rule
PRIORITY = {"User instructions": 5, "Errors": 4, "Files": 3, "Commands": 2}


@dataclass(frozen=True)
class Entry:
    """One line of the ledger: its section, its text, and how long it survives a tight budget."""

    section: str
    text: str
    priority: int


def ledger_entries(messages: Sequence[Mapping[str, Any]]) -> list[Entry]:
    """Every entry the history supports, oldest first: a carried-over ledger's, then the messages'."""
    out = _carried(messages)
    out += [
        Entry("User instructions", f"- {s}", PRIORITY["User instructions"])
        for s in user_instructions(messages)
    ]
    calls = tool_calls(messages)
    later = LaterUse(messages)
    read: list[str] = [line[len(READ) :] for line in _carried_reads(out)]
    for index, name, args, result in calls:
        body = text_of(result.get("content")) if result else ""
        failed = bool(result and result.get("is_error"))
        command = shell_command(name, args)
        if command is not None:
            entry, bad = command_entry(" ".join(command.split()), body, failed, later, index)
            out.append(Entry("Commands", entry, command_priority(entry, bad)))
        for path, change in [] if failed else file_actions(name, args, body):
            if change == "read":
                read.append(path)
            else:
                out.append(Entry("Files", f"- {path}: {change}", PRIORITY["Files"]))
    out += [Entry("Errors", line, PRIORITY["Errors"]) for line in errors_and_fixes(calls, MAX_FIX_FILES)]
    out = [e for e in out if not e.text.startswith("- " + READ)]
    if read:
        out.append(Entry("Files", "- " + READ + ", ".join(dict.fromkeys(", ".join(read).split(", "))), 0))
    return _dedupe(out)


def _carried_reads(entries: list[Entry]) -> list[str]:
    return [e.text[2:] for e in entries if e.text.startswith("- " + READ)]


def ledger_text(
    messages: Sequence[Mapping[str, Any]], *, max_tokens: int = MAX_TOKENS, shown: str = ""
) -> str:
    """The ledger of ``messages``, at most ``max_tokens``; instructions ``shown`` quotes whole left out.

    An instruction is left out only when ``shown`` (the summary) quotes the whole message it came
    from: a summary that cut a long request may cut it again in the next summary, and the ledger,
    carried from one summary to the next, is then where the instruction survives.
    """
    quoted = _quoted_instructions(messages, " ".join(shown.split()).lower())
    entries = [
        e
        for e in ledger_entries(messages)
        if not (e.section == "User instructions" and " ".join(e.text[2:].split()).lower() in quoted)
    ]
    kept = list(entries)
    # lowest priority first, oldest first within a priority
    order = sorted(range(len(entries)), key=lambda k: (entries[k].priority, k))
    dropped: set[int] = set()
    cost = {k: count_text(e.text, "tiktoken") + 1 for k, e in enumerate(entries)}
    total = sum(cost.values()) + 40  # the header and the section names
    for k in order:
        if total <= max_tokens:
            break
        dropped.add(k)
        total -= cost[k]
    kept = [e for k, e in enumerate(entries) if k not in dropped]
    lines = []
    for section in SECTIONS:
        mine = [e.text for e in kept if e.section == section]
        if mine:
            lines += [f"{section}:", *mine]
    left_out = f"; {len(dropped)} older entries left out to stay under {max_tokens:,}" if dropped else ""
    head = f"{LEDGER_HEAD} {len(kept)} entries, about {total:,} tokens{left_out}]"
    return "\n".join([head, *lines])


def _quoted_instructions(messages: Sequence[Mapping[str, Any]], shown: str) -> set[str]:
    """The instructions (normalized) of the user messages ``shown`` (normalized) quotes whole."""
    out: set[str] = set()
    for message in messages:
        said = " ".join(
            str(b.get("text", ""))
            for b in blocks(message)
            if message.get("role") == "user" and b.get("type") == "text"
        )
        if said.strip() and " ".join(said.split()).lower() in shown:
            out |= {" ".join(s.split()).lower() for s in user_instructions([message])}
    return out


def is_ledger(value: Any) -> bool:
    """True when a text is a ledger this module wrote."""
    return isinstance(value, str) and value.startswith(LEDGER_HEAD)


def _carried(messages: Sequence[Mapping[str, Any]]) -> list[Entry]:
    """The entries of the newest ledger found in the messages (an earlier compaction's)."""
    for message in reversed(messages):
        for block in blocks(message):
            if block.get("type") == "text" and is_ledger(block.get("text")):
                return _parse(block["text"])
    return []


def _parse(value: str) -> list[Entry]:
    out, section = [], None
    for line in value.splitlines()[1:]:
        found = _HEADER.match(line)
        if found:
            section = found.group(1)
        elif section and line.startswith("- "):
            priority = PRIORITY[section]
            if section == "Files" and line.startswith("- " + READ):
                priority = 0
            elif section == "Commands":
                priority = command_priority(line, " failed" in line or "exit 1" in line)
            out.append(Entry(section, line, priority))
    return out


def _dedupe(entries: list[Entry]) -> list[Entry]:
    """One entry per text, and per file written whole, where it last occurs: the latest state wins."""
    last = {_key(e): k for k, e in enumerate(entries)}
    return [e for k, e in enumerate(entries) if last[_key(e)] == k]


def _key(entry: Entry) -> str:
    """What makes an entry a repeat: its text, or for a file created again, its path."""
    found = _CREATED.match(entry.text) if entry.section == "Files" else None
    return f"created {found[1]}" if found else entry.text


class ResultMemory:
    """Each tool result as first seen whole, so a ledger made after clearing still reads the original.

    ``see(messages)`` before the layers run remembers every result not yet seen (by tool_use_id);
    ``restore(messages)`` returns the list with each cleared placeholder replaced by that original.
    The originals are the same objects the list held (nothing is copied), and the transcript has them.
    """

    def __init__(self) -> None:
        self._results: dict[str, dict] = {}  # tool_use_id -> the result block as first seen

    def see(self, messages: Sequence[Mapping[str, Any]]) -> None:
        """Remember the results of ``messages`` not seen before (placeholders are not remembered).

        Results arrive at the end of the list, so it is read from the newest message back and stops at
        the first message whose results are already known: a turn costs what it added, not the list.
        """
        for message in reversed(messages):
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            content = message.get("content") if isinstance(message.get("content"), list) else ()
            results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            if results and all(b.get("tool_use_id") in self._results for b in results):
                return
            for block in results:
                if block.get("tool_use_id") not in self._results and not is_cleared(block.get("content")):
                    self._results[block.get("tool_use_id")] = block

    def restore(self, messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """``messages`` with every cleared result put back as it was first seen (a new list)."""
        out = []
        for message in messages:
            content = message.get("content")
            if message.get("role") == "user" and isinstance(content, list):
                swapped = [self._original(b) for b in content]
                if any(a is not b for a, b in zip(swapped, content, strict=True)):
                    message = {**message, "content": swapped}
            out.append(message)
        return out

    def _original(self, block: Any) -> Any:
        cleared = isinstance(block, dict) and block.get("type") == "tool_result"
        if cleared and is_cleared(block.get("content")):
            return self._results.get(block.get("tool_use_id"), block)
        return block
