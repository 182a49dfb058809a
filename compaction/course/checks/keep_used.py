"""Checks for chapter 17 (keep what the agent used): used lines, a minimal ledger, and the two exercises.

``check_used_lines`` holds a ``used_lines(result_text, later_messages, max_lines=2)`` to the rule of
``compaction.core.used`` on handmade cases: a line is kept when a path, a compound identifier, a
number of two or more digits or a quoted string in it comes back in a later assistant text or tool
input; plain words, single digits and the user's own messages mark nothing; at most ``max_lines``
lines, whole and in their order. ``check_ledger`` holds a ``ledger(messages, max_entries=40)`` to
what a summary must be able to lean on: created and edited files, each command with its outcome, a
ledger from an earlier compaction carried over, and a bound that does not push out a failure. The
exercises: ``check_counts_entry`` (a test run's entry with its pass/fail counts, from the last
summary line of four runners' outputs) and ``check_used_lines_reformatted`` (a number the agent
wrote differently: ``1,000`` as ``1000``, ``3.674`` rounded to ``3.67``; a one-digit number
marks nothing on either side, so the offline agent's ``[step 4]`` does not mark ``3.674``). Both
are property checks, so an answer in another format than the solution's passes. Deliberately left
out: judging which lines matter most (the package ranks lines by how many of their tokens came back).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.core.used import used_lines
from compaction.course.checks import CheckReport, run_cases
from compaction.presentation.language import say, translated

ANSWERS = ("counts_entry", "used_lines_reformatted")  # what the exercises compute

# ---------------------------------------------------------------- used lines (the chapter)

GREP = "textstats/counts.py:17:def top_words(words, n=10):\nREADME.md:4:see the counts module"
TESTS = "tests/test_counts.py ..F...\n54 passed, 7 failed\n[exit code 1]"
PLAIN = "all the tests passed\nnothing else to report"
FIVE = "\n".join(f"src/mod_{k}.py: ok" for k in range(5))

# (name, the rule, result text, later messages, max_lines, lines that must be kept, lines that must not)
USED_CASES = [
    (
        "a path said later keeps its line",
        "a path is specific",
        GREP,
        [assistant("Reading textstats/counts.py, which defines it.")],
        2,
        [0],
        [1],
    ),
    (
        "an identifier in a later tool input",
        "a compound identifier is specific; tool inputs count",
        GREP,
        [assistant(tool_use("toolu_09", "bash", {"command": "grep -rn top_words tests"}))],
        2,
        [0],
        [1],
    ),
    (
        "a number of two or more digits",
        "a 2+ digit number is specific",
        TESTS,
        [assistant("The tests report 54 passed.")],
        2,
        [1],
        [0, 2],
    ),
    (
        "a quoted string",
        "a quoted string is specific",
        "AssertionError: 'pear' came first\nthe other assertions held",
        [assistant("It returned 'pear' first, before apple.")],
        2,
        [0],
        [1],
    ),
    (
        "plain words mark nothing",
        "a plain word is not specific",
        PLAIN,
        [assistant("So all the tests passed, nothing else to report.")],
        2,
        [],
        [0, 1],
    ),
    (
        "a single digit marks nothing",
        "a 1-digit number is not specific",
        "exit 1\nlast line",
        [assistant("It ended with exit 1.")],
        2,
        [],
        [0, 1],
    ),
    (
        "the user's words do not count",
        "only assistant texts and tool inputs count",
        GREP,
        [user("Look at textstats/counts.py please.")],
        2,
        [],
        [0, 1],
    ),
    ("nothing said later", "no later message: no line is used", GREP, [], 2, [], [0, 1]),
    (
        "at most max_lines lines",
        "the bound: max_lines",
        FIVE,
        [assistant("Checked " + ", ".join(f"src/mod_{k}.py" for k in range(5)) + ".")],
        2,
        None,  # any two of the five
        [],
    ),
    (
        "max_lines=1",
        "the bound: max_lines",
        FIVE,
        [assistant("Checked src/mod_3.py and src/mod_4.py.")],
        1,
        None,
        [0, 1, 2],
    ),
]


def _used_case(fn: Callable, rule: str, result: str, later: list, bound: int, keep, drop) -> None:
    lines = result.splitlines()
    got = fn(result, list(later), max_lines=bound)
    assert isinstance(got, list), say("return a list of lines, not {kind}", kind=type(got).__name__)
    for line in got:
        assert line in lines, say(
            "{line} is not a whole line of the result (lines are kept whole)", line=repr(line)
        )
    positions = [lines.index(line) for line in got]
    assert positions == sorted(positions), say("lines out of the result's order: {got}", got=got)
    assert len(got) <= bound, say("{n} lines kept, more than max_lines={bound}", n=len(got), bound=bound)
    for k in keep or []:
        assert lines[k] in got, say(
            "line {k} ({line}) should be kept ({rule}); kept {got}",
            k=k,
            line=repr(lines[k]),
            rule=translated(rule),
            got=got,
        )
    for k in drop:
        assert lines[k] not in got, say(
            "line {k} ({line}) should not be kept ({rule})", k=k, line=repr(lines[k]), rule=translated(rule)
        )
    if keep is None:
        assert len(got) == bound, say(
            "{n} lines kept, expected {bound}: every line is used ({rule})",
            n=len(got),
            bound=bound,
            rule=translated(rule),
        )


def check_used_lines(fn: Callable) -> CheckReport:
    """The chapter's ``used_lines``: which lines of a result the agent used later, bounded."""
    cases = [(name, lambda c=c: _used_case(fn, *c)) for name, *c in USED_CASES]
    return run_cases("used_lines", cases)


