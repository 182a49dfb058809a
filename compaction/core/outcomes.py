"""What a tool call did, in one line: a command's outcome, and the errors of a session with their fixes.

``command_entry`` reads a command's output the way a reader skims it: the exit status (``[exit
code N]``, ``Exit code N``, mini-swe-agent's ``<returncode>N</returncode>``), the pass/fail counts of
a test runner's last summary line, each failure it lists (``FAILED name`` and the first error line
after it), else the first error line, else a short output whole, else the lines of it the agent used
later (``compaction.core.used``). An output without an exit status failed when it shows a traceback or
an edit the agent's tool refused (SWE-agent's syntax check); a search that found nothing (``grep``'s
exit 1) did not. ``errors_and_fixes`` lists each failed call with the files changed after it (any
agent's edits, ``compaction.core.actions``) and the run that passed. The ledger and the offline
summarizer both use them, so both say the same thing. An output is read line by line only when one
test of the whole output shows a pattern may match (``_may_*``), and what ``command_entry`` reads of
an output without the later messages is kept by the output's digest, so the three readers of a
history read each call/result pair once.
Deliberately left out: parsing any one runner's full report (coverage, timings, warnings).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from compaction.core.actions import edit_refused, file_actions, path_of, shell_command
from compaction.core.changes import cut
from compaction.core.messages import blocks, text_of
from compaction.core.placeholders import is_cleared, kept_lines
from compaction.core.used import LaterUse

LINE_CHARS = 160  # a line of output or code shown in an entry, at most
SHORT_OUTPUT = 120  # an output of at most two lines and this many characters is shown whole
CLEARED_OUTPUT = "(output cleared)"  # the problem of a failed call whose result micro cleared bare
MAX_FAILURES = 8  # failures listed for one command
_EXIT = re.compile(
    r"\[exit code (-?\d+)\]|\bexit (?:code|status)[: ]+(-?\d+)|<returncode>(-?\d+)</returncode>",
    re.IGNORECASE,
)
_COUNT = re.compile(r"\b(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")
_FAIL_HEAD = re.compile(r"^(?:FAILED|ERROR)[: ]+(.+)$")
_ERROR_LINE = re.compile(
    r"^\s*(?:E\s+)?(?:[\w.]*(?:Error|Exception)\b|error:|fatal:|Traceback\b)|^\s*-?\s*[EF]\d{3} "
)  # an exception, error: or fatal:, a traceback, a linter's E999/F821 line
# Cheap tests an output must pass before a pattern can match it (a line-by-line regex over 10 KB
# costs some 0.3 ms): what ``_ERROR_LINE`` needs somewhere, and what ``_COUNT`` and ``_EXIT`` end or
# start with. They only skip work: an output that passes is read exactly as before.
_ERROR_WORDS = ("Error", "Exception", "error:", "fatal:", "Traceback")
_LINT_CODES = (re.compile(r"E\d{3} "), re.compile(r"F\d{3} "))
_COUNT_WORD = re.compile(r" (?:passed|failed|errors?|skipped|xfailed|xpassed)\b")
_TRACEBACK_HEAD = "Traceback (most recent call last):"
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):", re.MULTILINE)
_LOOKS = re.compile(
    r"\s*(?:cd \S+ && )?(?:cat|head|tail|less|nl|ls|find|grep|rg|git (?:status|diff|log|show))\b(?![^|]*>)"
)
_SEARCHES = re.compile(
    r"(?:^|[|;&]\s*|\s)(?:grep|egrep|fgrep|rg|diff|cmp|test)\b[^|;&]*$"
)  # exit 1: not found


_TAGS = r"</?(?:output|output_head|output_tail|warning|stdout|stderr)>"  # mini-swe-agent's wrapping
_WRAPPER = re.compile(rf"^\s*(?:{_TAGS})+\s*$|^\s*(?:{_TAGS})+|(?:{_TAGS})+\s*$")


def _may_exit(output: str) -> bool:
    """False only when ``_EXIT`` cannot match: an ASCII output without "exit" or "returncode" in any case."""
    if output.isascii():  # for ASCII, str.lower is exactly the pattern's IGNORECASE
        low = output.lower()
        return "exit" in low or "returncode" in low
    return _EXIT.search(output) is not None


def _may_err(output: str) -> bool:
    """False only when no line of ``output`` can match ``_ERROR_LINE``."""
    return any(word in output for word in _ERROR_WORDS) or any(p.search(output) for p in _LINT_CODES)


def _may_count(output: str) -> bool:
    """False only when ``_COUNT`` cannot match: no count word right after a digit."""
    # str.isdigit holds for every character \d matches (and a few more): never a count missed
    return any(output[m.start() - 1 : m.start()].isdigit() for m in _COUNT_WORD.finditer(output))


def _may_list(output: str) -> bool:
    """False only when no line can match ``_FAIL_HEAD``, which starts with FAILED or ERROR."""
    return "FAILED" in output or "ERROR" in output


def _may_traceback(output: str) -> bool:
    """False only when ``_TRACEBACK`` cannot match."""
    return _TRACEBACK_HEAD in output


def body(output: str) -> str:
    """An output without its harness's wrapping: exit status lines and lone tags (mini-swe-agent's)."""
    if "<" not in output and not _may_exit(output):  # no tag, no exit status: only leading blanks go
        kept = output.splitlines()
        start = next((k for k, line in enumerate(kept) if line.strip()), len(kept))
        joined = "\n".join(kept[start:])
        return output if joined == output else joined  # the same string when nothing changed
    lines = []
    for line in output.splitlines():
        line = _EXIT.sub("", line) if _EXIT.fullmatch(line.strip()) else line
        if _WRAPPER.fullmatch(line.strip()) or not line.strip() and not lines:
            continue
        lines.append(_WRAPPER.sub("", line) if _WRAPPER.search(line) else line)
    return "\n".join(lines)


def command_entry(
    command: str, output: str, is_error: bool, later: LaterUse | None = None, index: int = 0
) -> tuple[str, bool]:
    """One command's line: ``- `cmd` -> exit N; counts; failures, or its output``, and whether it failed."""
    parts, bad, shown = _reading(command, output, is_error)
    parts = list(parts)
    if shown is not None:  # an output with nothing else to say: shown short, or the line used later
        lines, count = shown
        if lines:
            used = later is not None and later.lines(body(output), index, max_lines=2, max_chars=SHORT_OUTPUT)
            parts.append(" | ".join(lines) + (" (used later)" if used else ""))
        elif later is not None:
            used = later.lines(body(output), index, max_lines=1, max_chars=SHORT_OUTPUT)
            if used:
                parts.append(f"({count} lines) used later: {used[0].strip()}")
    return f"- `{cut(command, 100)}` -> " + ("; ".join(parts) or "ok"), bad


