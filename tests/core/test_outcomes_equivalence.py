"""compaction.core.outcomes' shortcuts change nothing: every reading equals the line-by-line one.

Each shortcut skips a regex over every line when one test of the whole output shows no line can
match (``_may_exit``, ``_may_err``, ``_may_count``, ``_may_list``, ``_may_traceback``), and
``command_entry`` keeps what it read of an output by the output's content. Here every function is
run with the shortcuts on and with them forced off and nothing remembered, on outputs drawn from
the pieces the patterns look for (exit statuses, wrapper tags, counts, failures, tracebacks, lint
codes, refusals), in both cases, with non-ASCII look-alikes and line breaks other than \\n.
"""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.core import actions, outcomes

PIECES = [
    "[exit code 1]", "[exit code 0]", "Exit code 2", "exit status: 3", "EXİT CODE 4", "exit ſtatus 5",
    "<returncode>0</returncode>", "<returncode>1</returncode>", "<output>", "</output>", "<stdout>",
    "FAILED tests/test_a.py::test_x - AssertionError: boom", "ERROR: x", "ERROR tests/b.py",
    "E   ValueError: bad", "Traceback (most recent call last):", '  File "calc.py", line 3',
    "KeyError: 'k'", "3 passed, 1 failed", "12 passed", "2 errors", "1 error", "٣ passed", "² passed",
    "error: thing", "fatal: no repo", "E999 SyntaxError", "F821 undefined name", "errors",
    "changes have NOT been applied", "Edit has introduced new syntax error", "CHANGES HAVE NOT BEEN APPLİED",
    "src/app.py:3: value", "value", "7", " ", "   ", "\n", "\n", "\n", "\r\n", "\r", "\x85", "\u2028",
    "x" * 130,
]  # fmt: skip
outputs = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
commands = st.sampled_from(["pytest -q", "grep -rn x src", "ls", "python calc.py", "diff a b", "git status"])
SHORTCUTS = ("_may_exit", "_may_err", "_may_count", "_may_list", "_may_traceback")


class Forgetful(dict):
    """A memory that keeps nothing: every reading is made again."""

    def __setitem__(self, key, value):
        pass


@contextmanager
def line_by_line():
    """The functions as they read without a shortcut: every pattern tried on every line."""
    with mock.patch.multiple(outcomes, **{name: lambda _output: True for name in SHORTCUTS}):
        with mock.patch.object(outcomes, "_READINGS", Forgetful()):
            yield


def readings(output: str, command: str, is_error: bool) -> dict:
    return {
        "body": outcomes.body(output),
        "failures": outcomes.failures(output),
        "error_lines": [outcomes.first_problem(output), outcomes.problem_lines(output, 3)],
        "exit": outcomes.exit_status(output, is_error),
        "counts": outcomes.counts_note(output),
        "failed": outcomes.failed(command, output, outcomes.exit_status(output, is_error)),
        "entry": outcomes.command_entry(command, output, is_error),
    }


@settings(max_examples=400, deadline=None)
@given(outputs, commands, st.booleans())
def test_every_reading_equals_the_line_by_line_one(output, command, is_error):
    fast = readings(output, command, is_error)
    again = readings(output, command, is_error)  # the second time from the kept reading
    with line_by_line():
        slow = readings(output, command, is_error)
    assert fast == slow
    assert again == slow


@settings(max_examples=200, deadline=None)
@given(outputs)
def test_a_refused_edit_is_found_as_the_pattern_finds_it(output):
    assert actions.edit_refused(output) == bool(actions._REFUSED.search(output))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(commands, outputs, st.booleans()), min_size=2, max_size=8))
def test_errors_and_fixes_equal_the_line_by_line_reading(steps):
    calls = [
        (k, "bash", {"command": command}, {"tool_use_id": f"t{k}", "content": output, "is_error": is_error})
        for k, (command, output, is_error) in enumerate(steps)
    ]
    fast = outcomes.errors_and_fixes(calls)
    with line_by_line():
        assert outcomes.errors_and_fixes(calls) == fast


def test_an_output_read_before_is_read_again_when_its_content_changes():
    """The memory is keyed by content: the same command over a new output is a new reading."""
    first = outcomes.command_entry("pytest -q", "3 passed", False)
    second = outcomes.command_entry("pytest -q", "2 passed, 1 failed", False)
    assert first == ("- `pytest -q` -> 3 passed", False)
    assert second == ("- `pytest -q` -> 2 passed, 1 failed; 2 passed, 1 failed", True)
    third = outcomes.command_entry("pytest -q", "3 passed", True)
    assert third == ("- `pytest -q` -> exit 1; 3 passed; 3 passed", True)