# ---------------------------------------------------------------- the ledger (the chapter)


def call(k: int, name: str, args: dict, output: str, is_error: bool = False) -> list[dict]:
    """One tool call and its result: an assistant message and a user message."""
    use_id = f"toolu_{k:02d}"
    return [
        assistant(f"Step {k}.", tool_use(use_id, name, args)),
        user(tool_result(use_id, output, is_error=is_error)),
    ]


FAILING = "FAILED tests/test_counts.py::test_ties\nAssertionError: [('pear', 2), ('apple', 2)]\n[exit code 1]"
HISTORY = [
    user("Fix the failing tests."),
    *call(1, "bash", {"command": "python run_tests.py"}, FAILING, True),
    *call(
        2, "write_file", {"path": "textstats/lexical.py", "content": "def lexical_diversity(words):\n"}, "ok"
    ),
    *call(
        3,
        "edit_file",
        {"path": "textstats/counts.py", "old_text": "key=count", "new_text": "key=lambda p: (-p[1], p[0])"},
        "ok",
    ),
    *call(4, "bash", {"command": "python run_tests.py"}, "61 passed, 0 failed"),
]

# (name, where, history, what the ledger must hold)
LEDGER_CASES = [
    ("a created file is named", "message 4, write_file", HISTORY, ["textstats/lexical.py"]),
    (
        "an edit shows the line it added",
        "message 6, edit_file",
        HISTORY,
        ["textstats/counts.py", "key=lambda p: (-p[1], p[0])"],
    ),
    (
        "a failed command: its exit status and error",
        "message 2, bash",
        HISTORY,
        ["python run_tests.py", "1", "AssertionError: [('pear', 2), ('apple', 2)]"],
    ),
]


def _holds(fn: Callable, where: str, history: list, wanted: list[str]) -> None:
    got = fn(list(history))
    assert isinstance(got, str), say("return the ledger as text, not {kind}", kind=type(got).__name__)
    for piece in wanted:
        assert piece in got, say(
            "{where}: {piece} is missing from the ledger", where=where, piece=repr(piece)
        )


