"""Checks for chapter 08's breaker: the one the chapter builds, and the exercise's replay of events.

``check_circuit_breaker`` gives a learner's ``make(max_failures)`` lists of summary outcomes and
compares its ``is_open`` after each ``record(success=...)`` with the package's ``CircuitBreaker``:
only failures in a row open it, a success before that resets the count.

``check_breaker_opened_at`` gives a learner's ``fn(events, max_failures=3)`` lists of the pipeline's
``CompactionEvent`` records and compares the answer with a replay of the package's
``CircuitBreaker``: only ``summary`` (a success) and ``summary_failed`` (a failure) count; every
other event (micro, a reactive compaction, a manual compact, the ``breaker`` notice itself, a
``budget_failed``) neither adds a failure nor resets the count. Deliberately left out: closing the
breaker again, which the package does not do either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compaction.core.events import CompactionEvent
from compaction.course.checks import CheckReport, run_cases
from compaction.layers.triggers import CircuitBreaker
from compaction.presentation.language import say

ANSWERS = ("opened_at",)  # what an exercise computes: kept out of for_exercise("breaker")

COUNTED = ("summary", "summary_failed")  # the automatic summary's outcomes


def opened_at(events: Sequence[CompactionEvent], max_failures: int = 3) -> int | None:
    """The check's reference: the turn at which the package's breaker opens, or None."""
    breaker = CircuitBreaker(max_failures)
    for event in events:
        if event.kind in COUNTED:
            breaker.record(success=event.kind == "summary")
            if breaker.is_open:
                return event.turn
    return None


# case -> (outcomes of the automatic summaries in order, max_failures)
OUTCOMES = {
    "three failures in a row open it": ((False, False, False), 3),
    "two failures leave it closed": ((False, False), 3),
    "a success between failures resets the count": ((False, False, True, False, False), 3),
    "failing every other call never opens it": ((False, True) * 4, 3),
    "it stays open after more failures": ((False,) * 5, 3),
    "max_failures=1: one failure opens it": ((True, False), 1),
    "max_failures=5, four failures": ((False,) * 4, 5),
}
RULES = {  # case -> the rule a wrong answer breaks, named in its failing row
    "three failures in a row open it": "max_failures failures in a row open it",
    "two failures leave it closed": "it opens at max_failures, not before",
    "a success between failures resets the count": "a success resets the count: only failures in a row count",
    "failing every other call never opens it": "a success resets the count: only failures in a row count",
    "it stays open after more failures": "once open, more failures keep it open",
    "max_failures=1: one failure opens it": "max_failures failures in a row open it",
    "max_failures=5, four failures": "it opens at max_failures, not before",
}
STATES = {True: "open", False: "closed"}  # a breaker's is_open, in words


def check_circuit_breaker(make: Callable[[int], object]) -> CheckReport:
    """``make(max_failures)``: an object with ``record(success)`` and ``is_open``, as the package's."""

    def case_for(name, outcomes, limit):
        def case():
            ours, package = make(limit), CircuitBreaker(limit)
            if bool(ours.is_open):
                raise AssertionError(say("open before any summary was tried: a new breaker is closed"))
            for call, success in enumerate(outcomes, 1):
                ours.record(success=success)
                package.record(success=success)
                if bool(ours.is_open) != package.is_open:
                    shown = " ".join("ok" if ok else "fail" for ok in outcomes[:call])
                    raise AssertionError(
                        say(
                            "after summary {call} ({shown}, max_failures={limit}): {state}, the package's is"
                            " {value}; the rule: {rule}",
                            call=call,
                            shown=shown,
                            limit=limit,
                            state=say(STATES[bool(ours.is_open)]),
                            value=say(STATES[package.is_open]),
                            rule=say(RULES[name]),
                        )
                    )

        return case

    return run_cases("circuit_breaker", [(name, case_for(name, *args)) for name, args in OUTCOMES.items()])


def _events(*layers: str) -> list[CompactionEvent]:
    """Events at turns 10, 11, 12, ... with the given layers."""
    return [CompactionEvent(10 + i, layer, 0, 0) for i, layer in enumerate(layers)]


F, S = "summary_failed", "summary"
SEQUENCES = {
    "no events": (_events(), 3),
    "three failures in a row": (_events(F, F, F, "breaker"), 3),
    "a success between failures resets the count": (_events(F, F, S, F, F), 3),
    "micro and budget between failures do not reset it": (_events(F, "micro", F, "budget", F), 3),
    "a reactive compaction or a manual compact does not reset it": (
        _events(F, "reactive", F, "compact", F),
        3,
    ),
    "a failed budget write is not a failed summary": (_events("budget_failed", F, F), 3),
    "it opens once, at the first turn it could": (_events(F, F, F, F, F), 3),
    "max_failures=1": (_events(S, F, S), 1),
    "max_failures=5, four failures": (_events(F, F, F, F), 5),
    "max_failures=2, after a success": (_events(F, S, F, F), 2),
}


def check_breaker_opened_at(fn: Callable[..., int | None]) -> CheckReport:
    """``fn(events, max_failures=3)``: the turn the breaker opened at, or None; as the package's breaker."""

    def case_for(events, limit):
        def case():
            got, want = fn(list(events), max_failures=limit), opened_at(events, limit)
            if got == want:
                return
            shown = " ".join(f"{e.turn}:{e.kind}" for e in events) or "(none)"
            if want is None:
                raise AssertionError(
                    say("events {shown}: said it opened at turn {got}; it never opens", shown=shown, got=got)
                )
            raise AssertionError(
                say(
                    "events {shown}: got {got}, it opens at turn {want} (max_failures={limit})",
                    shown=shown,
                    got=f"{got!r}",
                    want=want,
                    limit=limit,
                )
            )

        return case

    return run_cases("breaker_opened_at", [(name, case_for(*args)) for name, args in SEQUENCES.items()])
