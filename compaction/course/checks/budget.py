"""Checks for chapter 02 (the store and the budget): safe file names, which results to persist.

``check_safe_name`` tests properties rather than one exact answer: a name stays a plain file name
for any id, different ids never share a name (not even on a case-insensitive disk), the same id
always gets the same name, and an ordinary id stays readable in it. ``check_persist_largest_first``
compares the learner's choice with the reference on the course session and on targeted sizes.
Deliberately left out: writing files (the chapter's store does that) and timing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from compaction.budget import result_chars
from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.messages import tool_result_blocks

MARKER_CHARS = 2_400  # what a marker costs in the exercise: a 2,000-character preview and the frame
RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
HOSTILE = [
    "..",
    ".",
    "",
    "../../etc/passwd",
    "a/b",
    "a\\b",
    "nul\x00id",
    "CON",
    "con.txt",
    "aux",
    "x" * 5_000,
]
LOOKALIKES = ["a/b", "a\\b", "a_b", "a?b", "a\x00b", "A_B", "a_B", "ä_b"]


def persist_largest_first_reference(
    sizes: list[int], max_chars: int, marker_chars: int = MARKER_CHARS
) -> list[int]:
    """Indexes to persist, largest first (ties: earlier first), until the total fits max_chars."""
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda k: (-sizes[k], k)):
        if total <= max_chars or sizes[i] <= marker_chars:
            break
        chosen.append(i)
        total += marker_chars - sizes[i]
    return chosen


def _plain_name(safe_name: Callable) -> None:
    for raw in HOSTILE:
        name = safe_name(raw)
        assert isinstance(name, str) and name, f"safe_name({raw[:20]!r}) must be a non-empty string"
        assert re.fullmatch(r"[A-Za-z0-9._-]+", name), (
            f"safe_name({raw[:20]!r}) = {name[:60]!r} has unsafe characters"
        )
        assert name not in (".", "..") and len(name) <= 100, f"safe_name({raw[:20]!r}) = {name[:60]!r}"
        assert name.split(".")[0].upper() not in RESERVED, f"safe_name({raw!r}) = {name!r} is a reserved name"


def _distinct(safe_name: Callable) -> None:
    names = [safe_name(i) for i in dict.fromkeys(LOOKALIKES + HOSTILE)]
    folded = {n.lower() for n in names}
    assert len(folded) == len(names), "two different ids got the same name (compared case-insensitively)"


def _stable(safe_name: Callable) -> None:
    for raw in ["toolu_01", "a/b", "ü"]:
        assert safe_name(raw) == safe_name(raw), f"safe_name({raw!r}) changed between two calls"


def _readable(safe_name: Callable) -> None:
    name = safe_name("toolu_01ABCdef")
    assert "toolu_01ABCdef" in name, f"an ordinary id should stay readable in its name, got {name!r}"


def check_safe_name(safe_name: Callable) -> CheckReport:
    """Exercise 1: a file name for any tool_use_id that stays in the folder and never collides."""
    return run_cases(
        "safe_name",
        [
            ("hostile ids become plain file names", lambda: _plain_name(safe_name)),
            ("look-alike ids get different names", lambda: _distinct(safe_name)),
            ("the same id always gets the same name", lambda: _stable(safe_name)),
            ("an ordinary id stays readable", lambda: _readable(safe_name)),
        ],
    )


def _compare_plan(fn: Callable, sizes: list[int], max_chars: int) -> None:
    want = persist_largest_first_reference(list(sizes), max_chars)
    got = fn(list(sizes), max_chars)
    assert list(got) == want, (
        f"sizes={sizes[:8]}{'...' if len(sizes) > 8 else ''}, max_chars={max_chars}: "
        f"expected {want}, got {list(got)}"
    )


def check_persist_largest_first(persist_largest_first: Callable) -> CheckReport:
    """Exercise 2: which results to persist, largest first, only while the total is over budget."""
    fn = persist_largest_first
    cases = [
        ("within budget: nothing", lambda: _compare_plan(fn, [5_000, 3_000], 10_000)),
        ("exactly at the budget: nothing", lambda: _compare_plan(fn, [6_000, 4_000], 10_000)),
        ("one huge result", lambda: _compare_plan(fn, [300, 250_000, 900], 200_000)),
        ("largest first, then the next", lambda: _compare_plan(fn, [9_000, 30_000, 20_000, 1_000], 12_000)),
        ("ties go in order", lambda: _compare_plan(fn, [8_000, 8_000, 8_000], 12_000)),
        ("results smaller than a marker stay", lambda: _compare_plan(fn, [2_000] * 10, 5_000)),
        ("stops as soon as it fits", lambda: _compare_plan(fn, [50_000, 40_000, 30_000, 5_000], 60_000)),
        ("no results", lambda: _compare_plan(fn, [], 0)),
    ]
    for k, session in enumerate(course_sessions()):
        # sizes of each user message's results, scaled up tenfold so that budgets bite
        sizes = [
            [10 * result_chars(b) for b in tool_result_blocks(m)] for m in session if m["role"] == "user"
        ]
        sizes = [s for s in sizes if s]
        cases.append(
            (
                f"course session {k + 1}, every user message, sizes x10",
                lambda ss=sizes: [_compare_plan(fn, s, cap) for s in ss for cap in (0, 5_000, 20_000)],
            )
        )
    return run_cases("persist_largest_first", cases)