def _carried(fn: Callable) -> None:
    first = fn(list(HISTORY[:3]))  # the failed run only
    later = [user(text("Summary of the work so far."), text(first)), *HISTORY[3:]]
    got = fn(later)
    wanted = "AssertionError: [('pear', 2), ('apple', 2)]"
    assert wanted in first, say(
        "message 2, bash: {wanted} is missing from the first ledger", wanted=repr(wanted)
    )
    assert wanted in got, say(
        "message 0, the earlier ledger: {wanted} was in it but not in the new one "
        "(carry an earlier compaction's ledger over)",
        wanted=repr(wanted),
    )
    assert "textstats/lexical.py" in got, say("message 2, write_file: the new entries are missing")


def _bounded(fn: Callable) -> None:
    history = [user("Review every module.")]
    history += call(1, "bash", {"command": "python run_tests.py"}, FAILING, True)
    for k in range(2, 122):
        history += call(k, "bash", {"command": f"grep -c def mod_{k}.py"}, f"{k}\n[exit code 0]")
    got = fn(history, max_entries=40)
    assert isinstance(got, str), say("return the ledger as text, not {kind}", kind=type(got).__name__)
    lines = [line for line in got.splitlines() if line.strip()]
    assert len(lines) <= 45, say("{n} lines for 121 commands: max_entries=40 should bound it", n=len(lines))
    assert "AssertionError" in got, say(
        "message 2, bash: the failed run was pushed out by {n} passing commands (drop those first)", n=120
    )


def check_ledger(fn: Callable) -> CheckReport:
    """The chapter's ``ledger``: files, commands with outcomes, carried over, bounded."""
    cases = [(name, lambda c=c: _holds(fn, *c)) for name, *c in LEDGER_CASES]
    cases += [
        ("an earlier ledger is carried over", lambda: _carried(fn)),
        ("bounded, and a failure survives the bound", lambda: _bounded(fn)),
    ]
    return run_cases("ledger", cases)


# ---------------------------------------------------------------- exercise 1: a test run's entry

_RUNNERS = {
    "run_tests.py": (
        "tests/test_counts.py ..F.\n\nFAILED tests/test_counts.py::test_ties\n"
        "54 passed, 7 failed\n[exit code 1]"
    ),
    "pytest, failed first": (
        "....F.\n===== short test summary info =====\n===== 2 failed, 41 passed in 0.52s ====="
    ),
    "pytest, all green": "..........\n========== 44 passed in 0.10s ==========",
    "progress, then the summary": "3 passed, 0 failed (so far)\n...\n10 passed, 1 failed\n[exit code 1]",
    "skipped tests too": "== 1 failed, 12 passed, 3 skipped in 1.20s ==",
}
COUNT = re.compile(r"\b(\d+) (passed|failed)\b")

# (name, command, output, passed, failed, exit status or None)
ENTRY_CASES = [
    ("the course's runner", "python run_tests.py", _RUNNERS["run_tests.py"], 54, 7, 1),
    ("pytest names failures first", "pytest -q", _RUNNERS["pytest, failed first"], 41, 2, None),
    ("all green: 0 failed", "pytest -q", _RUNNERS["pytest, all green"], 44, 0, None),
    ("the last summary line wins", "python run.py", _RUNNERS["progress, then the summary"], 10, 1, 1),
    ("skipped is not passed", "pytest", _RUNNERS["skipped tests too"], 12, 1, None),
    ("exit 0 is said too", "python run_tests.py", "5 passed, 0 failed\n[exit code 0]", 5, 0, 0),
]


def counts_entry_reference(command: str, output: str) -> str:
    """``- `cmd` -> exit N; P passed, F failed`` from the output's last line with a count."""
    line = next((ln for ln in reversed(output.splitlines()) if COUNT.search(ln)), "")
    counts = {kind: int(n) for n, kind in COUNT.findall(line)}
    status = re.findall(r"\[exit code (-?\d+)\]", output)
    head = f"exit {status[-1]}; " if status else ""
    return f"- `{command}` -> {head}{counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed"