_READINGS: dict[tuple, tuple] = {}  # (command, is_error, digest of the output) -> its reading
MAX_READINGS = 50_000  # readings kept (a few hundred bytes each) before the memory starts again


def _reading(command: str, output: str, is_error: bool) -> tuple[tuple[str, ...], bool, tuple | None]:
    """What ``command_entry`` reads without the later messages: its parts, failed, and what it may show.

    The ledger, ``errors_and_fixes`` and the offline summarizer each read every command of a history,
    so a reading is kept by the output's content (a digest: no output held in memory) and made once.
    ``shown`` is None when the entry says all there is; else (the lines shown whole or (), the number
    of lines), for the part that depends on what the agent said later.
    """
    digest = hashlib.blake2b(output.encode("utf-8", "surrogatepass"), digest_size=20).digest()
    key = (command, bool(is_error), digest)
    known = _READINGS.get(key)
    if known is not None:
        return known
    status = exit_status(output, is_error)
    output = body(output)
    counts = _COUNT.findall(_last_count_line(output))
    listed = failures(output)
    bad = failed(command, output, status) or any(
        kind in ("failed", "error", "errors") and int(n) for n, kind in counts
    )
    parts = [f"exit {status}"] if status else (["failed"] if bad and not counts else [])
    if status and not bad:  # grep or diff finding nothing
        parts[-1] += " (nothing found)"
    if counts:
        parts.append(", ".join(f"{n} {kind}" for n, kind in counts))
    shown = None
    if listed:  # the first failure; ``errors_and_fixes`` lists them all
        parts += listed[:1] + ([f"{len(listed) - 1} more failures"] if len(listed) > 1 else [])
    elif bad:
        parts.append(first_problem(output))
    elif not counts:
        exits = _may_exit(output)  # else no line has one: skip the test line by line
        lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not (exits and _EXIT.search(ln))]
        short = lines and len(lines) <= 2 and sum(map(len, lines)) <= SHORT_OUTPUT
        shown = (tuple(lines) if short else (), len(lines))
    if len(_READINGS) >= MAX_READINGS:
        _READINGS.clear()
    known = _READINGS[key] = (tuple(parts), bad, shown)
    return known


def failed(command: str, output: str, status: int | None) -> bool:
    """True when a command failed: exit not 0 (a search finding nothing aside), a traceback, or a refusal."""
    if status:
        quiet = status in (1, 123) and _SEARCHES.search(command) and not _first_error(output)
        return not quiet
    traceback = _may_traceback(output) and _TRACEBACK.search(output)
    return status is None and bool(traceback or edit_refused(output))


def _first_error(output: str) -> str | None:
    """The first error line; for a traceback, the exception it ends with rather than its first line."""
    lines = error_lines(output)
    return next((ln for ln in lines if not ln.startswith("Traceback")), lines[0] if lines else None)


