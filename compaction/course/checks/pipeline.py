"""Checks for chapters 05 and 08: cache breaks, the cheap layers in order, the threshold, the breaker.

Each check is differential: the learner's function must give the package's answer on the course
sessions (and on requests made from them by compacting every turn), plus targeted cases that the
known-wrong answers fail: counting an append as a break, running micro before budget (a large
output is then nowhere on disk), a buffer that is never scaled down, a breaker that never opens
or never resets. Deliberately left out: the summary itself (chapter 06 checks it).
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from pathlib import Path

from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.messages import assistant, text, tool_result, tool_use, user
from compaction.pipeline import run_cheap_layers
from compaction.prompt_cache import cache_breaks as cache_breaks_reference
from compaction.store import OutputStore
from compaction.triggers import CircuitBreaker, summary_threshold

BIG = 40_000  # characters of the large output in the order case


def requests_of(session: list[dict], prepare: Callable[[list], list]) -> list[list[dict]]:
    """The requests an agent sends when ``prepare`` runs before each call, replayed from a session."""
    sent = [prepare(session[:1])]
    for i in range(1, len(session) - 1, 2):
        sent.append(prepare(sent[-1] + session[i : i + 2]))
    return sent


def with_parallel_outputs(session: list[dict], sizes: list[int]) -> list[dict]:
    """A session ending in one assistant message with parallel reads of the given sizes."""
    head = session if session[-1]["role"] == "user" else session[:-1]
    uses = [tool_use(f"toolu_big{j}", "read_file", {"path": f"data/big{j}.txt"}) for j in range(len(sizes))]
    results = [tool_result(f"toolu_big{j}", f"<{j}>" + "y" * n) for j, n in enumerate(sizes)]
    return [*head, assistant(text("Reading the data files."), *uses), user(*results)]


def _sessions() -> list[list[dict]]:
    return course_sessions()


# ---------------------------------------------------------------- chapter 05, exercise 1


def _compare_breaks(fn: Callable, requests: list[list[dict]], label: str) -> None:
    want = cache_breaks_reference(copy.deepcopy(requests))
    got = fn(copy.deepcopy(requests))
    assert [tuple(b) for b in got] == want, f"{label}: expected {want[:6]}..., got {list(got)[:6]}..."


def check_cache_breaks(cache_breaks: Callable) -> CheckReport:
    """Exercise: (request index, first changed message) for every request that broke the cache."""

    def every_turn(messages: list[dict]) -> list[dict]:
        with tempfile.TemporaryDirectory() as root:
            return run_cheap_layers(messages, store=OutputStore(root), max_messages=20, keep_recent=2)

    cases = []
    for k, s in enumerate(_sessions()):
        grown = requests_of(s, list)
        compacted = requests_of(s, every_turn)
        cases.append(
            (f"session {k + 1}: appending only", lambda g=grown: _compare_breaks(cache_breaks, g, "grown"))
        )
        cases.append(
            (
                f"session {k + 1}: compacting every turn",
                lambda c=compacted: _compare_breaks(cache_breaks, c, "compacted"),
            )
        )
    task = [user("task")]
    cases += [
        ("no requests, no breaks", lambda: _compare_breaks(cache_breaks, [], "empty")),
        ("the same request twice", lambda: _compare_breaks(cache_breaks, [task, task], "same")),
        (
            "a summary replaces everything",
            lambda: _compare_breaks(
                cache_breaks, [[*task, assistant("a"), user("b")], [user("summary")]], "summary"
            ),
        ),
    ]
    return run_cases("cache_breaks", cases)


# ---------------------------------------------------------------- chapter 05, exercise 2

GRID = [(2_000, 20, 2), (10_000, 50, 3), (200_000, 12, 0)]  # (max_chars, max_messages, keep_recent)


def _run_with_store(fn: Callable, messages: list[dict], **kwargs) -> tuple[list[dict], str]:
    with tempfile.TemporaryDirectory() as root:
        out = fn(copy.deepcopy(messages), store=OutputStore(root), **kwargs)
        on_disk = "".join(p.read_text() for p in sorted(Path(root).rglob("*")) if p.is_file())
    return out, on_disk


def _compare_prepare(fn: Callable, messages: list[dict]) -> None:
    for max_chars, max_messages, keep_recent in GRID:
        kwargs = {"max_chars": max_chars, "max_messages": max_messages, "keep_recent": keep_recent}
        got, _ = _run_with_store(fn, messages, **kwargs)
        want, _ = _run_with_store(run_cheap_layers, messages, **kwargs)
        assert got == want, f"{len(messages)} messages, {kwargs}: the output differs from the package's"


def check_cheap_layers(prepare: Callable) -> CheckReport:
    """Exercise: budget -> snip -> micro, identical to ``run_cheap_layers`` on every course session."""
    cases = []
    for k, s in enumerate(_sessions()):
        cases.append((f"session {k + 1}, {len(GRID)} settings", lambda s=s: _compare_prepare(prepare, s)))
        big = with_parallel_outputs(s, [BIG, 300, 300, 300, 300])
        cases.append(
            (f"session {k + 1} ending in parallel outputs", lambda b=big: _compare_prepare(prepare, b))
        )

    def large_output_on_disk() -> None:
        messages = with_parallel_outputs(_sessions()[-1], [BIG, 300, 300, 300, 300])
        out, on_disk = _run_with_store(prepare, messages, max_chars=10_000, keep_recent=3)
        large = "<0>" + "y" * BIG
        assert large not in str(out), "the large output should have left the context"
        assert large in on_disk, "the large output left the context but is nowhere on disk: check the order"

    cases.append(("a large output is on disk before it leaves", large_output_on_disk))
    return run_cases("cheap layers in order", cases)


# ---------------------------------------------------------------- chapter 08, exercise 1

WINDOWS = [200_000, 1_000_000, 100_000, 32_000, 8_000, 4_000, 1_000]


def _threshold_case(fn: Callable, *args) -> None:
    try:
        want = summary_threshold(*args)
    except ValueError:
        try:
            got = fn(*args)
        except ValueError:
            return
        raise AssertionError(
            f"summary_threshold{args}: expected a ValueError (no room left), got {got}"
        ) from None
    got = fn(*args)
    assert got == want, f"summary_threshold{args}: expected {want:,}, got {got!r}"


def check_summary_threshold(fn: Callable) -> CheckReport:
    """Exercise: the threshold, identical to the package's for default and given reserves and buffers."""
    cases = [(f"window {w:,}", lambda w=w: _threshold_case(fn, w)) for w in WINDOWS]
    cases += [
        ("explicit reserve and buffer", lambda: _threshold_case(fn, 10_000, 1_000, 500)),
        ("a buffer of zero is a buffer", lambda: _threshold_case(fn, 10_000, 1_000, 0)),
        ("no room left is a ValueError", lambda: _threshold_case(fn, 1_000, 900, 200)),
    ]
    return run_cases("summary_threshold", cases)


