"""The chapter 08 breaker check passes the package's replay, fails a stub, rejects known-wrong answers."""

from __future__ import annotations

from check_cases import check_tests

from compaction.course.checks import breaker as checks
from compaction.layers.triggers import CircuitBreaker


def opened_counting_all_failures(events, max_failures=3):
    """Wrong: any event whose layer ends in "failed" counts (a failed budget write too)."""
    run = 0
    for event in events:
        if event.kind.endswith("failed"):
            run += 1
        elif event.kind == "summary":
            run = 0
        if run >= max_failures:
            return event.turn
    return None


def opened_any_event_resets(events, max_failures=3):
    """Wrong: every event that is not a failure resets the count."""
    run = 0
    for event in events:
        run = run + 1 if event.kind == "summary_failed" else 0
        if run >= max_failures:
            return event.turn
    return None


def opened_never_resets(events, max_failures=3):
    """Wrong: counts failures in all, not in a row."""
    failures = [e.turn for e in events if e.kind == "summary_failed"]
    return failures[max_failures - 1] if len(failures) >= max_failures else None


def opened_one_late(events, max_failures=3):
    """Wrong: > instead of >=, opens one failure late."""
    run = 0
    for event in events:
        if event.kind in ("summary", "summary_failed"):
            run = run + 1 if event.kind == "summary_failed" else 0
            if run > max_failures:
                return event.turn
    return None


def opened_by_last_turn(events, max_failures=3):
    """Wrong: the turn of the last failure, not of the one that opened it."""
    run, opened = 0, None
    for event in events:
        if event.kind in ("summary", "summary_failed"):
            run = run + 1 if event.kind == "summary_failed" else 0
            if run >= max_failures:
                opened = event.turn
    return opened


def opened_with_a_streak_list(events, max_failures=3):
    """Right, another way: the outcomes in a list, and the first window of all failures."""
    outcomes = [(e.turn, e.kind == "summary") for e in events if e.kind in ("summary", "summary_failed")]
    for i in range(max_failures - 1, len(outcomes)):
        window = outcomes[i - max_failures + 1 : i + 1]
        if not any(ok for _, ok in window):
            return outcomes[i][0]
    return None


class CountsEveryFailure:
    """Wrong: counts failures in all, a success never resets the count (chapter 08's naive breaker)."""

    def __init__(self, max_failures=3):
        self.max_failures, self.failures = max_failures, 0

    @property
    def is_open(self):
        return self.failures >= self.max_failures

    def record(self, success):
        self.failures += 0 if success else 1


class OpensOneLate(CountsEveryFailure):
    """Wrong: > instead of >=, open only after one failure more than max_failures."""

    @property
    def is_open(self):
        return self.failures > self.max_failures

    def record(self, success):
        self.failures = 0 if success else self.failures + 1


class ClosesOnItsOwn(CountsEveryFailure):
    """Wrong: open at max_failures, then forgets and tries again on the next failure."""

    def record(self, success):
        self.failures = 0 if success or self.failures >= self.max_failures else self.failures + 1


class LastOutcomes:
    """Right, another way: keeps the newest outcomes and is open when the last max_failures all failed."""

    def __init__(self, max_failures=3):
        self.limit, self.outcomes = max_failures, []

    def record(self, success):
        self.outcomes = [*self.outcomes, success][-self.limit :]

    @property
    def is_open(self):
        return len(self.outcomes) == self.limit and not any(self.outcomes)


def package_breaker(max_failures):
    """The package's breaker, made as the check makes a learner's."""
    return CircuitBreaker(max_failures)


CASES = [
    (checks.check_circuit_breaker, package_breaker, [CountsEveryFailure, OpensOneLate, ClosesOnItsOwn]),
    (
        checks.check_breaker_opened_at,
        checks.opened_at,
        [
            opened_counting_all_failures,
            opened_any_event_resets,
            opened_never_resets,
            opened_one_late,
            opened_by_last_turn,
        ],
    ),
]

test_each_check_passes_the_package_and_fails_a_stub, test_each_check_rejects_known_wrong_answers = (
    check_tests(CASES)
)


def test_a_right_answer_written_differently_passes():
    assert checks.check_breaker_opened_at(opened_with_a_streak_list).passed


def test_a_breaker_written_differently_passes():
    assert checks.check_circuit_breaker(LastOutcomes).passed