def command_priority(entry: str, bad: bool) -> int:
    """How long a command's entry survives: failures, counts and outputs used later, then the rest."""
    if bad or _COUNT.search(entry) or entry.endswith(" (used later)"):
        return 2
    return 0 if entry.endswith((" -> ok", " -> (no output)")) or ") used later: " in entry else 1


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
    found = _EXIT.findall(output) if _may_exit(output) else []
    if found:
        return int(next(g for g in found[-1] if g))
    return 1 if is_error else None


def error_lines(output: str) -> list[str]:
    """The lines of ``output`` that read as errors (``_ERROR_LINE``), stripped, in order."""
    if not _may_err(output):  # a few scans of the whole output instead of a match per line
        return []
    return [ln.strip() for ln in output.splitlines() if _ERROR_LINE.match(ln)]


def _last_count_line(output: str) -> str:
    if not _may_count(output):
        return ""
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
    if not _may_list(output):
        return []
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
    """The first failure or error line of an output, else its first line; none of a bare placeholder.

    A summary request reads the list as micro left it: a failed call whose result was cleared with
    no line kept said "failed: [Old tool result cleared: ...]", 60 tokens that tell nothing; it now
    says ``(output cleared)``. Reading a placeholder's kept lines instead was measured too (issue 40,
    ``evaluate --quick``): the real-session table kept 126 of 139 either way, but the longer failure
    lines took offline 150 from 94% to 92% of its probes (a sentence crowded out of an 800-token
    summary), so a placeholder with kept lines still shows its first line.
    """
    if is_cleared(output) and not kept_lines(output):
        return CLEARED_OUTPUT
    output = body(output)
    listed = failures(output)
    if listed:
        return listed[0]
    return cut(_first_error(output) or first_line(output), LINE_CHARS)


def problem_lines(output: str, max_lines: int = 2) -> list[str]:
    """An output's failures (``failures``), else its error lines (a traceback's exception), bounded."""
    output = body(output)
    found = failures(output)[:max_lines]
    if not found:
        found = [ln for ln in error_lines(output) if not ln.startswith("Traceback")][:max_lines]
    return [cut(line, LINE_CHARS) for line in found]


def first_line(output: str) -> str:
    """The first non-blank line of an output."""
    return next((ln.strip() for ln in output.splitlines() if ln.strip()), "(no output)")


def errors_and_fixes(calls: Sequence[tuple[int, str, dict, dict | None]], max_files: int = 5) -> list[str]:
    """Each failed call (``tool_calls``) with what followed: the files changed to fix it, the command passing.

    A file changed after a failure is part of its fix when the same command passes later, or when the
    command or its output names the file (a traceback's ``File "x.py"``); other changes are other work.
    A failed command that never passes again gets the command the agent ran next, when that is not a
    look around (``pip install -e .`` after ``No module named ...``).
    """
    steps = []  # (command or None, failed, output, file actions) per call
    for _, name, args, result in calls:
        output = text_of(result.get("content")) if result else ""
        is_error = bool(result and result.get("is_error"))
        command = shell_command(name, args)
        if command is not None:
            command = " ".join(command.split())
            bad = command_entry(command, output, is_error)[1]
        else:
            bad = is_error or edit_refused(output)
        steps.append((command, bad, output, file_actions(name, args, output), name, args))
    passes = {c: k for k, (c, bad, *_) in enumerate(steps) if c is not None and not bad}  # last pass
    out: list[str] = []
    open_errors: dict[str, tuple[int, bool, str]] = {}  # command -> (index in out, passes later, its text)
    for k, (command, bad, output, actions, name, args) in enumerate(steps):
        if command is not None and bad:
            problems = "; ".join(failures(body(output))) or first_problem(output)
            out.append(f"- `{cut(command, 80)}` failed{counts_note(output)}: {problems}")
            closes = passes.get(command, -1) > k
            after = steps[k + 1][0] if k + 1 < len(steps) else None
            if not closes and after is not None and after != command and not _LOOKS.match(after):
                out[-1] += f"; next `{cut(after, 80)}`"
            open_errors[command] = (len(out) - 1, closes, f"{command}\n{output}")
            continue
        if command is not None and command in open_errors:
            i, _, _ = open_errors.pop(command)
            out[i] += f"; then `{cut(command, 80)}` passed{counts_note(output)}"
        elif command is None and bad:
            path = next((p for p, _ in actions), None) or path_of(args)
            what = f"{name} {path}" if path else name
            problem = first_problem(output) if edit_refused(output) else first_line(output)
            out.append(f"- {what} failed: {cut(problem, LINE_CHARS)}")
            continue
        for path in dict.fromkeys(p for p, change in actions if change != "read"):
            for i, closes, said in open_errors.values():  # a change after a failure: part of its fix
                fixes = closes or path in said or path.rsplit("/", 1)[-1] in said
                if fixes and f"; edited {path}" not in out[i] and out[i].count("; edited ") < max_files:
                    out[i] += f"; edited {path}"
    return out
