"""The state ledger: what the history shows without a model, attached to every summary.

A summary is only as good as the model that writes it, and a model drops specifics (a test
count, the file it created, the error it fixed). The ledger is computed from the messages alone:

- **User instructions**: the user's constraining sentences (``compaction.instructions``);
- **Files**: each file created, edited (the changed lines, whole) or read, from the tool inputs;
- **Commands**: each command with its outcome: exit status, pass/fail counts, the failures or the
  first error line, a short output whole, or the lines of a longer one the agent used later;
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

from compaction.instructions import user_instructions
from compaction.messages import blocks, text_of
from compaction.tokens import count_text
from compaction.used import LaterUse

READ = "files read: "
LEDGER_HEAD = "[State ledger, computed from the history without a model:"
SECTIONS = ("User instructions", "Files", "Commands", "Errors")
MAX_TOKENS = 1_000
LINE_CHARS = 160  # a line of output or code shown in an entry, at most
SHORT_OUTPUT = 120  # an output of at most two lines and this many characters is shown whole
MAX_FAILURES = 8  # failures listed for one command
MAX_FIX_FILES = 5  # files edited after a failure named in its error entry

_EXIT = re.compile(r"\[exit code (-?\d+)\]|\bexit (?:code|status)[: ]+(-?\d+)", re.IGNORECASE)
_COUNT = re.compile(r"\b(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")
_FAIL_HEAD = re.compile(r"^(?:FAILED|ERROR)[: ]+(.+)$")
_ERROR_LINE = re.compile(r"^\s*(?:E\s+)?(?:[\w.]*(?:Error|Exception)\b|error:|fatal:|Traceback\b)")
_HEADER = re.compile(r"^(" + "|".join(SECTIONS) + r"):$")
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
    calls = _calls(messages)
    later = LaterUse(messages)
    failing: dict[str, int] = {}  # command -> index in out of its open error entry
    read: list[str] = [line[len(READ) :] for line in _carried_reads(out)]
    for index, name, args, result in calls:
        body = text_of(result.get("content")) if result else ""
        failed = bool(result and result.get("is_error"))
        path = args.get("path") if isinstance(args.get("path"), str) else None
        if name == "bash" and isinstance(args.get("command"), str):
            command = " ".join(args["command"].split())
            entry, bad = command_entry(command, body, failed, later, index)
            out.append(Entry("Commands", entry, command_priority(entry, bad)))
            key = command  # the same command passing again closes its error
            if bad:
                problem = f"failed{_counts(body)}: {_first_problem(body)}"
                out.append(Entry("Errors", f"- `{_cut(command, 80)}` {problem}", 4))
                failing[key] = len(out) - 1
            elif key in failing:
                k = failing.pop(key)
                out[k] = Entry(
                    "Errors", f"{out[k].text}; then `{_cut(command, 80)}` passed{_counts(body)}", 4
                )
            continue
        if failed:
            what = f"{name} {path}" if path else name
            out.append(Entry("Errors", f"- {what} failed: {_cut(_first_line(body), LINE_CHARS)}", 4))
            continue
        if path is None:
            continue
        for change in file_changes(name, args):
            if change == "read":
                read.append(path)
                continue
            out.append(Entry("Files", f"- {path}: {change}", 3))
            for k in failing.values():  # an edit after a failure: part of its fix
                if f"; edited {path}" not in out[k].text and out[k].text.count("; edited ") < MAX_FIX_FILES:
                    out[k] = Entry("Errors", f"{out[k].text}; edited {path}", 4)
    out = [e for e in out if not e.text.startswith("- " + READ)]
    if read:
        out.append(Entry("Files", "- " + READ + ", ".join(dict.fromkeys(", ".join(read).split(", "))), 0))
    return _dedupe(out)


def _carried_reads(entries: list[Entry]) -> list[str]:
    return [e.text[2:] for e in entries if e.text.startswith("- " + READ)]


def command_entry(
    command: str, output: str, is_error: bool, later: LaterUse | None = None, index: int = 0
) -> tuple[str, bool]:
    """One command's line: ``- `cmd` -> exit N; counts; failures, or its output``, and whether it failed."""
    status = _exit_status(output, is_error)
    counts = _COUNT.findall(_last_count_line(output))
    failures = _failures(output)
    bad = bool(status) or any(kind in ("failed", "error", "errors") and int(n) for n, kind in counts)
    parts = [f"exit {status}"] if status is not None else (["failed"] if bad and not counts else [])
    if counts:
        parts.append(", ".join(f"{n} {kind}" for n, kind in counts))
    if failures:
        parts += failures
    elif bad:
        parts.append(_first_problem(output))
    elif not counts:
        lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not _EXIT.search(ln)]
        if lines and len(lines) <= 2 and sum(map(len, lines)) <= SHORT_OUTPUT:
            parts.append(" | ".join(lines))
        elif later is not None:
            used = later.lines(output, index, max_lines=1, max_chars=SHORT_OUTPUT)
            if used:
                parts.append(f"({len(lines)} lines) used later: {used[0].strip()}")
    return f"- `{_cut(command, 100)}` -> " + ("; ".join(parts) or "ok"), bad


