"""What a tool call did, in one line: a command's outcome, a file tool's change.

``command_entry`` reads a command's output the way a reader skims it: the exit status
(``[exit code N]``), the pass/fail counts of a test runner's last summary line, each failure it
lists (``FAILED name`` and the first error line after it), else the first error line, else a short
output whole, else the lines of it the agent used later (``compaction.core.used``). ``file_changes``
reads a file tool's input: read, created (with its first line), or the changed lines of an edit,
whole. The ledger and the offline summarizer both use them, so both say the same thing.
Deliberately left out: parsing any one runner's full report (coverage, timings, warnings).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from compaction.core.messages import blocks, text_of
from compaction.core.used import LaterUse

LINE_CHARS = 160  # a line of output or code shown in an entry, at most
SHORT_OUTPUT = 120  # an output of at most two lines and this many characters is shown whole
MAX_FAILURES = 8  # failures listed for one command
_EXIT = re.compile(r"\[exit code (-?\d+)\]|\bexit (?:code|status)[: ]+(-?\d+)", re.IGNORECASE)
_COUNT = re.compile(r"\b(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")
_FAIL_HEAD = re.compile(r"^(?:FAILED|ERROR)[: ]+(.+)$")
_ERROR_LINE = re.compile(r"^\s*(?:E\s+)?(?:[\w.]*(?:Error|Exception)\b|error:|fatal:|Traceback\b)")


def command_entry(
    command: str, output: str, is_error: bool, later: LaterUse | None = None, index: int = 0
) -> tuple[str, bool]:
    """One command's line: ``- `cmd` -> exit N; counts; failures, or its output``, and whether it failed."""
    status = exit_status(output, is_error)
    counts = _COUNT.findall(_last_count_line(output))
    listed = failures(output)
    bad = bool(status) or any(kind in ("failed", "error", "errors") and int(n) for n, kind in counts)
    parts = [f"exit {status}"] if status is not None else (["failed"] if bad and not counts else [])
    if counts:
        parts.append(", ".join(f"{n} {kind}" for n, kind in counts))
    if listed:  # the first failure; ``errors_and_fixes`` lists them all
        parts += listed[:1] + ([f"{len(listed) - 1} more failures"] if len(listed) > 1 else [])
    elif bad:
        parts.append(first_problem(output))
    elif not counts:
        lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not _EXIT.search(ln)]
        if lines and len(lines) <= 2 and sum(map(len, lines)) <= SHORT_OUTPUT:
            used = later is not None and later.lines(output, index, max_lines=2, max_chars=SHORT_OUTPUT)
            parts.append(" | ".join(lines) + (" (used later)" if used else ""))
        elif later is not None:
            used = later.lines(output, index, max_lines=1, max_chars=SHORT_OUTPUT)
            if used:
                parts.append(f"({len(lines)} lines) used later: {used[0].strip()}")
    return f"- `{cut(command, 100)}` -> " + ("; ".join(parts) or "ok"), bad


def command_priority(entry: str, bad: bool) -> int:
    """How long a command's entry survives: failures, counts and outputs used later, then the rest."""
    if bad or _COUNT.search(entry) or entry.endswith(" (used later)"):
        return 2
    return 0 if entry.endswith((" -> ok", " -> (no output)")) or ") used later: " in entry else 1


def file_changes(name: str, args: Mapping[str, Any]) -> list[str]:
    """What a file tool call did: ``read``, ``created (N lines)``, or each changed line of an edit."""
    if name in ("read_file", "view", "cat"):
        return ["read"]
    if name in ("write_file", "create_file", "create"):
        content = str(args.get("content", args.get("file_text", "")))
        first = next((ln.strip() for ln in content.splitlines() if ln.strip()), "")
        return [f"created ({len(content.splitlines())} lines), starting `{cut(first, LINE_CHARS)}`"]
    if name in ("edit_file", "str_replace"):
        old = str(args.get("old_text", args.get("old_str", "")))
        new = str(args.get("new_text", args.get("new_str", "")))
        gone = set(old.splitlines())
        added = [ln.strip() for ln in new.splitlines() if ln not in gone and ln.strip()]
        if not added:
            removed = [
                ln.strip() for ln in old.splitlines() if ln not in set(new.splitlines()) and ln.strip()
            ]
            return [f"edited: - `{cut(ln, LINE_CHARS)}`" for ln in removed[:3]] or ["edited"]
        shown = [f"edited: + `{cut(ln, LINE_CHARS)}`" for ln in added[:3]]
        return shown + ([f"edited, {len(added) - 3} more lines"] if len(added) > 3 else [])
    return []


def tool_calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[int, str, dict, dict | None]]:
    """Every tool call in order: (index of its result's message, tool name, input, result block)."""
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


def exit_status(output: str, is_error: bool) -> int | None:
    """The exit status an output reports (``[exit code N]``), 1 for an error result without one."""
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


def counts_note(output: str) -> str:
    """``(N passed, M failed)`` from an output's last count line, or ''."""
    found = _COUNT.findall(_last_count_line(output))
    return f" ({', '.join(f'{n} {kind}' for n, kind in found)})" if found else ""


def failures(output: str) -> list[str]:
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
        out.append(cut(f"{name}: {error}" if error else name, LINE_CHARS))
    if len(out) > MAX_FAILURES:
        out = out[:MAX_FAILURES] + [f"{len(out) - MAX_FAILURES} more failures"]
    return out


def first_problem(output: str) -> str:
    """The first failure or error line of an output, else its first line."""
    listed = failures(output)
    if listed:
        return listed[0]
    line = next((ln.strip() for ln in output.splitlines() if _ERROR_LINE.match(ln)), None)
    return cut(line or first_line(output), LINE_CHARS)


def first_line(output: str) -> str:
    """The first non-blank line of an output."""
    return next((ln.strip() for ln in output.splitlines() if ln.strip()), "(no output)")


def cut(value: str, limit: int) -> str:
    """``value`` on one line, cut to ``limit`` characters with '...' when longer."""
    value = " ".join(str(value).split())
    return value if len(value) <= limit else value[: limit - 3] + "..."


def errors_and_fixes(calls: Sequence[tuple[int, str, dict, dict | None]], max_files: int = 5) -> list[str]:
    """Each failed call (``tool_calls``) with what followed: the files edited, the same command passing."""
    out: list[str] = []
    open_errors: dict[str, int] = {}  # command -> index in out of its error, until it passes again
    for _, name, args, result in calls:
        body = text_of(result.get("content")) if result else ""
        failed = bool(result and result.get("is_error"))
        path = args.get("path") if isinstance(args.get("path"), str) else None
        if name == "bash" and isinstance(args.get("command"), str):
            command = " ".join(args["command"].split())
            _, bad = command_entry(command, body, failed)
            if bad:
                problems = "; ".join(failures(body)) or first_problem(body)
                out.append(f"- `{cut(command, 80)}` failed{counts_note(body)}: {problems}")
                open_errors[command] = len(out) - 1
            elif command in open_errors:
                k = open_errors.pop(command)
                out[k] += f"; then `{cut(command, 80)}` passed{counts_note(body)}"
        elif failed:
            what = f"{name} {path}" if path else name
            out.append(f"- {what} failed: {cut(first_line(body), LINE_CHARS)}")
        elif path is not None and name not in ("read_file", "view", "cat"):
            for k in open_errors.values():  # an edit after a failure: part of its fix
                if f"; edited {path}" not in out[k] and out[k].count("; edited ") < max_files:
                    out[k] += f"; edited {path}"
    return out