# ---------------------------------------------------------------- chapter 08, exercise 2

OUTCOMES = {
    "three failures in a row": [False, False, False],
    "failures with successes between": [False, False, True, False, False, True, False],
    "two failures are not enough": [False, False],
    "only successes": [True] * 6,
    "the fourth failure after a reset": [False, True, False, False, False],
}


def _breaker_case(cls: type, outcomes: list[bool], max_failures: int = 3) -> None:
    mine, ref = cls(max_failures), CircuitBreaker(max_failures)
    for n, outcome in enumerate(outcomes, 1):
        if ref.is_open:
            break  # an open breaker is not asked again
        mine.record(outcome)
        ref.record(outcome)
        assert bool(mine.is_open) == ref.is_open, (
            f"after {outcomes[:n]} with max_failures={max_failures}: is_open should be {ref.is_open}"
        )


def check_circuit_breaker(cls: type) -> CheckReport:
    """Exercise: a breaker that opens after max_failures consecutive failures, like the package's."""
    cases = [(name, lambda o=o: _breaker_case(cls, o)) for name, o in OUTCOMES.items()]
    cases.append(("max_failures=1 opens at once", lambda: _breaker_case(cls, [False], 1)))
    cases.append(("max_failures=5", lambda: _breaker_case(cls, [False] * 4 + [True] + [False] * 5, 5)))
    return run_cases("CircuitBreaker", cases)