def command_priority(entry: str, bad: bool) -> int:
    """How long a command's entry survives: failures and counts, then short outputs, then the rest."""
    if bad or _COUNT.search(entry):
        return 2
    return 0 if entry.endswith((" -> ok", " -> (no output)")) or ") used later: " in entry else 1


def file_changes(name: str, args: Mapping[str, Any]) -> list[str]:
    """What a file tool call did: ``read``, ``created (N lines)``, or each changed line of an edit."""
    if name in ("read_file", "view", "cat"):
        return ["read"]
    if name in ("write_file", "create_file", "create"):
        content = str(args.get("content", args.get("file_text", "")))
        first = next((ln.strip() for ln in content.splitlines() if ln.strip()), "")
        return [f"created ({len(content.splitlines())} lines), starting `{_cut(first, LINE_CHARS)}`"]
    if name in ("edit_file", "str_replace"):
        old = str(args.get("old_text", args.get("old_str", "")))
        new = str(args.get("new_text", args.get("new_str", "")))
        gone = set(old.splitlines())
        added = [ln.strip() for ln in new.splitlines() if ln not in gone and ln.strip()]
        if not added:
            removed = [
                ln.strip() for ln in old.splitlines() if ln not in set(new.splitlines()) and ln.strip()
            ]
            return [f"edited, removed `{_cut(ln, LINE_CHARS)}`" for ln in removed[:3]] or ["edited"]
        shown = [f"edited, now has `{_cut(ln, LINE_CHARS)}`" for ln in added[:3]]
        return shown + ([f"edited, {len(added) - 3} more lines"] if len(added) > 3 else [])
    return []


def ledger_text(
    messages: Sequence[Mapping[str, Any]], *, max_tokens: int = MAX_TOKENS, shown: str = ""
) -> str:
    """The ledger of ``messages``, at most ``max_tokens``; instructions already in ``shown`` left out."""
    shown_flat = " ".join(shown.split()).lower()
    entries = [
        e
        for e in ledger_entries(messages)
        if not (e.section == "User instructions" and " ".join(e.text[2:].split()).lower() in shown_flat)
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


def _calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[int, str, dict, dict | None]]:
    """(index of the result's message, tool name, input, result block) for every tool call, in order."""
    results = {}
    for i, message in enumerate(messages):
        if message.get("role") == "user":
            for b in blocks(message):
                if b.get("type") == "tool_result":
                    results[b.get("tool_use_id")] = (i, b)
    out = []
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for b in blocks(message):
            if b.get("type") == "tool_use":
                index, result = results.get(b.get("id"), (i, None))
                args = b.get("input") if isinstance(b.get("input"), dict) else {}
                out.append((index, str(b.get("name", "?")), args, result))
    return out


def _dedupe(entries: list[Entry]) -> list[Entry]:
    """One entry per text, at the place of its last occurrence (the latest state wins the order)."""
    last = {e.text: k for k, e in enumerate(entries)}
    return [e for k, e in enumerate(entries) if last[e.text] == k]


def _exit_status(output: str, is_error: bool) -> int | None:
    found = _EXIT.findall(output)
    if found:
        a, b = found[-1]
        return int(a or b)
    return 1 if is_error else None


def _last_count_line(output: str) -> str:
    for line in reversed(output.splitlines()):
        if _COUNT.search(line):
            return line
    return ""


def _counts(output: str) -> str:
    found = _COUNT.findall(_last_count_line(output))
    return f" ({', '.join(f'{n} {kind}' for n, kind in found)})" if found else ""


def _failures(output: str) -> list[str]:
    """Each failure a test runner lists (``FAILED name`` and the first error line after it), bounded."""
    lines = output.splitlines()
    out = []
    for k, line in enumerate(lines):
        head = _FAIL_HEAD.match(line.strip())
        if not head:
            continue
        name = head.group(1).strip()
        error = next((ln.strip() for ln in lines[k + 1 : k + 6] if _ERROR_LINE.match(ln)), "")
        if " - " in name and not error:  # pytest's short summary: FAILED test - Error: message
            name, error = name.split(" - ", 1)
        out.append(_cut(f"{name}: {error}" if error else name, LINE_CHARS))
    if len(out) > MAX_FAILURES:
        out = out[:MAX_FAILURES] + [f"{len(out) - MAX_FAILURES} more failures"]
    return out


def _first_problem(output: str) -> str:
    """The first failure or error line of an output, else its first line."""
    failures = _failures(output)
    if failures:
        return failures[0]
    line = next((ln.strip() for ln in output.splitlines() if _ERROR_LINE.match(ln)), None)
    return _cut(line or _first_line(output), LINE_CHARS)


def _first_line(output: str) -> str:
    return next((ln.strip() for ln in output.splitlines() if ln.strip()), "(no output)")


def _cut(value: str, limit: int) -> str:
    value = " ".join(str(value).split())
    return value if len(value) <= limit else value[: limit - 3] + "..."