def _entry_case(fn: Callable, command: str, output: str, passed: int, failed: int, status) -> None:
    got = fn(command, output)
    assert isinstance(got, str), say(
        "return the entry as one line of text, not {kind}", kind=type(got).__name__
    )
    assert "\n" not in got.strip(), say("the entry is one line, got {n}", n=got.count(chr(10)) + 1)
    assert command in got, say(
        "the command {command} is missing from {got}", command=repr(command), got=repr(got)
    )
    found = COUNT.findall(got.replace(command, ""))  # the command may hold a count of its own
    for kind, want in (("passed", passed), ("failed", failed)):
        said = [int(n) for n, k in found if k == kind]
        assert said, say(
            "`N {kind}` is missing from {got} (the output's last count line says {want} {kind})",
            kind=kind,
            got=repr(got),
            want=want,
        )
        others = sorted({n for n in said if n != want})
        assert want in said or not others, say(
            "{other} {kind}, but the output's last count line says {want} {kind}",
            other=others[0] if others else "",
            kind=kind,
            want=want,
        )
        assert not others, say(
            "the right count ({want} {kind}) is there, but so is {other} {kind} from an earlier line of "
            "the output: the entry gives only the last count line's counts",
            want=want,
            kind=kind,
            other=others[0] if others else "",
        )
    if status is not None:
        assert re.search(rf"\bexit (?:code |status )?{status}\b", got), say(
            "the output ends with [exit code {status}]: say `exit {status}` in {got}",
            status=status,
            got=repr(got),
        )


def check_counts_entry(fn: Callable) -> CheckReport:
    """Exercise 1: a test run's ledger entry with its pass/fail counts (and exit status)."""
    cases = [(name, lambda c=c: _entry_case(fn, *c)) for name, *c in ENTRY_CASES]
    return run_cases("counts_entry", cases)


# ---------------------------------------------------------------- exercise 2: reformatted numbers

# (name, the rule, result text, later messages (a string: one assistant text), max_lines, kept, not kept);
# kept None: every line is used, so exactly max_lines of them
REFORMAT_CASES = [
    (
        "1,000 said as 1000",
        "thousands separators do not matter",
        "rows: 1,000\ncols: 3",
        "Got 1000 rows.",
        2,
        [0],
        [1],
    ),
    (
        "1000 said as 1,000",
        "thousands separators do not matter",
        "rows: 1000\ncols: 3",
        "Got 1,000 rows.",
        2,
        [0],
        [1],
    ),
    (
        "1,250,000 said as 1250000",
        "every separator goes",
        "bytes: 1,250,000\nfiles: 4",
        "It holds 1250000 bytes.",
        2,
        [0],
        [1],
    ),
    (
        "3.674 said as 3.67",
        "a value rounded to fewer decimals",
        "score 3.674\nnote none",
        "About 3.67.",
        2,
        [0],
        [1],
    ),
    ("3.678 said as 3.68", "rounded, not cut", "score 3.678\nnote none", "About 3.68.", 2, [0], [1]),
    ("3.678 is not 3.67", "rounded, not cut", "score 3.678\nnote none", "About 3.67.", 2, [], [0, 1]),
    (
        "100 is not 10",
        "a number is whole, not part of another",
        "100 files\n2 dirs",
        "Only 10 files.",
        2,
        [],
        [0, 1],
    ),
    ("2.50 said as 2.5", "a trailing zero does not matter", "price 2.50\nok", "It costs 2.5.", 2, [0], [1]),
    (
        "a path still counts",
        "the chapter's rule still holds",
        GREP,
        "Reading textstats/counts.py.",
        2,
        [0],
        [1],
    ),
    (
        "plain words still mark nothing",
        "the chapter's rule still holds",
        PLAIN,
        "All the tests passed.",
        2,
        [],
        [0, 1],
    ),
    (
        "a one-digit number said marks nothing",
        "one digit marks nothing, on either side: not the agent's `[step 4]`",
        "score 3.674\nnote none",
        "Checked the score file. [step 4]",
        2,
        [],
        [0, 1],
    ),
    (
        "the user's numbers do not count",
        "only the assistant's texts and tool inputs count",
        "rows: 1,000\ncols: 3",
        [user("Are there 1000 rows?")],
        2,
        [],
        [0, 1],
    ),
    (
        "at most max_lines lines",
        "the bound: max_lines",
        "rows: 1,000\ncols: 250\nscore 3.674",
        "It has 1000 rows, 250 columns, a score of 3.67.",
        2,
        None,
        [2],
    ),
    (
        "lines in the result's order",
        "the kept lines keep the result's order",
        "rows: 1,000\ncols: 250\nscore 3.674",
        "A score of 3.67, 250 columns and 1000 rows.",
        3,
        None,
        [],
    ),
]


