"""Checks for chapter 04 (micro): the placeholder for an old result, and the layer itself.

``check_placeholder_for`` tests properties: one short line that the layer recognises as its own
(it starts with ``CLEARED_HEAD``), names the tool, and says what to re-run (the path of a file read,
the command of a bash call). ``check_micro`` is differential: identical to the package's
``micro_compact`` on the course sessions for several settings, without touching its input.
Deliberately left out: ``exclude_tools``, which the chapter shows with the package's function.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.micro import CLEARED_HEAD, micro_compact

CALLS = [
    ("read_file", {"path": "src/app/config.py"}, "src/app/config.py"),
    ("bash", {"command": "python run_tests.py -k parser"}, "python run_tests.py -k parser"),
    ("glob", {"pattern": "tests/**/*.py"}, "tests/**/*.py"),
    ("edit_file", {"path": "a.py", "old_text": "x", "new_text": "y"}, "edit_file"),
]
SETTINGS = [(3, 120), (1, 120), (0, 0), (5, 50), (10, 120)]


def _placeholder_names_what_to_rerun(fn: Callable, name: str, tool_input: dict, expected: str) -> None:
    note = fn(name, dict(tool_input))
    assert isinstance(note, str), f"placeholder_for must return a string, got {type(note).__name__}"
    assert note.startswith(CLEARED_HEAD), (
        f"start with {CLEARED_HEAD!r} so the layer knows its own notes: {note!r}"
    )
    assert "\n" not in note and len(note) <= 300, f"one short line please: {note!r}"
    assert name in note and expected in note, f"name the tool and {expected!r}: {note!r}"


def _long_command_shortened(fn: Callable) -> None:
    note = fn("bash", {"command": "echo start\n" + "x" * 10_000})
    assert "\n" not in note and len(note) <= 300, (
        f"a 10,000-character command must be shortened: {len(note)} chars"
    )


def check_placeholder_for(placeholder_for: Callable) -> CheckReport:
    """Exercise 1: a one-line note naming the tool and what to call again."""
    cases = [
        (
            f"{name} names {expected!r}",
            lambda n=name, i=inp, e=expected: _placeholder_names_what_to_rerun(placeholder_for, n, i, e),
        )
        for name, inp, expected in CALLS
    ]
    cases.append(
        ("a long multi-line command stays one short line", lambda: _long_command_shortened(placeholder_for))
    )
    return run_cases("placeholder_for", cases)


def _same_as_package(fn: Callable, session: list[dict], keep_recent: int, min_chars: int) -> None:
    given = copy.deepcopy(session)
    got = fn(given, keep_recent=keep_recent, min_chars=min_chars)
    want = micro_compact(session, keep_recent=keep_recent, min_chars=min_chars)
    assert given == session, "the input list was changed: build new messages instead"
    if got != want:
        diff = next(
            (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want))
        )
        raise AssertionError(
            f"keep_recent={keep_recent}, min_chars={min_chars}: first difference at message {diff} "
            f"({len(got)} messages returned, {len(want)} expected)"
        )


def check_micro(micro: Callable) -> CheckReport:
    """Exercise 2: identical to the package's micro_compact on every course session, input untouched."""
    cases = [
        (
            f"session {k + 1}, keep_recent={keep}, min_chars={low}",
            lambda s=s, keep=keep, low=low: _same_as_package(micro, s, keep, low),
        )
        for k, s in enumerate(course_sessions())
        for keep, low in SETTINGS
    ]
    return run_cases("micro", cases)
