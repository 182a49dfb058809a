"""Checks for chapter 03 (snip): pair-safe cut points, and where snip cuts a long conversation.

Both exercises are differential: the learner's function must give the package's answer on the
course sessions (and on a long session with parallel tool calls and user text after results),
for a grid of sizes. A known-wrong answer, such as cutting at a fixed index, splits a tool pair
on these sessions and fails. Deliberately left out: the placeholder's wording and repeated snips,
which the chapter shows with the package's ``snip_compact``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.messages import assistant, has_tool_use, text, tool_result, tool_use, user
from compaction.snip import snip_cuts

GRID = [(max_messages, keep_head) for max_messages in (6, 9, 12, 20) for keep_head in (0, 1, 2, 3, 4)]


def safe_cut_points_reference(messages: list[dict]) -> list[int]:
    """Every c in 1..len-1 where messages[:c] and messages[c:] part no tool_use from its result."""
    return [c for c in range(1, len(messages)) if not has_tool_use(messages[c - 1])]


def parallel_session(turns: int = 14) -> list[dict]:
    """A long session: two or three parallel calls a turn, sometimes user text after the results."""
    out, k = [user("Rename `load` to `read_config` everywhere and keep the tests green.")], 0
    for t in range(turns):
        n = 2 + t % 2
        ids = [f"toolu_p{k + j:03d}" for j in range(n)]
        k += n
        out.append(
            assistant(f"Step {t}.", *(tool_use(i, "read_file", {"path": f"src/m{i[-3:]}.py"}) for i in ids))
        )
        extra = [text("Also update the README.")] if t % 4 == 3 else []
        out.append(
            user(*(tool_result(i, f"def load():\n    return {j}\n" * 20) for j, i in enumerate(ids)), *extra)
        )
    out.append(assistant("All renamed."))
    return out


def _sessions() -> list[list[dict]]:
    return [*course_sessions(), parallel_session()]


def _compare(fn: Callable, reference: Callable, messages: list[dict], **kwargs) -> None:
    before = copy.deepcopy(messages)
    got = fn(copy.deepcopy(messages), **kwargs)
    want = reference(before, **kwargs)
    shown = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    assert list(got) == list(want), (
        f"{len(messages)} messages{', ' + shown if shown else ''}: expected {want}, got {got}"
    )


def check_safe_cut_points(safe_cut_points: Callable) -> CheckReport:
    """Exercise 1: every index where a list can be cut without parting a tool pair."""
    ref = safe_cut_points_reference
    cases = [
        (f"session {k + 1} ({len(s)} messages)", lambda s=s: _compare(safe_cut_points, ref, s))
        for k, s in enumerate(_sessions())
    ]
    cases.append(("a single message has no cut", lambda: _compare(safe_cut_points, ref, [user("hi")])))
    cases.append(
        (
            "after a tool_use is never safe",
            lambda: _compare(
                safe_cut_points,
                ref,
                [
                    user("go"),
                    assistant(tool_use("t1", "bash", {"command": "ls"})),
                    user(tool_result("t1", "a")),
                ],
            ),
        )
    )
    return run_cases("safe_cut_points", cases)


def check_snip_cuts(cuts: Callable) -> CheckReport:
    """Exercise 2: (head_end, tail_start) identical to the package's snip_cuts on every session."""
    cases = []
    for k, s in enumerate(_sessions()):
        cases.append(
            (
                f"session {k + 1}, {len(GRID)} sizes",
                lambda s=s: [_compare(cuts, snip_cuts, s, max_messages=m, keep_head=h) for m, h in GRID],
            )
        )
    short = parallel_session(2)
    cases.append(
        ("a short list is not cut", lambda: _compare(cuts, snip_cuts, short, max_messages=50, keep_head=3))
    )
    return run_cases("snip_cuts", cases)