def _reformat_case(fn: Callable, rule: str, result: str, later, bound: int, keep, drop: list[int]) -> None:
    lines = result.splitlines()
    messages = [assistant(later)] if isinstance(later, str) else list(later)
    said = later if isinstance(later, str) else " ".join(" ".join(_said(m)) for m in messages)
    got = fn(result, messages, max_lines=bound)
    assert isinstance(got, list), say("return a list of lines, not {kind}", kind=type(got).__name__)
    for line in got:
        assert line in lines, say(
            "{line} is not a whole line of the result (lines are kept whole)", line=repr(line)
        )
    assert len(got) <= bound, say(
        "{n} lines kept, more than max_lines={bound} ({rule})", n=len(got), bound=bound, rule=translated(rule)
    )
    positions = [lines.index(line) for line in got]
    assert positions == sorted(positions), say(
        "lines out of the result's order: {got} ({rule})", got=got, rule=translated(rule)
    )
    if keep is None:
        assert len(got) == bound, say(
            "{n} lines kept, expected {bound}: every line is used ({rule})",
            n=len(got),
            bound=bound,
            rule=translated(rule),
        )
    for k in keep or []:
        assert lines[k] in got, say(
            "line {k} ({line}) should be kept: {said} says it ({rule})",
            k=k,
            line=repr(lines[k]),
            said=repr(said),
            rule=translated(rule),
        )
    for k in drop:
        assert lines[k] not in got, say(
            "line {k} ({line}) should not be kept against {said} ({rule})",
            k=k,
            line=repr(lines[k]),
            said=repr(said),
            rule=translated(rule),
        )


NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _same_number(found: str, said: str) -> bool:
    """True when ``said`` is ``found`` without separators, or rounded to fewer decimals (half up)."""
    a, b = Decimal(found.replace(",", "")), Decimal(said.replace(",", ""))
    places = -b.as_tuple().exponent
    if places > -a.as_tuple().exponent:
        return a == b  # more decimals said than found: only a trailing zero
    return a.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP) == b


def used_lines_reformatted_reference(result_text: str, later_messages: list, max_lines: int = 2) -> list[str]:
    """``used_lines``, and a line whose number the agent wrote again differently (one digit marks nothing)."""
    words = " ".join(str(v) for m in later_messages if m.get("role") == "assistant" for v in _said(m))
    said = {n for n in NUMBER.findall(words) if _marks(n)}
    out = []
    for line in result_text.splitlines():
        numbers = [n for n in NUMBER.findall(line) if _marks(n)]
        if used_lines(line, later_messages, max_lines=1) or any(
            _same_number(n, s) for n in numbers for s in said
        ):
            out.append(line)
    return out[:max_lines]


def _marks(number: str) -> bool:
    """False for a number of one digit (``4``, the ``[step 4]`` of the offline agent): it marks nothing."""
    return len(number.replace(",", "")) >= 2


def _said(message: dict) -> list[str]:
    """The texts and tool-input values of an assistant message."""
    out = []
    for block in (
        message.get("content") if isinstance(message.get("content"), list) else [message.get("content")]
    ):
        if isinstance(block, str):
            out.append(block)
        elif isinstance(block, dict):
            out.append(str(block.get("text", "")))
            out += [str(v) for v in (block.get("input") or {}).values()]
    return out


def check_used_lines_reformatted(fn: Callable) -> CheckReport:
    """Exercise 2: used lines that match a number the agent wrote differently."""
    cases = [(name, lambda c=c: _reformat_case(fn, *c)) for name, *c in REFORMAT_CASES]
    return run_cases("used_lines_reformatted", cases)
